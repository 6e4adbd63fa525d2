package engine_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/policykind/builtin"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/sink/effectivepolicy"
	"github.com/strata-dev/strata/pkg/sink/status"
	"github.com/strata-dev/strata/pkg/source/files"
)

// The parable, plus a kind that targets a virtual kind (GEP-713
// "Targeting virtual types"), so that a Recompute can need nodes the
// previous result's graph lacks.
const frozenExtra = `apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: dnspolicies.example.io}
spec:
  group: example.io
  kind: DNSPolicy
  managed: true
  targetKinds: [{group: dns.example.com, kind: FQDN}]
---
apiVersion: example.io/v1
kind: DNSPolicy
metadata: {name: api, namespace: baker, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  targetRefs: [{group: dns.example.com, kind: FQDN, name: api}]
  ttl: 30`

// frozenWorld runs the engine on the parable and frozenExtra, and returns
// what Recompute is given in the test: DNSPolicies that need a new
// namespace and a new virtual node (the graph must be extended), and
// TimeoutPolicies changed in place (the graph can be shared).
func frozenWorld(t *testing.T) (res, scoped *engine.Result, dns, timeouts []*unstructured.Unstructured) {
	t.Helper()
	src, err := files.Read([]string{"../../examples/parable", "-"}, strings.NewReader(frozenExtra))
	if err != nil {
		t.Fatal(err)
	}
	res, err = engine.Run(src.Snapshot, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// describe httproute/baker -n baker, as the CLI runs it: no outcome
	// was computed, so no standing was asked for before the readers ask.
	baker := topology.Ref{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Namespace: "baker", Name: "baker"}
	scoped, err = engine.RunScoped(src.Snapshot, engine.Options{}, func(r *engine.Result) []topology.NodeID {
		return query.Scope(r, r.Graph.Lookup(baker))
	})
	if err != nil || scoped.Scope == nil {
		t.Fatalf("RunScoped: %v, scope %v", err, scoped.Scope)
	}
	for _, p := range src.Snapshot.Policies {
		switch p.GetKind() {
		case "DNSPolicy":
			dns = append(dns, p.DeepCopy())
		case "TimeoutPolicy":
			c := p.DeepCopy()
			_ = unstructured.SetNestedField(c.Object, map[string]any{"request": "1s"}, "spec", "overrides")
			timeouts = append(timeouts, c)
		}
	}
	elsewhere := dns[0].DeepCopy()
	elsewhere.SetNamespace("elsewhere")
	elsewhere.SetName("web")
	_ = unstructured.SetNestedSlice(elsewhere.Object, []any{map[string]any{"group": "dns.example.com", "kind": "FQDN", "name": "web"}}, "spec", "targetRefs")
	dns = append(dns, elsewhere)
	return res, scoped, dns, timeouts
}

var (
	dnsKind     = schema.GroupKind{Group: "example.io", Kind: "DNSPolicy"}
	timeoutKind = schema.GroupKind{Group: "policies.cupcakes.example", Kind: "TimeoutPolicy"}
)

// readAll reads a result through every exported read path: the graph, each
// kind's effective policy in every context with every policy's standing,
// the status and EffectivePolicy objects, and the CLI's questions (package
// query) about every node and every policy; of a RunScoped result, what it
// holds: its effective policies and the questions about its scope. It
// returns what it read as text, to compare.
func readAll(t *testing.T, res *engine.Result) string {
	var b strings.Builder
	js := func(v any) {
		out, err := json.Marshal(v)
		if err != nil {
			t.Error(err)
		}
		b.Write(out)
		b.WriteByte('\n')
	}
	g := res.Graph
	for id, n := range g.Nodes {
		fmt.Fprintf(&b, "%d %s level=%d virtual=%t ns=%d parents=%v children=%v sections=%v ambiguous=%v\n",
			id, n.Ref.Key(), n.Level, n.Virtual, n.Namespace, n.Parents, n.Children, n.Sections, n.Ambiguous)
		if id := g.Lookup(n.Ref); id == topology.None {
			t.Errorf("%s: not found by Lookup", n.Ref)
		}
	}
	js(g.Problems)
	for i, kr := range res.Kinds {
		fmt.Fprintf(&b, "kind %s shares %d\n", kr.Kind.Key(), res.SharedWith(i))
		for _, tg := range kr.Effective.Targets {
			for _, ctx := range tg.Contexts {
				fmt.Fprintf(&b, "%d %v ", tg.Node, ctx.Path)
				js(ctx.Result.Values)
				for _, e := range ctx.Entries {
					st, others, lost := ctx.Standing(e.Policy())
					fmt.Fprintf(&b, "  %s %s %v %v contributes=%t\n", e.Policy().ID(), st, others, lost, ctx.Contributes(e.Policy()))
				}
				// Policies not in the stack are classified too.
				for _, p := range res.Policies {
					st, others, lost := ctx.Standing(p)
					fmt.Fprintf(&b, "  %s %s %v %v\n", p.ID(), st, others, lost)
				}
			}
		}
	}
	if res.Scope != nil {
		for _, n := range res.Scope {
			js(query.Describe(res, n))
			ex, err := query.Explain(res, n, "/attempts", nil)
			fmt.Fprintf(&b, "%v ", err)
			js(ex)
		}
		return b.String()
	}
	now := metav1.NewTime(time.Unix(0, 0))
	js(objects(status.Policies(res, now)))
	js(objects(status.Targets(res, now)))
	js(effectivepolicy.Build(res))
	js(query.Policies(res, query.Filter{AllNamespaces: true}))
	js(query.Map(res))
	for id := range g.Nodes {
		js(query.Describe(res, topology.NodeID(id)))
		ex, err := query.Explain(res, topology.NodeID(id), "/request", nil)
		fmt.Fprintf(&b, "%v ", err)
		js(ex)
	}
	for _, p := range res.Policies {
		js(query.DescribePolicy(res, p))
	}
	return b.String()
}

// TestResultConcurrentReads: a Result is frozen once built (issue 12 §3),
// so many goroutines read it at once, while Recompute derives new results
// from it (sharing its graph, or extending a copy), and every reader sees
// what a single reader saw before. Run with -race (.ci/run does).
func TestResultConcurrentReads(t *testing.T) {
	res, scoped, dns, timeouts := frozenWorld(t)
	const readers = 4
	results := []*engine.Result{res, scoped}
	// The first read of each result is concurrent: nothing read it before.
	reads := make([][readers]string, len(results))
	var wg sync.WaitGroup
	for i, r := range results {
		for j := range readers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				reads[i][j] = readAll(t, r)
			}()
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 2 {
			extended, err := res.Recompute(dns, map[schema.GroupKind]bool{dnsKind: true})
			if err != nil {
				t.Error(err)
				return
			}
			shared, err := res.Recompute(timeouts, map[schema.GroupKind]bool{timeoutKind: true})
			if err != nil {
				t.Error(err)
				return
			}
			// A result derived from a derived one, read meanwhile.
			again, err := extended.Recompute(timeouts, map[schema.GroupKind]bool{timeoutKind: true})
			if err != nil {
				t.Error(err)
				return
			}
			_ = readAll(t, again)
			_ = readAll(t, shared)
		}
	}()
	wg.Wait()
	// Read alone, after the readers and the recomputations, each result
	// says what every concurrent reader read.
	for i, r := range results {
		want := readAll(t, r)
		for j, got := range reads[i] {
			if got != want {
				t.Errorf("result %d, reader %d: a concurrent read differs from a read alone", i, j)
			}
		}
	}
}

