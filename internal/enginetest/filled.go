package enginetest

import (
	"encoding/json"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/randfill"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
)

// FilledEffectivePolicies are n EffectivePolicies filled at random in
// every field (sigs.k8s.io/randfill), so that a member added to the API
// types and not to a writer that lists the members fails its tests.
// Metadata has only what Strata sets, or, a third of the time, anything;
// a resultant policy is random JSON, or three times in four one of raws.
func FilledEffectivePolicies(seed int64, n int, raws ...string) []*strata.EffectivePolicy {
	f := randfill.NewWithSeed(seed).NilChance(0.2).NumElements(0, 3).Funcs(
		func(j *apiextensionsv1.JSON, c randfill.Continue) {
			if len(raws) > 0 && c.Intn(4) != 0 {
				j.Raw = []byte(raws[c.Intn(len(raws))])
				return
			}
			v := map[string]struct {
				S string
				N []float64
				M map[string]int64
			}{}
			c.Fill(&v)
			j.Raw, _ = json.Marshal(v)
		},
		func(fv *metav1.FieldsV1, c randfill.Continue) { fv.SetRawBytes([]byte(`{"f:metadata":{}}`)) },
		func(m *metav1.ObjectMeta, c randfill.Continue) {
			if c.Intn(3) == 0 {
				c.FillNoCustom(m)
				return
			}
			m.Name, m.Namespace = c.String(6), c.String(6)
			c.Fill(&m.Labels)
		},
	)
	out := make([]*strata.EffectivePolicy, n)
	for i := range out {
		out[i] = &strata.EffectivePolicy{}
		f.Fill(out[i])
	}
	return out
}
