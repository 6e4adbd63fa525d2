package policykind_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/sink/effectivepolicy"
)

// The Go types are registered under the kinds the CRDs serve, and both of
// Strata's packages can share one scheme (they share a group and version).
func TestAddToScheme(t *testing.T) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{policykind.AddToScheme, effectivepolicy.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		obj  runtime.Object
		kind string
	}{
		{&policykind.Declaration{}, "PolicyKind"},
		{&policykind.DeclarationList{}, "PolicyKindList"},
		{&effectivepolicy.EffectivePolicy{}, "EffectivePolicy"},
		{&effectivepolicy.EffectivePolicyList{}, "EffectivePolicyList"},
	}
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			want := schema.GroupVersionKind{Group: "strata.dev", Version: "v1alpha1", Kind: tc.kind}
			gvks, _, err := s.ObjectKinds(tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			if len(gvks) != 1 || gvks[0] != want {
				t.Errorf("ObjectKinds(%T) = %v, want [%v]", tc.obj, gvks, want)
			}
			if _, err := s.New(want); err != nil {
				t.Errorf("New(%v): %v", want, err)
			}
		})
	}
}
