package effectivepolicy

import (
	"reflect"
	"testing"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
)

// TestBuildSharesNothing: the records Indexed makes share a folded
// stack's resultant policy and field sources between contexts (made
// once), and their labels between targets of a kind; those Build returns, which a client decodes the API server's
// answer into, share nothing.
func TestBuildSharesNothing(t *testing.T) {
	s := synth.Generate(synth.Sizes{Namespaces: 3, Gateways: 3, Routes: 60, Services: 60, Policies: 30}, 1)
	res, err := engine.Run(s, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	shared := func(eps []*EffectivePolicy) (contexts, reused int) {
		seen := map[uintptr]bool{}
		for _, ep := range eps {
			if p := reflect.ValueOf(ep.Labels).Pointer(); seen[p] {
				reused++
			} else {
				seen[p] = true
			}
			for _, kp := range ep.Policies {
				for _, c := range kp.Contexts {
					contexts++
					for _, p := range []uintptr{reflect.ValueOf(c.FieldSources).Pointer(), reflect.ValueOf(c.ResultantPolicy).Pointer()} {
						if p == 0 {
							continue
						}
						if seen[p] {
							reused++
						}
						seen[p] = true
					}
				}
			}
		}
		return contexts, reused
	}
	n, at := Indexed(res)
	var indexed []*EffectivePolicy
	for i := range n {
		indexed = append(indexed, at(i, nil))
	}
	if contexts, reused := shared(indexed); contexts < 50 || reused == 0 {
		t.Fatalf("Indexed: %d contexts, %d shared parts; the test needs contexts that share", contexts, reused)
	}
	labels, kinds := map[uintptr]bool{}, map[string]bool{}
	for _, ep := range indexed {
		labels[reflect.ValueOf(ep.Labels).Pointer()] = true
		kinds[ep.Target.Kind] = true
	}
	if len(labels) != len(kinds) {
		t.Errorf("Indexed: %d label maps for targets of %d kinds, want one a kind", len(labels), len(kinds))
	}
	built := Build(res)
	if _, reused := shared(built); reused != 0 {
		t.Errorf("Build: %d parts shared between contexts", reused)
	}
	if !reflect.DeepEqual(built, indexed) {
		t.Errorf("Build differs from Indexed's records")
	}
}
