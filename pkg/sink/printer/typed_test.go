package printer

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/strata-dev/strata/internal/enginetest"
	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
)

// An EffectivePolicy, written from its Go fields (typed.go), prints as
// go-yaml prints its JSON: random ones with every member present or
// absent, nil and empty slices and maps, strings made of the pieces that
// change go-yaml's choices, resultant policies compact, indented, empty
// and nil, shared by contexts or not, and metadata the typed path leaves
// to the generic one.
func TestTypedIsGoYAML(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for i := range 1500 {
		ep := randomEffectivePolicy(r)
		assertSameYAML(t, fmt.Sprintf("case %d", i), []any{ep, *ep, map[string]any{"x": ep}})
	}
	assertSameYAML(t, "nil", []any{(*strata.EffectivePolicy)(nil), &strata.EffectivePolicy{}})
}

func randomEffectivePolicy(r *rand.Rand) *strata.EffectivePolicy {
	str := func() string {
		if r.IntN(3) == 0 {
			return ""
		}
		return randomString(r, 4)
	}
	strs := func() map[string]string {
		if r.IntN(3) == 0 {
			return nil
		}
		m := map[string]string{}
		for range r.IntN(4) {
			m[randomString(r, 3)] = str()
		}
		return m
	}
	// Half the refs come from a few, so that one ref is written again,
	// at the same place of another context and at other places (the
	// target, a path, a source's attachedTo): the emitter remembers the
	// text of a ref it wrote in the same state (ref).
	var pool []strata.Ref
	ref := func() strata.Ref {
		if len(pool) > 0 && r.IntN(2) == 0 {
			return pool[r.IntN(len(pool))]
		}
		x := strata.Ref{Group: str(), Kind: str(), Namespace: str(), Name: str(), SectionName: str(), Role: str()}
		if len(pool) < 3 {
			pool = append(pool, x)
		}
		return x
	}
	refs := func() []strata.Ref {
		if r.IntN(4) == 0 {
			return nil
		}
		l := []strata.Ref{}
		for range r.IntN(3) {
			l = append(l, ref())
		}
		return l
	}
	ep := &strata.EffectivePolicy{Target: ref()}
	ep.APIVersion, ep.Kind = str(), str()
	ep.Name, ep.Namespace, ep.Labels = str(), str(), strs()
	switch r.IntN(8) {
	case 0:
		ep.Annotations = strs()
	case 1:
		ep.CreationTimestamp = metav1.Unix(1700000000, 0)
	case 2:
		ep.Generation = 3
	}
	if r.IntN(5) == 0 {
		return ep // policies: null
	}
	ep.Policies = []strata.KindPolicies{}
	for range r.IntN(3) {
		kp := strata.KindPolicies{Group: str(), Kind: str(), ControllerName: str(), Visibility: str(),
			PolicyCount: int32(r.IntN(3)), OmittedContexts: int32(r.IntN(3) - 1)}
		if r.IntN(5) != 0 {
			kp.Contexts = []strata.Context{}
			for range r.IntN(3) {
				c := strata.Context{Path: refs(), FieldSources: strs()}
				switch r.IntN(5) {
				case 0:
				case 1:
					c.ResultantPolicy = &apiextensionsv1.JSON{}
				case 2:
					raw, _ := json.MarshalIndent(randomValue(r, 0), " ", "\t")
					c.ResultantPolicy = &apiextensionsv1.JSON{Raw: raw}
				default:
					raw, _ := json.Marshal(randomValue(r, 0))
					c.ResultantPolicy = &apiextensionsv1.JSON{Raw: raw}
				}
				if r.IntN(4) != 0 {
					c.Sources = []strata.Source{}
					for range r.IntN(3) {
						c.Sources = append(c.Sources, strata.Source{Namespace: str(), Name: str(), Result: str(), AttachedTo: refs()})
					}
				}
				kp.Contexts = append(kp.Contexts, c)
			}
			if len(kp.Contexts) > 1 && r.IntN(2) == 0 {
				// Contexts of one folded stack share its resultant
				// policy (effectivepolicy.Indexed).
				kp.Contexts[1].ResultantPolicy = kp.Contexts[0].ResultantPolicy
			}
		}
		ep.Policies = append(ep.Policies, kp)
	}
	return ep
}

// TestTypedFilledIsGoYAML is TestTypedIsGoYAML on EffectivePolicies
// filled at random in every field.
func TestTypedFilledIsGoYAML(t *testing.T) {
	for i, ep := range enginetest.FilledEffectivePolicies(59, 500) {
		assertSameYAML(t, fmt.Sprintf("case %d", i), []any{ep})
	}
}
