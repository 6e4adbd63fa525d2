package effectivepolicy_test

import (
	"fmt"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/strata-dev/strata/internal/enginetest"
	"github.com/strata-dev/strata/pkg/sink/effectivepolicy"
)

// Unstructured is the converter's map (runtime.DefaultUnstructuredConverter)
// for EffectivePolicies filled at random in every field, so that a field
// added to the API types and not to Unstructured fails here: metadata
// with only what Strata sets, or anything else (left to the converter);
// resultant policies of every JSON type, numbers of every notation, and
// not JSON at all (an error both ways); nil and empty slices and maps.
func TestUnstructuredIsConverter(t *testing.T) {
	// Resultant policies of every JSON type, numbers of every notation,
	// and text that is not JSON.
	filled := enginetest.FilledEffectivePolicies(53, 3000, `{"a":1,"b":1.5,"c":[1,"x",null,true],"d":{}}`, `1e400`, `12345678901234567890`, `-0`, `"s"`, `[]`, `null`, `{"a":1,"a":2}`, `{`, `{} x`)
	// Metadata with one member besides what Strata sets, each in turn.
	var metas []metav1.ObjectMeta
	for _, set := range []func(*metav1.ObjectMeta){
		func(m *metav1.ObjectMeta) { m.GenerateName = "g" },
		func(m *metav1.ObjectMeta) { m.UID = "u" },
		func(m *metav1.ObjectMeta) { m.ResourceVersion = "1" },
		func(m *metav1.ObjectMeta) { m.Generation = 2 },
		func(m *metav1.ObjectMeta) { m.CreationTimestamp = metav1.Unix(1700000000, 0) },
		func(m *metav1.ObjectMeta) { now := metav1.Unix(1700000000, 0); m.DeletionTimestamp = &now },
		func(m *metav1.ObjectMeta) { s := int64(3); m.DeletionGracePeriodSeconds = &s },
		func(m *metav1.ObjectMeta) { m.Annotations = map[string]string{"a": "b"} },
		func(m *metav1.ObjectMeta) { m.OwnerReferences = []metav1.OwnerReference{{Name: "o"}} },
		func(m *metav1.ObjectMeta) { m.Finalizers = []string{"f"} },
		func(m *metav1.ObjectMeta) { m.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m"}} },
	} {
		m := metav1.ObjectMeta{Name: "n", Namespace: "ns"}
		set(&m)
		metas = append(metas, m)
	}
	for i, ep := range filled {
		if i < len(metas) {
			ep.ObjectMeta = metas[i]
		}
		want, wantErr := runtime.DefaultUnstructuredConverter.ToUnstructured(ep)
		got, gotErr := effectivepolicy.Unstructured(ep)
		if (wantErr != nil) != (gotErr != nil) {
			t.Fatalf("case %d: error %v, want %v", i, gotErr, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d: differs from the converter:\n got %s\nwant %s", i, fmt.Sprint(got), fmt.Sprint(want))
		}
	}
}