// TestRecomputeLeavesResult: a Recompute never changes the result it
// derives from. New policies that need new nodes (a namespace, a virtual
// target) get a new graph, holding the old nodes at the same ids; changes
// that need none share the old graph.
func TestRecomputeLeavesResult(t *testing.T) {
	res, _, dns, timeouts := frozenWorld(t)
	now := metav1.NewTime(time.Unix(0, 0))
	statusOf := func(r *engine.Result) string {
		out, err := json.Marshal([]any{objects(status.Policies(r, now)), objects(status.Targets(r, now)), effectivepolicy.Build(r)})
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	before, beforeStatus, nodes := readAll(t, res), statusOf(res), len(res.Graph.Nodes)

	extended, err := res.Recompute(dns, map[schema.GroupKind]bool{dnsKind: true})
	if err != nil {
		t.Fatal(err)
	}
	if extended.Graph == res.Graph || len(res.Graph.Nodes) != nodes {
		t.Fatalf("the new policies need new nodes: want a new graph, the old one unchanged (%d nodes, was %d)", len(res.Graph.Nodes), nodes)
	}
	web := topology.Ref{Group: "dns.example.com", Kind: "FQDN", Namespace: "elsewhere", Name: "web"}
	if res.Graph.Lookup(web) != topology.None || extended.Graph.Lookup(web) == topology.None {
		t.Errorf("virtual node %s: in the old graph %t, in the new one %t", web, res.Graph.Lookup(web) != topology.None, extended.Graph.Lookup(web) != topology.None)
	}
	for id := range res.Graph.Nodes {
		if o, n := res.Graph.Nodes[id].Ref, extended.Graph.Nodes[id].Ref; o != n {
			t.Errorf("node %d: %s in the old graph, %s in the new one", id, o, n)
		}
	}
	shared, err := res.Recompute(timeouts, map[schema.GroupKind]bool{timeoutKind: true})
	if err != nil {
		t.Fatal(err)
	}
	if shared.Graph != res.Graph {
		t.Errorf("changed TimeoutPolicies need no new node, yet the graph was not shared")
	}
	if statusOf(shared) == beforeStatus {
		t.Errorf("the TimeoutPolicy change changed no status: the test compares nothing")
	}
	if got := readAll(t, res); got != before {
		t.Errorf("Recompute changed the result it derives from")
	}
	if got := statusOf(res); got != beforeStatus {
		t.Errorf("Recompute changed the status of the result it derives from")
	}
}

// TestRunLeavesPolicies checks that nothing Strata computes from a
// snapshot writes its policy objects, whose specs the policies' blocks
// share (policykind.Kind.SpecOf): the run, a recompute, the status and
// the effective policies of the parable, the child-merge example (merges
// into parents), the examples of GEP-713 and a synthetic world leave
// every policy as it was.
func TestRunLeavesPolicies(t *testing.T) {
	now := metav1.NewTime(time.Unix(0, 0))
	for _, dir := range []string{"../../examples/parable", "../../examples/childmerge", "../../examples/gep-713/example-3", "../../examples/gep-713/listenerset", "../../examples/gep-713/mesh"} {
		t.Run(dir, func(t *testing.T) {
			src, err := files.Read([]string{dir}, nil)
			if err != nil {
				t.Fatal(err)
			}
			before := make([]*unstructured.Unstructured, len(src.Snapshot.Policies))
			for i, u := range src.Snapshot.Policies {
				before[i] = u.DeepCopy()
			}
			cat, err := builtin.Catalogue()
			if err != nil {
				t.Fatal(err)
			}
			res, err := engine.Run(src.Snapshot, engine.Options{Catalogue: cat})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := json.Marshal([]any{objects(status.Policies(res, now)), objects(status.Targets(res, now)), effectivepolicy.Build(res)}); err != nil {
				t.Fatal(err)
			}
			kinds := map[schema.GroupKind]bool{}
			for _, p := range res.Policies {
				kinds[p.Kind.Key()] = true
			}
			if _, err := res.Recompute(src.Snapshot.Policies, kinds); err != nil {
				t.Fatal(err)
			}
			for i, u := range src.Snapshot.Policies {
				if !equality.Semantic.DeepEqual(before[i].Object, u.Object) {
					t.Errorf("%s %s/%s changed:\nbefore %v\nafter  %v", u.GetKind(), u.GetNamespace(), u.GetName(), before[i].Object, u.Object)
				}
			}
			if len(before) == 0 {
				t.Fatal("no policies")
			}
		})
	}
}
