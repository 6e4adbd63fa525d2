package effectivepolicy_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/randfill"

	"github.com/strata-dev/strata/pkg/sink/effectivepolicy"
)

// Unstructured is the converter's map (runtime.DefaultUnstructuredConverter)
// for EffectivePolicies filled at random in every field, so that a field
// added to the API types and not to Unstructured fails here: metadata
// with only what Strata sets, or anything else (left to the converter);
// resultant policies of every JSON type, numbers of every notation, and
// not JSON at all (an error both ways); nil and empty slices and maps.
func TestUnstructuredIsConverter(t *testing.T) {
	values := []string{`{"a":1,"b":1.5,"c":[1,"x",null,true],"d":{}}`, `1e400`, `12345678901234567890`, `-0`, `"s"`, `[]`, `null`, `{"a":1,"a":2}`, `{`, `{} x`}
	f := randfill.NewWithSeed(53).NilChance(0.2).NumElements(0, 3).Funcs(
		func(j *apiextensionsv1.JSON, c randfill.Continue) {
			if c.Intn(4) == 0 {
				v := map[string]struct {
					S string
					N []float64
					M map[string]int64
				}{}
				c.Fill(&v)
				j.Raw, _ = json.Marshal(v)
				return
			}
			j.Raw = []byte(values[c.Intn(len(values))])
		},
		func(m *metav1.ObjectMeta, c randfill.Continue) {
			if c.Intn(3) == 0 {
				c.FillNoCustom(m)
				return
			}
			m.Name, m.Namespace = c.String(6), c.String(6)
			c.Fill(&m.Labels)
		},
	)
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
	for i := range 3000 {
		var ep effectivepolicy.EffectivePolicy
		f.Fill(&ep)
		if i < len(metas) {
			ep.ObjectMeta = metas[i]
		}
		want, wantErr := runtime.DefaultUnstructuredConverter.ToUnstructured(&ep)
		got, gotErr := effectivepolicy.Unstructured(&ep)
		if (wantErr != nil) != (gotErr != nil) {
			t.Fatalf("case %d: error %v, want %v", i, gotErr, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d: differs from the converter:\n got %s\nwant %s", i, fmt.Sprint(got), fmt.Sprint(want))
		}
	}
}
