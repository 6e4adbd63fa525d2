package query

import (
	"reflect"
	"runtime"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/policykind"
)

// TestRunTablesOnOneCoreAndOnMany checks that the tables describing and
// listing policies read of a whole run (affected, stackingOf), made on
// every core, are those of one pass over the targets in order, on one
// core and on four, for a world whose targets fill many chunks.
func TestRunTablesOnOneCoreAndOnMany(t *testing.T) {
	s := synth.Generate(synth.Sizes{Namespaces: 6, Gateways: 12, Routes: 900, Services: 900, Policies: 300}, 7)
	res, err := engine.Run(s, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[schema.GroupKind]bool{}
	for _, kr := range res.Kinds {
		kinds[kr.Kind.Key()] = true
	}
	// The tables, one target after another.
	wantAffected := map[*policykind.Policy]Count{}
	wantStacking := map[schema.GroupKind]map[*policykind.Policy][]stacked{}
	widest := 0
	for i, kr := range res.Kinds {
		st := map[*policykind.Policy][]stacked{}
		wantStacking[kr.Kind.Key()] = st
		for _, tg := range kr.Effective.Targets {
			hit := map[*policykind.Policy]bool{}
			for _, ctx := range tg.Contexts {
				for p := range ctx.Policies {
					st[p] = append(st[p], stacked{tg, ctx})
					if res.SharedWith(i) != i || !ctx.Contributes(p) {
						continue
					}
					c := wantAffected[p]
					c.Contexts++
					if !hit[p] {
						hit[p] = true
						c.Targets++
					}
					wantAffected[p] = c
				}
			}
		}
		widest = max(widest, len(kr.Effective.Targets))
	}
	if widest <= 2*256 {
		t.Fatalf("the widest kind has %d targets: they fill too few chunks", widest)
	}
	for _, procs := range []int{1, 4} {
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			if got := affected(res, kinds); !reflect.DeepEqual(got, wantAffected) {
				t.Errorf("on %d cores: affected differs from one pass over the targets", procs)
			}
			for _, kr := range res.Kinds {
				if got := stackingOf(kr); !reflect.DeepEqual(got, wantStacking[kr.Kind.Key()]) {
					t.Errorf("on %d cores: stackingOf(%s) differs from one pass over the targets", procs, kr.Kind.Kind)
				}
			}
		}()
	}
}
