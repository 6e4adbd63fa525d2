package printer

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
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
	// A resultant policy longer than the emitter's buffer holds before
	// it flushes, shared by two contexts: the emitter must not flush
	// while it remembers a part's text (again).
	big := map[string]any{}
	for i := range 2000 {
		big[fmt.Sprintf("field-%04d", i)] = strings.Repeat("v", 30)
	}
	raw, err := json.Marshal(big)
	if err != nil {
		t.Fatal(err)
	}
	shared := &apiextensionsv1.JSON{Raw: raw}
	ep := &strata.EffectivePolicy{Policies: []strata.KindPolicies{{Kind: "K", Contexts: []strata.Context{{ResultantPolicy: shared}, {ResultantPolicy: shared}}}}}
	assertSameYAML(t, "a part longer than a flush", []any{ep, ep})
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
	var folds []strata.Context
	sourcePool := []strata.Source{{Namespace: "ns", Name: "a", Result: "Enforced"}, {Name: "a", Result: "Enforced"}, {Namespace: "ns", Name: "a", Result: "Overridden"}, {Namespace: "ns", Name: "b", Result: ""}}
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
						// Half from a few without attachedTo, which
						// the emitter writes again (source).
						if r.IntN(2) == 0 {
							c.Sources = append(c.Sources, sourcePool[r.IntN(len(sourcePool))])
							continue
						}
						c.Sources = append(c.Sources, strata.Source{Namespace: str(), Name: str(), Result: str(), AttachedTo: refs()})
					}
				}
				// Contexts of one folded stack share its field
				// sources and resultant policy (effectivepolicy.Indexed),
				// here and in other kinds' contexts; the emitter writes
				// them again by identity (again.go).
				if len(folds) > 0 && r.IntN(2) == 0 {
					f := folds[r.IntN(len(folds))]
					c.FieldSources, c.ResultantPolicy = f.FieldSources, f.ResultantPolicy
				} else if len(folds) < 3 {
					folds = append(folds, c)
				}
				kp.Contexts = append(kp.Contexts, c)
			}
			if len(kp.Contexts) > 1 && r.IntN(2) == 0 {
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
