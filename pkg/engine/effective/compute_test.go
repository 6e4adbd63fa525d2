package effective_test

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/strata-dev/strata/internal/enginetest"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/merge"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// world is a small topology: route web (namespace web, rule main, a
// request timeout of its own) attached to two Gateways, gw in infra and
// edge in edge, both of GatewayClass shared.
const world = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: shared}
spec: {controllerName: example.com/gw}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: shared
  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: edge, namespace: edge}
spec:
  gatewayClassName: shared
  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: web}
spec:
  parentRefs: [{name: gw, namespace: infra}, {name: edge, namespace: edge}]
  rules:
  - name: main
    timeouts: {request: 7s}
    backendRefs: [{name: svc, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: other, namespace: web}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: web}
spec: {ports: [{name: http, port: 80}]}
`

// kindDecl declares TestPolicy, effective on HTTPRoutes, with the given
// extra lines of spec.
func kindDecl(extra string) string {
	return `apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: tests}
spec:
  group: example.io
  kind: TestPolicy
  targetKinds:
  - {group: "", kind: Namespace}
  - {group: gateway.networking.k8s.io, kind: GatewayClass}
  - {group: gateway.networking.k8s.io, kind: Gateway}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute}
  effectiveTargetKinds:
  - {group: gateway.networking.k8s.io, kind: Gateway}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute}
  strategies: {supported: [PatchDefaults, PatchOverrides, AtomicDefaults], default: PatchDefaults}
` + extra
}

func testPolicy(ns, name, day, target, spec string) string {
	return fmt.Sprintf(`apiVersion: example.io/v1
kind: TestPolicy
metadata: {name: %s, namespace: %s, creationTimestamp: "2026-01-%sT00:00:00Z"}
spec:
  targetRef: %s
