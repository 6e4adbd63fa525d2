package engine_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// RunScoped computes the effective targets in its scope exactly as Run
// does (same contexts, stacks and results), leaves the others out and
// computes no outcome; with a nil scope it is Run.
func TestRunScoped(t *testing.T) {
	s := synth.Generate(synth.Sizes{Namespaces: 4, Gateways: 8, Routes: 120, Services: 120, Policies: 120}, 5)
	full, err := engine.Run(s, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}

	t.Run("nil scope is Run", func(t *testing.T) {
		res, err := engine.RunScoped(s, engine.Options{}, func(*engine.Result) []topology.NodeID { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if res.Scope != nil || res.Outcome == nil || len(res.Outcome.Policies) != len(full.Outcome.Policies) || res.Outcome.NumTargets() != full.Outcome.NumTargets() {
			t.Errorf("scope %v, outcome %v: want the complete result", res.Scope, res.Outcome != nil)
		}
		for i := range full.Kinds {
			if got, want := dumpTargets(res, i, nil), dumpTargets(full, i, nil); got != want {
				t.Errorf("%s differs:\n%s", full.Kinds[i].Kind.Kind, cmp.Diff(want, got))
			}
		}
	})

	// Every tenth Service with its ports, and every route below the first
	// Gateway.
	var scope []topology.NodeID
	for i, id := range full.Graph.ByKind(hierarchy.ServiceKind) {
		if i%10 == 0 {
			scope = append(scope, id)
			for _, sec := range full.Graph.Node(id).Sections {
				scope = append(scope, sec.Node)
			}
		}
	}
	slices.Sort(scope)
	in := func(n topology.NodeID) bool { return slices.Contains(scope, n) }
	res, err := engine.RunScoped(s, engine.Options{}, func(r *engine.Result) []topology.NodeID {
		if len(r.Policies) != len(full.Policies) || len(r.Graph.Nodes) != len(full.Graph.Nodes) {
			t.Errorf("scope called with %d policies and %d nodes, want %d and %d", len(r.Policies), len(r.Graph.Nodes), len(full.Policies), len(full.Graph.Nodes))
		}
		return scope
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != nil || !slices.Equal(res.Scope, scope) {
		t.Errorf("outcome %v, scope %v: want no outcome and the scope", res.Outcome != nil, res.Scope)
	}
	reached := 0
	for i := range full.Kinds {
		got, want := dumpTargets(res, i, nil), dumpTargets(full, i, in)
		if got != want {
			t.Errorf("%s differs (-Run +RunScoped):\n%s", full.Kinds[i].Kind.Kind, cmp.Diff(want, got))
		}
		reached += len(res.Kinds[i].Effective.Targets)
		if d := cmp.Diff(len(full.Kinds[i].Attachments.ByNode), len(res.Kinds[i].Attachments.ByNode)); d != "" {
			t.Errorf("attachments differ: %s", d)
		}
	}
	if reached == 0 {
		t.Error("no target in scope has a policy: the test compares nothing")
	}
	if _, err := res.Recompute(s.Policies, nil); err == nil {
		t.Error("Recompute of a scoped result: want an error")
	}
}

// dumpTargets prints the effective targets of kind i (those in, if not
// nil): every context's path, stack and result, with nodes by locator.
func dumpTargets(res *engine.Result, i int, in func(topology.NodeID) bool) string {
	g := res.Graph
	var b strings.Builder
	for _, tg := range res.Kinds[i].Effective.Targets {
		if in != nil && !in(tg.Node) {
			continue
		}
		fmt.Fprintf(&b, "%s\n", g.Node(tg.Node).Ref.Key())
		for _, ctx := range tg.Contexts {
			for _, n := range ctx.Path {
				fmt.Fprintf(&b, " > %s", g.Node(n).Ref.Key())
			}
			b.WriteString("\n")
			for _, e := range ctx.Entries {
				st, others, lost := ctx.Standing(e.Policy())
				fmt.Fprintf(&b, "  %s at %s level %d %s/%s: %s %v %v\n", e.Policy().ID(), g.Node(e.Attachment.Node).Ref.Key(), e.Level, e.Block.Field, e.Block.Strategy, st, others, lost)
			}
			prov := map[string]string{}
			for ptr, p := range ctx.Result.Prov {
				prov[ptr] = "(target)"
				if p != nil {
					prov[ptr] = p.ID()
				}
			}
			fmt.Fprintf(&b, "  = %v %v conflicted %d\n", ctx.Result.Values, prov, len(ctx.Conflicted))
		}
	}
	return b.String()
}

// A scoped result is recomputed within its scope exactly as the complete
// result is there, and a new scope reaching outside it is refused: the
// other kinds' results it would reuse are missing there.
func TestRecomputeScopedWithin(t *testing.T) {
	s := synth.Generate(synth.Sizes{Namespaces: 4, Gateways: 8, Routes: 120, Services: 120, Policies: 120}, 5)
	full, err := engine.Run(s, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	services := full.Graph.ByKind(hierarchy.ServiceKind)
	half := services[:len(services)/2]
	scoped, err := engine.RunScoped(s, engine.Options{}, func(*engine.Result) []topology.NodeID { return half })
	if err != nil {
		t.Fatal(err)
	}
	k := full.Kinds[0].Kind.Key()
	dirty := map[schema.GroupKind]bool{k: true}
	var objs []*unstructured.Unstructured
	for _, p := range full.Policies[1:] { // the first policy deleted
		if p.Kind.Key() == k {
			objs = append(objs, p.Object)
		}
	}
	quarter := func(*engine.Result) []topology.NodeID { return half[:len(half)/2] }
	a, err := full.RecomputeScoped(objs, dirty, quarter)
	if err != nil {
		t.Fatal(err)
	}
	b, err := scoped.RecomputeScoped(objs, dirty, quarter)
	if err != nil {
		t.Fatal(err)
	}
	// The other kinds are reused as they are: compared in the new scope.
	in := map[topology.NodeID]bool{}
	for _, n := range quarter(nil) {
		in[n] = true
	}
	for i := range full.Kinds {
		got, want := dumpTargets(b, i, func(n topology.NodeID) bool { return in[n] }), dumpTargets(a, i, func(n topology.NodeID) bool { return in[n] })
		if got != want || want == "" {
			t.Errorf("%s differs:\n%s", full.Kinds[i].Kind.Kind, cmp.Diff(want, got))
		}
	}
	if _, err := scoped.RecomputeScoped(objs, dirty, func(*engine.Result) []topology.NodeID { return services }); err == nil || !strings.Contains(err.Error(), "outside its scope") {
		t.Errorf("a scope outside the result's: error %v", err)
	}
	if _, err := scoped.RecomputeScoped(objs, dirty, nil); err == nil {
		t.Error("a scoped result recomputed everywhere: no error")
	}
}
