package query_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-dev/strata/internal/enginetest"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/query"
)

const (
	example3 = "../../examples/gep-713/example-3"
	parable  = "../../examples/parable"
)

func run(t testing.TB, paths ...string) *engine.Result {
	t.Helper()
	return enginetest.Run(t, nil, paths...)
}

// errorAsWanted fails t unless err is the error want names (a part of its
// text), or nil when want is empty; it says whether there was an error.
func errorAsWanted(t *testing.T, err error, want string) bool {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Fatal(err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Fatalf("error %v, want %q", err, want)
	}
	return want != ""
}

func node(t *testing.T, res *engine.Result, arg, ns string) topology.NodeID {
	t.Helper()
	s, err := query.Resolve(res, arg, ns)
	if err != nil {
		t.Fatal(err)
	}
	if s.Policy != nil {
		t.Fatalf("%s: a policy, want a node", arg)
	}
	return s.Node
}

func TestResolve(t *testing.T) {
	res := run(t, parable)
	for _, c := range []struct {
		arg, ns string
		want    string // Ref.String() of the node, or "Kind ns/name" of the policy
		err     string
	}{
		{arg: "httproute/baker", ns: "baker", want: "HTTPRoute baker/baker"},
		{arg: "ROUTE/baker", ns: "baker", want: "HTTPRoute baker/baker"},
		{arg: "svc/oven", ns: "baker", want: "Service baker/oven"},
		{arg: "gw/storefront#http", ns: "infra", want: "Gateway infra/storefront#http"},
		{arg: "ns/baker", ns: "elsewhere", want: "Namespace baker"},
		{arg: "gatewayclass/cupcakes", ns: "baker", want: "GatewayClass cupcakes"},
		{arg: "retrypolicy/baker-retries", ns: "baker", want: "RetryPolicy baker/baker-retries"},
		{arg: "RetryPolicies/baker-retries", ns: "baker", want: "RetryPolicy baker/baker-retries"},
		{arg: "retrypolicy.policies.cupcakes.example/baker-retries", ns: "baker", want: "RetryPolicy baker/baker-retries"},
		{arg: "deployment/baker", ns: "baker", err: `unknown kind "deployment": want one of namespace (ns), gatewayclass (gc), gateway (gw), listenerset (lset)`},
		{arg: "httproute/baker", ns: "default", err: "HTTPRoute default/baker not found"},
		{arg: "retrypolicy/nope", ns: "baker", err: "RetryPolicy baker/nope not found"},
		{arg: "gw/storefront#https", ns: "infra", err: `Gateway infra/storefront has no listener named "https"`},
		{arg: "ns/baker#x", ns: "", err: "Namespace has no sections"},
		{arg: "httproute", ns: "baker", err: "want KIND/NAME"},
		{arg: "httproute/a/b", ns: "baker", err: "want KIND/NAME"},
		{arg: "httproute/#rule-0", ns: "baker", err: `"httproute/#rule-0": the name is empty`},
		{arg: "gateways.gateway.networking.k8s.io/storefront", ns: "infra", want: "Gateway infra/storefront"},
		{arg: "listenersets.gateway.networking.k8s.io/nope", ns: "infra", err: "ListenerSet infra/nope not found"},
		// Mistyped and in the wrong namespace: the close names of every
		// namespace, with theirs.
		{arg: "httproute/bakr", ns: "default", err: "HTTPRoute default/bakr not found; did you mean baker (in baker)?"},
		{arg: "retrypolicy/baker-retrys", ns: "default", err: "RetryPolicy default/baker-retrys not found; did you mean baker-retries (in baker)?"},
		// Close names where asked come first, alone.
		{arg: "httproute/bakr", ns: "baker", err: "HTTPRoute baker/bakr not found; did you mean baker?"},
	} {
		t.Run(c.arg, func(t *testing.T) {
			s, err := query.Resolve(res, c.arg, c.ns)
			if errorAsWanted(t, err, c.err) {
				return
			}
			got := ""
			if s.Policy != nil {
				got = s.Policy.Kind.Kind + " " + s.Policy.ID()
			} else {
				got = res.Graph.Node(s.Node).Ref.String()
			}
			if got != c.want {
				t.Errorf("got %s, want %s", got, c.want)
			}
		})
	}
}