%s`, name, ns, day, target, spec)
}

const (
	toNS    = `{group: "", kind: Namespace, name: %s}`
	toGW    = `{group: gateway.networking.k8s.io, kind: Gateway, name: %s}`
	toRoute = `{group: gateway.networking.k8s.io, kind: HTTPRoute, name: %s}`
)

// policies of every test below: a default on each Namespace and Gateway,
// an override on gw, a default on route web.
func policies() []string {
	return []string{
		testPolicy("web", "ns-web", "01", fmt.Sprintf(toNS, "web"), "  defaults: {a: ns-web, b: ns-web}"),
		testPolicy("infra", "ns-infra", "01", fmt.Sprintf(toNS, "infra"), "  defaults: {a: ns-infra, c: ns-infra}"),
		testPolicy("infra", "gw", "02", fmt.Sprintf(toGW, "gw"), "  overrides: {b: gw}"),
		testPolicy("edge", "edge", "02", fmt.Sprintf(toGW, "edge"), "  defaults: {c: edge}"),
		testPolicy("web", "route", "03", fmt.Sprintf(toRoute, "web"), "  defaults: {a: route}"),
	}
}

// compute runs the engine on docs for its graph and attachments, then
// calls effective.ComputeOnly itself.
func compute(t *testing.T, in func(topology.NodeID) bool, docs ...string) (*engine.Result, *effective.Result) {
	t.Helper()
	res := enginetest.RunYAML(t, docs...)
	if len(res.Kinds) != 1 {
		t.Fatalf("kinds = %d, want 1", len(res.Kinds))
	}
	k := res.Kinds[0].Kind
	funcs, err := effective.Funcs(merge.DefaultRegistry(), k, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res, effective.ComputeOnly(res.Graph, k, res.Kinds[0].Attachments, funcs, in)
}

// contextView is a context as the tests compare it: its path and stack by
// name, its values and who set each leaf.
type contextView struct {
	Path    []string
	Entries []string
	Values  map[string]any
	Prov    map[string]string
}

func view(g *topology.Graph, tg *effective.Target) []contextView {
	var out []contextView
	for _, c := range tg.Contexts {
		v := contextView{Values: c.Result.Values, Prov: map[string]string{}}
		for _, n := range c.Path {
			v.Path = append(v.Path, g.Node(n).Ref.String())
		}
		for _, e := range c.Entries {
			v.Entries = append(v.Entries, e.Policy().ID()+"/"+string(e.Block.Strategy.Base))
		}
		for leaf, p := range c.Result.Prov {
			v.Prov[leaf] = p.ID()
		}
		out = append(out, v)
	}
	return out
}

func targetNamed(g *topology.Graph, r *effective.Result, name string) *effective.Target {
	for _, tg := range r.Targets {
		if g.Node(tg.Node).Ref.Name == name {
			return tg
		}
	}
	return nil
}

// TestComputeContexts checks the contexts of route web, one per Gateway
// (GEP-713 "Abstract process for calculating Effective metaresources":
// one effective policy per path from a root to the target), each
// stacking the Namespaces above its path first.
func TestComputeContexts(t *testing.T) {
	res, eff := compute(t, nil, append([]string{world, kindDecl("")}, policies()...)...)
	tg := targetNamed(res.Graph, eff, "web")
	if tg == nil {
		t.Fatal("route web is not an effective target")
	}
	got := map[string]contextView{}
	for _, v := range view(res.Graph, tg) {
		for _, n := range v.Path {
			if strings.HasPrefix(n, "Gateway ") && !strings.Contains(n, "#") {
				got[n] = v // keyed by the Gateway on the path
			}
		}
	}
	want := map[string]contextView{
		// Two defaults on one level, Namespaces infra and web, same
		// creationTimestamp: infra/ns-infra is first by namespace/name and
		// wins, so it comes last (GEP-713 "Conflict resolution rules").
		"Gateway infra/gw": {
			Entries: []string{"web/ns-web/Defaults", "infra/ns-infra/Defaults", "infra/gw/Overrides", "web/route/Defaults"},
			Values:  map[string]any{"a": "route", "b": "gw", "c": "ns-infra"},
			Prov:    map[string]string{"/a": "web/route", "/b": "infra/gw", "/c": "infra/ns-infra"},
		},
		"Gateway edge/edge": {
			Entries: []string{"web/ns-web/Defaults", "edge/edge/Defaults", "web/route/Defaults"},
			Values:  map[string]any{"a": "route", "b": "ns-web", "c": "edge"},
			Prov:    map[string]string{"/a": "web/route", "/b": "web/ns-web", "/c": "edge/edge"},
		},
	}
	if len(got) != len(want) {
		t.Fatalf("contexts = %v, want 2", keys(got))
	}
	for gw, w := range want {
		g, ok := got[gw]
		if !ok {
			t.Errorf("no context through %s; have %v", gw, keys(got))
			continue
		}
		if !reflect.DeepEqual(g.Entries, w.Entries) {
			t.Errorf("%s: stack = %v, want %v", gw, g.Entries, w.Entries)
		}
		if !reflect.DeepEqual(g.Values, w.Values) {
			t.Errorf("%s: values = %v, want %v", gw, g.Values, w.Values)
		}
		if !reflect.DeepEqual(g.Prov, w.Prov) {
			t.Errorf("%s: set by %v, want %v", gw, g.Prov, w.Prov)
		}
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestComputeOnlyScope: ComputeOnly's doc promises that each target it
// returns is the one Compute returns, contexts and outcomes alike.
func TestComputeOnlyScope(t *testing.T) {
	docs := append([]string{world, kindDecl("")}, policies()...)
	res, full := compute(t, nil, docs...)
	if len(full.Targets) < 3 {
		t.Fatalf("Compute: %d targets, want the two Gateways and two routes", len(full.Targets))
	}
	for _, tg := range full.Targets {
		name := res.Graph.Node(tg.Node).Ref.String()
		t.Run(name, func(t *testing.T) {
			_, scoped := compute(t, func(n topology.NodeID) bool { return n == tg.Node }, docs...)
			if len(scoped.Targets) != 1 || scoped.Targets[0].Node != tg.Node {
				t.Fatalf("ComputeOnly(%s): %d targets, want that one", name, len(scoped.Targets))
			}
			if got, want := view(res.Graph, scoped.Targets[0]), view(res.Graph, tg); !reflect.DeepEqual(got, want) {
				t.Errorf("ComputeOnly(%s) =\n%+v\nCompute =\n%+v", name, got, want)
			}
		})
	}
}

// TestContextTarget: with contexts: Target a target stands alone
// (policykind.ContextTarget, 002's blueprint values): its own Namespace
// and itself, not the Gateways above it. With the default (Path), the
// route also gets the Gateway's policies.
func TestContextTarget(t *testing.T) {
	for _, c := range []struct {
		name, extra string
		target      string
		want        [][]string // stacks, one per context (one per path to the target)
	}{{
		// Route web has two paths (two Gateways): standing alone, both
		// contexts hold the same stack.
		name: "contexts: Target, route", extra: "  contexts: Target\n", target: "web",
		want: [][]string{{"web/ns-web/Defaults", "web/route/Defaults"}, {"web/ns-web/Defaults", "web/route/Defaults"}},
	}, {
		name: "contexts: Target, Gateway", extra: "  contexts: Target\n", target: "gw",
		want: [][]string{{"infra/ns-infra/Defaults", "infra/gw/Overrides"}},
	}, {
		name: "contexts: Path, route", extra: "", target: "web",
		want: [][]string{
			{"web/ns-web/Defaults", "infra/ns-infra/Defaults", "infra/gw/Overrides", "web/route/Defaults"},
			{"web/ns-web/Defaults", "edge/edge/Defaults", "web/route/Defaults"},
		},
	}} {
		t.Run(c.name, func(t *testing.T) {
			res, eff := compute(t, nil, append([]string{world, kindDecl(c.extra)}, policies()...)...)
			tg := targetNamed(res.Graph, eff, c.target)
			if tg == nil {
				t.Fatalf("%s is not an effective target", c.target)
			}
			var got [][]string
			for _, v := range view(res.Graph, tg) {
				got = append(got, v.Entries)
			}
			sort.Slice(got, func(i, j int) bool { return fmt.Sprint(got[i]) < fmt.Sprint(got[j]) })
			want := append([][]string(nil), c.want...)
			sort.Slice(want, func(i, j int) bool { return fmt.Sprint(want[i]) < fmt.Sprint(want[j]) })
			if !reflect.DeepEqual(got, want) {
				t.Errorf("stacks = %v, want %v", got, want)
			}
		})
	}
}

// TestTargetFields: the target's own values (Spec.TargetFields) are the
// most specific default (001 "Interactions between defaults, overrides,
// and field values": a default only fills an unset field, an override
// replaces the field's value).
func TestTargetFields(t *testing.T) {
	fields := "  targetFields: {timeout: spec.rules.0.timeouts.request}\n"
	for _, c := range []struct {
		name   string
		policy string
		want   map[string]any
		prov   string // who set /timeout: a policy ID, or "" for the object
	}{{
		name:   "001: a default does not replace the route's own value",
		policy: testPolicy("web", "route", "03", fmt.Sprintf(toRoute, "web"), "  defaults: {timeout: 1s}"),
		want:   map[string]any{"timeout": "7s"},
	}, {
		name:   "001: an override replaces the route's own value",
		policy: testPolicy("web", "route", "03", fmt.Sprintf(toRoute, "web"), "  overrides: {timeout: 1s}\n  strategy: PatchOverrides"),
		want:   map[string]any{"timeout": "1s"},
		prov:   "web/route",
	}, {
		name:   "001: a default fills a field the route leaves unset",
		policy: testPolicy("web", "route", "03", fmt.Sprintf(toRoute, "web"), "  defaults: {retries: 2}"),
		want:   map[string]any{"timeout": "7s", "retries": int64(2)},
	}} {
		t.Run(c.name, func(t *testing.T) {
			res, eff := compute(t, nil, world, kindDecl(fields+"  contexts: Target\n"), c.policy)
			tg := targetNamed(res.Graph, eff, "web")
			if tg == nil || len(tg.Contexts) != 2 {
				t.Fatalf("route web: want a context per Gateway, got %+v", tg)
			}
			for _, ctx := range tg.Contexts {
				r := ctx.Result
				if !reflect.DeepEqual(r.Values, c.want) {
					t.Errorf("values = %v, want %v", r.Values, c.want)
				}
				got := ""
				if p := r.Prov["/timeout"]; p != nil {
					got = p.ID()
				}
				if got != c.prov {
					t.Errorf("/timeout set by %q, want %q", got, c.prov)
				}
			}
			if v := effective.TargetValues(res.Graph, res.Kinds[0].Kind, tg.Node); !reflect.DeepEqual(v, map[string]any{"timeout": "7s"}) {
				t.Errorf("TargetValues = %v, want the route's timeout", v)
			}
		})
	}
}
