package engine_test

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/merge"
	"github.com/strata-dev/strata/pkg/source/files"
)

// TestRunOnEveryCore checks that a run with several workers, where the
// object graph is built while the policies are read and the policy kinds
// are computed at once (computeAll), answers exactly what a run with one
// worker answers (Options.Workers): every policy's and target's status,
// and every context's effective spec, provenance and standings, on a
// world of some thousands of targets and two kinds. Under -race it also checks that the workers
// and the kinds share nothing they write.
func TestRunOnEveryCore(t *testing.T) {
	s := synth.Generate(synth.Sizes{Namespaces: 6, Gateways: 12, Routes: 1500, Services: 1500, Policies: 600}, 3)
	run := func(procs int) *engine.Result {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		res, err := engine.Run(s, engine.Options{Workers: procs})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	one, every := run(1), run(4)
	if !reflect.DeepEqual(one.Graph.Nodes, every.Graph.Nodes) || !reflect.DeepEqual(one.Graph.Problems, every.Graph.Problems) {
		t.Fatal("the graph on one core and on every core differ")
	}
	if !reflect.DeepEqual(one.Outcome, every.Outcome) {
		t.Fatal("status on one core and on every core differ")
	}
	if a, b := contexts(one), contexts(every); !reflect.DeepEqual(a, b) {
		t.Fatalf("effective policies on one core (%d contexts) and on every core (%d) differ", len(a), len(b))
	}
	if n := len(one.Kinds); n < 2 {
		t.Fatalf("only %d policy kinds: the test needs kinds computed at once", n)
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

// TestKindPanicReachesTheCaller: the kinds are computed on goroutines of
// their own (computeAll), yet a panic while one is computed is raised
// where Run was called, as when they were computed in turn, so that a
// caller that recovers (controller-runtime's reconciler) still does. On
// one core the merge function runs on the kind's goroutine, which is
// where it panics here.
func TestKindPanicReachesTheCaller(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	boom := strings.Replace(kind("Service", `  strategies:
    supported: [AtomicDefaults, BoomDefaults]
    custom: [{name: Boom, function: boom}]`), "name: tests", "name: boom", 1)
	other := strings.NewReplacer("name: tests", "name: other", "kind: TestPolicy", "kind: OtherPolicy").Replace(kind("Service", ""))
	src, err := files.Read([]string{"-"}, strings.NewReader(strings.Join([]string{topo, boom, other,
		policy("infra", "gw", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n  strategy: boom\n  a: 1"),
		policy("web", "route", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}\n  a: 2"),
		strings.Replace(policy("web", "other", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}\n  b: 1"), "kind: TestPolicy", "kind: OtherPolicy", 1),
	}, "\n---\n")))
	if err != nil {
		t.Fatal(err)
	}
	registry := merge.DefaultRegistry()
	registry["boom"] = func(map[string]string) (merge.Func, error) {
		return func(_, _ merge.Value) merge.Value { panic("boom merged") }, nil
	}
	defer func() {
		if p := recover(); p != "boom merged" {
			t.Fatalf("recovered %v, want the merge function's panic", p)
		}
	}()
	res, err := engine.Run(src.Snapshot, engine.Options{Registry: registry})
	t.Fatalf("Run returned (%d kinds, %v), want its panic", len(res.Kinds), err)
}
