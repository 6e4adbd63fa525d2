package effective_test

import (
	"slices"
	"testing"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// TestContextPathsInSlabs checks each context's path, made in slabs of
// many contexts' paths: it is the namespaces above one of its target's
// paths, then that path, the contexts in the order of Ancestors; and
// appending to one context's path leaves every other's as it was. The
// world has more contexts than a slab holds.
func TestContextPathsInSlabs(t *testing.T) {
	s := synth.Generate(synth.Sizes{Namespaces: 4, Gateways: 8, Routes: 800, Services: 800, Policies: 400}, 11)
	res, err := engine.Run(s, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := res.Graph
	contexts := 0
	var all [][]topology.NodeID
	for _, kr := range res.Kinds {
		for _, tg := range kr.Effective.Targets {
			var want [][]topology.NodeID
			g.Ancestors(tg.Node, func(p []topology.NodeID) {
				want = append(want, append(g.Namespaces(p), p...))
			})
			for _, ctx := range tg.Contexts {
				if !slices.ContainsFunc(want, func(w []topology.NodeID) bool { return slices.Equal(w, ctx.Path) }) {
					t.Fatalf("target %s: context path %v is none of %v", g.Node(tg.Node).Ref.Key(), ctx.Path, want)
				}
				all = append(all, slices.Clone(ctx.Path))
				contexts++
			}
		}
	}
	if contexts < 2*1024 {
		t.Fatalf("only %d contexts: too few to fill slabs", contexts)
	}
	i := 0
	for _, kr := range res.Kinds {
		for _, tg := range kr.Effective.Targets {
			for _, ctx := range tg.Contexts {
				_ = append(ctx.Path, topology.NodeID(-7))
				i++
			}
		}
	}
	i = 0
	for _, kr := range res.Kinds {
		for _, tg := range kr.Effective.Targets {
			for _, ctx := range tg.Contexts {
				if !slices.Equal(ctx.Path, all[i]) {
					t.Fatalf("context %d's path %v became %v after appending to the others", i, all[i], ctx.Path)
				}
				i++
			}
		}
	}
}
