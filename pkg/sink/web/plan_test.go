package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/policykind/builtin"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/sink/web"
	"github.com/strata-dev/strata/pkg/source/files"
)

// TestPlanMatchesComplete checks the promise of Plan: around every node
// of example 3 and the parable, at depths 1 to 3 with the default
// limits and at 2 with tight ones (so that caps hide neighbours and
// policies), the neighbourhood drawn from the run Plan.Scope scopes is
// the complete run's: the same boxes, the same standings, the same SVG.
func TestPlanMatchesComplete(t *testing.T) {
	catalogue, err := builtin.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	opts := engine.Options{Catalogue: catalogue}
	for _, dir := range []string{"../../../examples/gep-713/example-3", "../../../examples/parable"} {
		src, err := files.Read([]string{dir}, nil)
		if err != nil {
			t.Fatal(err)
		}
		full, err := engine.Run(src.Snapshot, opts)
		if err != nil {
			t.Fatal(err)
		}
		complete := web.NewWorld(full)
		scoped, narrowed := 0, 0
		for id := range full.Graph.Nodes {
			ref := full.Graph.Node(topology.NodeID(id)).Ref
			for _, c := range []struct {
				depth int
				lim   web.Limits
			}{{1, web.DefaultLimits}, {2, web.DefaultLimits}, {3, web.DefaultLimits}, {2, web.Limits{PerGroup: 2, Nodes: 8}}} {
				plan := &web.Plan{Depth: c.depth, Limits: c.lim, Focus: func(r *engine.Result) (topology.NodeID, bool) {
					n := r.Graph.Lookup(ref)
					return n, n != topology.None
				}}
				res, err := engine.RunScoped(src.Snapshot, opts, plan.Scope)
				if err != nil {
					t.Fatal(err)
				}
				if res.Scope != nil {
					scoped++
					if len(res.Scope) < len(full.Graph.Nodes) {
						narrowed++
					}
				}
				got, err := plan.Neighbourhood(res, res.Graph.Lookup(ref))
				if err != nil {
					t.Fatal(err)
				}
				want := complete.Neighbourhood(topology.NodeID(id), c.depth, c.lim)
				if d := cmp.Diff(drawing(t, want), drawing(t, got)); d != "" {
					t.Fatalf("%s %s depth %d %+v: scoped drawing differs (-complete +scoped):\n%s", dir, ref, c.depth, c.lim, d)
				}
			}
		}
		t.Logf("%s: %d drawings scoped, %d to part of the graph", dir, scoped, narrowed)
		if narrowed == 0 {
			t.Errorf("%s: no drawing was scoped to part of the graph: the test compares nothing", dir)
		}
	}
}

// drawing is a graph as JSON and SVG.
func drawing(t *testing.T, g *web.Graph) string {
	t.Helper()
	js, err := json.MarshalIndent(g, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	var svg bytes.Buffer
	if err := web.SVG(&svg, g); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s\n%s", js, svg.String())
}
