package topology

import (
	"reflect"
	"runtime"
	"testing"

	"github.com/strata-dev/strata/internal/synth"
)

// TestRoutesOnEveryCore checks that the graph is the same whether the
// routes' parents and backends are found on one core or shared out a
// route at a time among several workers (attacher.addRoutes): the same
// nodes, with the same parents, children and sections, and the same
// problems. engine's TestRunOnEveryCore checks the same at the
// production chunk, where one worker may take every chunk of a small
// world before the others start.
func TestRoutesOnEveryCore(t *testing.T) {
	s := synth.Generate(synth.Sizes{Namespaces: 6, Gateways: 12, Routes: 1500, Services: 1500, Policies: 10}, 3)
	build := func(procs, chunk int) *Graph {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		return objects(s, chunk)(Extra{})
	}
	one, every := build(1, len(s.HTTPRoutes)), build(4, 1)
	edges := 0
	for _, n := range one.Nodes {
		edges += len(n.Children)
	}
	if edges < 3000 {
		t.Fatalf("only %d edges: the world is too small to share out", edges)
	}
	if !reflect.DeepEqual(one.Nodes, every.Nodes) || !reflect.DeepEqual(one.Problems, every.Problems) {
		t.Fatal("the graph on one core and on every core differ")
	}
}