func TestFieldPointer(t *testing.T) {
	for in, want := range map[string]string{
		"/colors/light": "/colors/light",
		"colors.light":  "/colors/light",
		"attempts":      "/attempts",
		"a~b.c/d":       "/a~0b/c~1d",
	} {
		if got, err := query.FieldPointer(in); err != nil || got != want {
			t.Errorf("FieldPointer(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := query.FieldPointer(""); err == nil {
		t.Error("empty field: want an error")
	}
}

// GEP-713 Example 3 on b2: p3's override sets light and beats p4, p4's
// dark stands; both are inherited (attached above b2).
func TestDescribeExample3(t *testing.T) {
	res := run(t, example3)
	d := query.Describe(res, node(t, res, "service/b2", "default"))
	var rel []string
	for _, p := range d.Policies {
		rel = append(rel, p.Policy.Name+":"+p.Relation+":"+p.AttachedTo[0].Name)
	}
	if want := []string{"p3:Inherited:g2", "p4:Inherited:r4"}; !slices.Equal(rel, want) {
		t.Errorf("policies %v, want %v", rel, want)
	}
	if len(d.Effective) != 1 || len(d.Effective[0].Targets) != 1 || len(d.Effective[0].Targets[0].Contexts) != 1 {
		t.Fatalf("effective: %+v", d.Effective)
	}
	ctx := d.Effective[0].Targets[0].Contexts[0]
	want := []query.FieldEffect{
		{Field: "/colors/dark", Value: "olive", SetBy: "default/p4"},
		{Field: "/colors/light", Value: "yellow", SetBy: "default/p3", Beaten: []string{"default/p4"}},
	}
	if diff := cmp.Diff(want, ctx.Fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if got := []string{ctx.Stack[0].Strategy, ctx.Stack[1].Strategy}; !slices.Equal(got, []string{"PatchOverrides", "AtomicDefaults"}) {
		t.Errorf("stack strategies %v", got)
	}
}

// Seen from a route, the Services below it are described in the contexts
// through the route; the route's own policy is Attached.
func TestDescribeThrough(t *testing.T) {
	res := run(t, example3)
	for _, c := range []struct {
		arg      string
		targets  []string
		contexts int
		rel      map[string]string
	}{
		{"httproute/r4", []string{"b2"}, 1, map[string]string{"p3": query.Inherited, "p4": query.Attached}},
		{"gateway/g1", []string{"b1"}, 2, map[string]string{"p1": query.Attached, "p2": query.Below}},
		{"ns/default", []string{"b1", "b2"}, 4, map[string]string{"p1": query.Below, "p3": query.Below}},
	} {
		t.Run(c.arg, func(t *testing.T) {
			d := query.Describe(res, node(t, res, c.arg, "default"))
			var targets []string
			n := 0
			for _, tg := range d.Effective[0].Targets {
				targets = append(targets, tg.Target.Name)
				n += len(tg.Contexts)
			}
			if !slices.Equal(targets, c.targets) || n != c.contexts {
				t.Errorf("targets %v in %d contexts, want %v in %d", targets, n, c.targets, c.contexts)
			}
			for _, p := range d.Policies {
				if want, ok := c.rel[p.Policy.Name]; ok && p.Relation != want {
					t.Errorf("%s: relation %s, want %s", p.Policy.Name, p.Relation, want)
				}
			}
		})
	}
}

// A field no policy's value survived is listed with the policies that set
// it (GEP-713 Example 3, b1 via r1: p2's atomic default drops p1's dark).
func TestDescribeDroppedField(t *testing.T) {
	res := run(t, example3)
	d := query.Describe(res, node(t, res, "httproute/r1", "default"))
	fields := d.Effective[0].Targets[0].Contexts[0].Fields
	want := []query.FieldEffect{
		{Field: "/colors/dark", Beaten: []string{"default/p1"}},
		{Field: "/colors/light", Value: "blue", SetBy: "default/p2", Beaten: []string{"default/p1"}},
	}
	if diff := cmp.Diff(want, fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
}

// The parable: Ana's route is affected by the namespace-wide RetryPolicy,
// a policy attached to her Service below the route, and its own timeout.
func TestDescribeParable(t *testing.T) {
	res := run(t, parable)
	d := query.Describe(res, node(t, res, "httproute/baker", "baker"))
	got := map[string]string{}
	for _, p := range d.Policies {
		got[p.Policy.Kind+" "+p.Policy.ID()] = p.Relation
	}
	want := map[string]string{
		"RetryPolicy baker/baker-retries":            query.Inherited,
		"TimeoutPolicy baker/baker-timeout":          query.Attached,
		"TimeoutPolicy infra/storefront-timeouts":    query.Inherited,
		"RateLimitPolicy infra/storefront-burst-cap": query.Inherited,
		"HealthCheckPolicy baker/baker-health":       query.Below,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("policies (-want +got):\n%s", diff)
	}
}

// A policy on a Namespace acts on the objects in it. Seen from the
// parable's Gateway, in infra, baker's RetryPolicy is on the Namespace of
// routes below it (Below), and a RetryPolicy on infra is on the Gateway's
// own Namespace (Inherited); seen from baker's route and Service, both
// are inherited: the route is in baker, the Gateway above it in infra.
// (RetryPolicy's effective targets are routes: a Service has none.)
func TestDescribeNamespacePolicy(t *testing.T) {
	infra := filepath.Join(t.TempDir(), "infra-retries.yaml")
	if err := os.WriteFile(infra, []byte(`apiVersion: policies.cupcakes.example/v1
kind: RetryPolicy
metadata: {name: infra-retries, namespace: infra}
spec:
  targetRefs: [{group: "", kind: Namespace, name: infra}]
  defaults: {backoff: 2s}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	res := run(t, parable, infra)
	for _, c := range []struct {
		arg, ns string
		want    map[string]string
	}{
		{"gateway/storefront", "infra", map[string]string{"baker-retries": query.Below, "icing-retries": query.Below, "infra-retries": query.Inherited}},
		{"httproute/baker", "baker", map[string]string{"baker-retries": query.Inherited, "infra-retries": query.Inherited}},
		// A Namespace inherits the Namespaces of the objects above its own.
		{"ns/baker", "", map[string]string{"baker-retries": query.Attached, "infra-retries": query.Inherited}},
		{"ns/infra", "", map[string]string{"baker-retries": query.Below, "icing-retries": query.Below, "infra-retries": query.Attached}},
	} {
		t.Run(c.arg, func(t *testing.T) {
			got := map[string]string{}
			for _, p := range query.Describe(res, node(t, res, c.arg, c.ns)).Policies {
				if p.Policy.Kind == "RetryPolicy" {
					got[p.Policy.Name] = p.Relation
				}
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("RetryPolicy relations (-want +got):\n%s", d)
			}
		})
	}
}

func TestExplain(t *testing.T) {
	res := run(t, example3, parable)
	for _, c := range []struct {
		name, arg, ns, field string
		setBy                []string
		outcomes             []string // source:outcome per candidate
		err                  string
	}{
		{name: "override wins", arg: "service/b2", ns: "default", field: "/colors/light",
			setBy: []string{"default/p3"}, outcomes: []string{"default/p3:Wins", "default/p4:Beaten"}},
		{name: "not overridden", arg: "service/b2", ns: "default", field: "colors.dark",
			setBy: []string{"default/p4"}, outcomes: []string{"default/p3:NotSet", "default/p4:Wins"}},
		{name: "object field", arg: "service/b2", ns: "default", field: "/colors",
			setBy: []string{"default/p3", "default/p4"}, outcomes: []string{"default/p3:Wins", "default/p4:Wins"}},
		{name: "target's own value", arg: "httproute/icing", ns: "frosting", field: "/attempts",
			setBy: []string{"(target)"}, outcomes: []string{"frosting/icing-retries:Beaten", "(target):Wins"}},
		{name: "namespace default", arg: "httproute/baker", ns: "baker", field: "/codes",
			setBy: []string{"baker/baker-retries"}, outcomes: []string{"baker/baker-retries:Wins", "(target):NotSet"}},
		{name: "unknown field", arg: "service/b2", ns: "default", field: "/nope",
			err: "field /nope is not set on Service default/b2 by any policy (fields in force: /colors/dark, /colors/light)"},
		{name: "nothing reaches", arg: "service/stencil", ns: "frosting", field: "/x", err: "no policy reaches Service frosting/stencil"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ptr, _ := query.FieldPointer(c.field)
			x, err := query.Explain(res, node(t, res, c.arg, c.ns), ptr, nil)
			if errorAsWanted(t, err, c.err) {
				return
			}
			ch := x.Chains[0]
			var outcomes []string
			for _, cd := range ch.Candidates {
				outcomes = append(outcomes, cd.Source+":"+cd.Outcome)
			}
			if !slices.Equal(ch.SetBy, c.setBy) || !slices.Equal(outcomes, c.outcomes) {
				t.Errorf("setBy %v, candidates %v; want %v, %v", ch.SetBy, outcomes, c.setBy, c.outcomes)
			}
		})
	}
}

// Chihiro's question: how many things does the namespace RetryPolicy
// affect? And the listing's status roll-up.
func TestPolicies(t *testing.T) {
	res := run(t, parable)
	all := query.Policies(res, query.Filter{AllNamespaces: true})
	baker := query.Policies(res, query.Filter{Namespace: "baker"})
	if len(all.Items) != 54 || len(baker.Items) != 47 {
		t.Errorf("%d policies in all, %d in baker; want 54 and 47", len(all.Items), len(baker.Items))
	}
	byName := map[string]query.PolicySummary{}
	for _, p := range all.Items {
		byName[p.ID()] = p
	}
	for _, c := range []struct {
		id      string
		status  query.StatusSummary
		affects query.Count
	}{
		{"baker/baker-retries", query.StatusSummary{Accepted: "True", Enforcement: "Enforced"}, query.Count{Targets: 42, Contexts: 42}},
		{"infra/storefront-burst-cap", query.StatusSummary{Accepted: "True", Enforcement: "Enforced"}, query.Count{Targets: 48, Contexts: 48}},
		{"baker/pantry-ratelimit", query.StatusSummary{Accepted: "True", Enforcement: "PartiallyEnforced"}, query.Count{Targets: 1, Contexts: 1}},
		{"frosting/tint-health-v2", query.StatusSummary{Accepted: "False", Reasons: []string{"Conflicted"}}, query.Count{}},
		{"frosting/sprinkle-timeout", query.StatusSummary{Accepted: "False", Reasons: []string{"TargetNotFound"}}, query.Count{}},
	} {
		p, ok := byName[c.id]
		if !ok {
			t.Errorf("%s not listed", c.id)
			continue
		}
		if diff := cmp.Diff(c.status, p.Status); diff != "" {
			t.Errorf("%s status (-want +got):\n%s", c.id, diff)
		}
		if p.Affects != c.affects {
			t.Errorf("%s affects %+v, want %+v", c.id, p.Affects, c.affects)
		}
	}
	one := query.Policies(res, query.Filter{AllNamespaces: true, Kind: res.KindOf("policies.cupcakes.example", "RetryPolicy")})
	if len(one.Items) != 2 {
		t.Errorf("RetryPolicies: %d, want 2", len(one.Items))
	}
}

func TestDescribePolicy(t *testing.T) {
	res := run(t, parable)
	s, err := query.Resolve(res, "retrypolicy/baker-retries", "baker")
	if err != nil {
		t.Fatal(err)
	}
	d := query.DescribePolicy(res, s.Policy)
	if len(d.Reaches) != 42 || d.Policy.Created != "2025-11-18T16:42:00Z" || len(d.AttachedTo) != 1 || d.AttachedTo[0].Name != "baker" {
		t.Errorf("reaches %d, created %s, attached to %v", len(d.Reaches), d.Policy.Created, d.AttachedTo)
	}
}

func TestImpact(t *testing.T) {
	res := run(t, example3)
	find := func(name string) *query.Subject {
		s, err := query.Resolve(res, "colorpolicy/"+name, "default")
		if err != nil {
			t.Fatal(err)
		}
		return &s
	}
	p3 := find("p3").Policy
	after, err := query.Without(res, p3)
	if err != nil {
		t.Fatal(err)
	}
	im := query.Compare(res, after, query.PolicyRef{Kind: "ColorPolicy", Namespace: "default", Name: "p3"}, query.ChangeDelete)
	// Without p3: b1 via r3 loses its only policy, b2 via r4 gets p4's
	// green back.
	want := []query.FieldChange{
		{Field: "/colors/light", Before: "yellow", BeforeSetBy: "default/p3"},
		{Field: "/colors/light", Before: "yellow", BeforeSetBy: "default/p3", After: "green", AfterSetBy: "default/p4"},
	}
	var got []query.FieldChange
	for _, tc := range im.Targets {
		for _, c := range tc.Contexts {
			got = append(got, c.Fields...)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" || im.Changed != (query.Count{Targets: 2, Contexts: 2}) {
		t.Errorf("changed %+v; fields (-want +got):\n%s", im.Changed, diff)
	}

	// Replacing p1 by a version that only sets dark: b1 via r2 loses
	// light and keeps dark; via r1 p2's atomic default still replaces p1
	// whole, so nothing changes there.
	v2 := p1v2("default")
	after, err = query.Replacing(res, find("p1").Policy, v2)
	if err != nil {
		t.Fatal(err)
	}
	im = query.Compare(res, after, query.PolicyRef{Kind: "ColorPolicy", Namespace: "default", Name: "p1"}, query.ChangeReplace)
	if im.Changed != (query.Count{Targets: 1, Contexts: 1}) || !cmp.Equal(im.Targets[0].Contexts[0].Fields, []query.FieldChange{{Field: "/colors/light", Before: "red", BeforeSetBy: "default/p1"}}) {
		t.Errorf("replace: %+v", im)
	}

	for _, c := range []struct {
		name string
		obj  *unstructured.Unstructured
		err  string
	}{
		{"other name", rename(p1v2("default"), "p9"), "want the new version of ColorPolicy default/p1"},
		{"other namespace", p1v2("elsewhere"), "want the new version of ColorPolicy default/p1"},
		{"other kind", kind(p1v2(""), "SizePolicy"), "want a ColorPolicy"},
	} {
		if _, err := query.Replacing(res, find("p1").Policy, c.obj); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.err)
		}
	}
}

func p1v2(ns string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "policies.controller.io/v1",
		"kind":       "ColorPolicy",
		"metadata":   map[string]any{"name": "p1", "creationTimestamp": "2026-01-02T00:00:00Z"},
		"spec": map[string]any{
			"targetRefs": []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "g1"}},
			"colors":     map[string]any{"dark": "brown"},
		},
	}}
	if ns != "" {
		u.SetNamespace(ns)
	}
	return u
}

func rename(u *unstructured.Unstructured, name string) *unstructured.Unstructured {
	u.SetName(name)
	return u
}

func kind(u *unstructured.Unstructured, k string) *unstructured.Unstructured {
	u.SetKind(k)
	return u
}

// The diagram is a function of the input: same input, same identifiers
// and edges, whatever the order of the documents.
func TestMapDeterministic(t *testing.T) {
	a := query.Map(run(t, example3+"/kind.yaml", example3+"/scenario.yaml"))
	b := query.Map(run(t, example3+"/scenario.yaml", example3+"/kind.yaml"))
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("diagram depends on input order (-a +b):\n%s", diff)
	}
	if len(a.Clusters) != 1 || a.Clusters[0].Namespace != "default" || len(a.PolicyEdges) != 4 {
		t.Errorf("clusters %d, policy edges %d", len(a.Clusters), len(a.PolicyEdges))
	}
}
