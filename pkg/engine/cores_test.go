package engine_test

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
)

// TestRunOnEveryCore checks that a run on several cores, where effective
// policies and status are computed for chunks of targets on separate
// workers (internal/cores), answers exactly what a run on one core
// answers: every policy's and target's status, and every context's
// effective spec, provenance and standings, on a world of some thousands
// of targets (more chunks than workers). Under -race it also checks that
// the workers share nothing they write.
func TestRunOnEveryCore(t *testing.T) {
	s := synth.Generate(synth.Sizes{Namespaces: 6, Gateways: 12, Routes: 1500, Services: 1500, Policies: 600}, 3)
	run := func(procs int) *engine.Result {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		res, err := engine.Run(s, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	one, every := run(1), run(4)
	// The routes' parents and backends are found on every core too
	// (topology.attacher.addRoutes).
	if !reflect.DeepEqual(one.Graph.Nodes, every.Graph.Nodes) || !reflect.DeepEqual(one.Graph.Problems, every.Graph.Problems) {
		t.Fatal("the graph on one core and on every core differ")
	}
	if !reflect.DeepEqual(one.Outcome, every.Outcome) {
		t.Fatal("status on one core and on every core differ")
	}
	if a, b := contexts(one), contexts(every); !reflect.DeepEqual(a, b) {
		t.Fatalf("effective policies on one core (%d contexts) and on every core (%d) differ", len(a), len(b))
	}
	if n := len(contexts(one)); n < 1000 {
		t.Fatalf("only %d contexts: the world is too small to share out", n)
	}
}

// context is what a context shows of itself.
type context struct {
	Path      string
	Result    any
	Standings []string
}

func contexts(res *engine.Result) []context {
	var out []context
	for _, kr := range res.Kinds {
		for _, tg := range kr.Effective.Targets {
			for _, c := range tg.Contexts {
				ctx := context{Path: fmt.Sprint(c.Path), Result: c.Result}
				for _, e := range c.Entries {
					st, others, lost := c.Standing(e.Policy())
					ctx.Standings = append(ctx.Standings, fmt.Sprint(e.Policy().ID(), st, others, lost, c.Contributes(e.Policy())))
				}
				out = append(out, ctx)
			}
		}
	}
	return out
}
