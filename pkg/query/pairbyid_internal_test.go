package query

import (
	"fmt"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/policykind"
)

// TestPairByIDIsPairContexts checks that pairing two runs' contexts by
// node ids gives pairContexts' pairs, in its order, for the deletion of
// every policy of two synthetic worlds, for the addition of a copy of
// each in a namespace the world lacks, so that the run after it has an
// extended graph (topology.Graph.Extend), and of a copy of each on one
// route; and that compareKind, which diffs each pair of folds once,
// finds the changes a diff of every pair finds. In the second world
// a few Services back every route, so that targets have hundreds of
// contexts and pairByID indexes them.
func TestPairByIDIsPairContexts(t *testing.T) {
	for _, sz := range []synth.Sizes{
		{Namespaces: 4, Gateways: 8, Routes: 120, Services: 120, Policies: 60},
		{Namespaces: 3, Gateways: 6, Routes: 200, Services: 3, Policies: 30},
	} {
		res, err := engine.Run(synth.Generate(sz, 5), engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		widest, extended := 0, 0
		for _, p := range res.Policies {
			// A copy of p in a namespace of its own: the graph after
			// it gets that namespace's node.
			added := p.Object.DeepCopy()
			added.SetNamespace("brand-new")
			// A copy of p on one route of its namespace: the route's
			// contexts change, and those of routes beside it with the
			// same stacks before do not.
			onOne := p.Object.DeepCopy()
			onOne.SetName(p.Name + "-on-one")
			if err := unstructured.SetNestedSlice(onOne.Object, []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "name": routeIn(res, p.Namespace)}}, "spec", "targetRefs"); err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				old *policykind.Policy
				u   *unstructured.Unstructured
			}{{p, nil}, {nil, added}, {nil, onOne}} {
				after, _, _, err := changed(res, p.Kind, c.old, c.u)
				if err != nil {
					t.Fatal(err)
				}
				if after.Graph != res.Graph {
					extended++
				}
				if !after.Graph.Holds(res.Graph) {
					t.Fatalf("%s: the graph after does not hold the graph before", p.ID())
				}
				qb, qa := newQuery(res), newQuery(after)
				b, a := res.Of(p.Kind.Key()).Effective, after.Of(p.Kind.Key()).Effective
				want, _ := pairContexts(qb, qa, b, a)
				got := pairByID(qa, b, a)
				if g, w := pairsText(got), pairsText(want); g != w {
					t.Fatalf("%s (new version %v): by ids:\n%s\nby keys:\n%s", p.ID(), c.u != nil, g, w)
				}
				// compareKind, which diffs each pair of folds once,
				// against a diff of every pair.
				var ref []ContextChange
				k := p.Kind
				for _, p := range want {
					if f := diff(sideValue(qb, qa, k, p.b, p.a), sideValue(qa, qb, k, p.a, p.b)); len(f) > 0 {
						ref = append(ref, ContextChange{Path: qa.path(p.path()), Fields: f})
					}
				}
				var all []ContextChange
				for _, tc := range compareKind(qb, qa, p.Kind, b, a) {
					all = append(all, tc.Contexts...)
				}
				if !reflect.DeepEqual(all, ref) {
					t.Fatalf("%s (new version %v): compareKind's changes are not those of a diff of every pair", p.ID(), c.u != nil)
				}
				for _, tg := range b.Targets {
					widest = max(widest, len(tg.Contexts))
				}
			}
		}
		if extended == 0 {
			t.Fatal("no run after a change extended the graph")
		}
		if sz.Services < 10 && widest <= fewContexts {
			t.Fatalf("the widest target has %d contexts: pairByID's index is not used", widest)
		}
	}
}

// pairsText lists pairs by key and by the identity of each side.
func pairsText(ps []*ctxPair) string {
	side := func(s ctxSide) string {
		if s.ctx == nil {
			return "-"
		}
		return fmt.Sprintf("%p/%p", s.target, s.ctx)
	}
	out := ""
	for _, p := range ps {
		out += fmt.Sprintf("%s %v %s %s\n", p.tk, p.path(), side(p.b), side(p.a))
	}
	return out
}

// routeIn is the name of an HTTPRoute of namespace ns in res.
func routeIn(res *engine.Result, ns string) string {
	for _, n := range res.Graph.Nodes {
		if n.Ref.Kind == "HTTPRoute" && n.Ref.Namespace == ns && n.Ref.Section == "" {
			return n.Ref.Name
		}
	}
	return "none"
}
