package engine_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/strata-dev/strata/internal/enginetest"
	"github.com/strata-dev/strata/pkg/engine"
)

// runYAML runs the engine on YAML documents.
func runYAML(t *testing.T, docs ...string) *engine.Result {
	t.Helper()
	return enginetest.RunYAML(t, docs...)
}

// topo is a small world: namespace infra holds GatewayClass-bound Gateway
// gw (listeners http and other), team namespaces hold routes and services.
const topo = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: shared}
spec: {controllerName: example.com/gw}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  gatewayClassName: shared
  listeners:
  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}
  - {name: other, protocol: HTTP, port: 8080, hostname: other.example.com, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: team-a}
spec:
  gatewayClassName: shared
  listeners:
  - {name: http, protocol: HTTP, port: 80}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: web}
spec:
  hostnames: [web.example.com]
  parentRefs: [{name: gw, namespace: infra}]
  rules:
  - name: main
    backendRefs: [{name: baker, namespace: baker, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: from-web, namespace: baker}
spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: web}]
  to: [{group: "", kind: Service}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: app, namespace: team-a}
spec:
  parentRefs: [{name: gw}]
  rules:
  - backendRefs: [{name: app, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: baker, namespace: baker}
spec: {ports: [{name: http, port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: app, namespace: team-a}
spec: {ports: [{name: http, port: 80}]}
`

// kind declares an Inherited test policy kind with the given extra spec.
func kind(effective, extra string) string {
	return fmt.Sprintf(`apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: tests}
spec:
  group: example.io
  kind: TestPolicy
  managed: true
  targetKinds:
%s  effectiveTargetKind: {group: "%s", kind: %s}
%s`, targetKinds(effective), group(effective), effective, extra)
}

// targetKinds lists the kinds down to the effective one.
func targetKinds(effective string) string {
	var b strings.Builder
	for _, k := range []string{"Namespace", "GatewayClass", "Gateway", "HTTPRoute", "Service"} {
		fmt.Fprintf(&b, "  - {group: %q, kind: %s}\n", group(k), k)
		if k == effective {
			break
		}
	}
	return b.String()
}

// group of a modelled kind.
func group(kind string) string {
	if kind == "Service" || kind == "Namespace" {
		return ""
	}
	return "gateway.networking.k8s.io"
}

func policy(ns, name, ts, spec string) string {
	return fmt.Sprintf(`apiVersion: example.io/v1
kind: TestPolicy
metadata: {name: %s, namespace: %s, creationTimestamp: "%s"}
spec:
%s`, name, ns, ts, spec)
}

// effectiveOf returns the resultant specs of a target by its name, one
// per context.
func effectiveOf(res *engine.Result, name string) []map[string]any {
	var out []map[string]any
	for _, kr := range res.Kinds {
		e := kr.Effective
		for _, tg := range e.Targets {
			if r := res.Graph.Node(tg.Node).Ref; r.Name+"#"+r.Section == name || r.Name == name && r.Section == "" {
				for _, c := range tg.Contexts {
					out = append(out, c.Result.Values)
				}
			}
		}
	}
	return out
}

func statusOf(t *testing.T, res *engine.Result, name string) []metav1.Condition {
	t.Helper()
	for _, ps := range res.Outcome.Policies {
		if ps.Policy.Name == name {
			if len(ps.Ancestors) == 0 {
				t.Fatalf("%s has no ancestors", name)
			}
			return ps.Ancestors[0].Conditions
		}
	}
	t.Fatalf("no status for %s", name)
	return nil
}

func TestMergeSemantics(t *testing.T) {
	patchBoth := "  strategies:\n    default: PatchDefaults\n"
	for _, c := range []struct {
		name     string
		docs     []string
		target   string
		want     []map[string]any
		wantProv map[string]string
	}{{
		// 001 "Hierarchy": the CDNCachingPolicy example, one policy with both
		// an override and defaults, a route policy changing one default.
		name: "defaults and overrides in one policy",
		docs: []string{kind("Service", patchBoth),
			policy("infra", "gw-cdn", "2026-01-01T00:00:00Z", `  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  overrides: {cdn: {enabled: true}}
  defaults: {cdn: {enabled: false, cachePolicy: {includeHost: true, includeProtocol: true, includeQueryString: true}}}`),
			policy("web", "route-cdn", "2026-01-01T00:00:00Z", `  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}
  defaults: {cdn: {enabled: false, cachePolicy: {includeQueryString: false}}}`)},
		target: "baker",
		want: []map[string]any{{"cdn": map[string]any{"enabled": true, "cachePolicy": map[string]any{
			"includeHost": true, "includeProtocol": true, "includeQueryString": false}}}},
		wantProv: map[string]string{"/cdn/enabled": "infra/gw-cdn", "/cdn/cachePolicy/includeQueryString": "web/route-cdn", "/cdn/cachePolicy/includeHost": "infra/gw-cdn"},
	}, {
		// An override stays in force under a more specific override reached
		// through a defaults block in between (001's expanded hierarchy:
		// A override > C override > B default).
		name: "override locked through a default",
		docs: []string{kind("Service", patchBoth),
			policy("baker", "ns", "2026-01-01T00:00:00Z", "  targetRef: {group: \"\", kind: Namespace, name: baker}\n  overrides: {a: ns}\n  strategy: patch"),
			policy("infra", "gw", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n  defaults: {a: gw, b: gw}"),
			policy("web", "route", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}\n  overrides: {a: route, b: route, c: route}")},
		target:   "baker",
		want:     []map[string]any{{"a": "ns", "b": "route", "c": "route"}},
		wantProv: map[string]string{"/a": "baker/ns", "/b": "web/route"},
	}, {
		// 001 "Hierarchy": "A override > B override > C override > C
		// default > B default > A default", also when B carries both
		// blocks: B's default beats A's, its override beats both.
		name: "more specific policy with both blocks beats a less specific default",
		docs: []string{kind("Service", patchBoth),
			policy("infra", "gw", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n  defaults: {a: gw, b: gw, c: gw}"),
			policy("web", "route", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}\n  overrides: {a: route-override}\n  defaults: {b: route-default}")},
		target:   "baker",
		want:     []map[string]any{{"a": "route-override", "b": "route-default", "c": "gw"}},
		wantProv: map[string]string{"/a": "web/route", "/b": "web/route", "/c": "infra/gw"},
	}, {
		// Namespace is the least specific level and covers every context
		// that passes through an object in it: the route lives in web, the
		// Service in baker.
		name: "namespace umbrella over another namespace's route",
		docs: []string{kind("Service", ""),
			policy("baker", "retries", "2026-01-01T00:00:00Z", "  targetRef: {group: \"\", kind: Namespace, name: baker}\n  retries: 3"),
			policy("web", "no-retries", "2026-01-02T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}\n  retries: 0")},
		target:   "baker",
		want:     []map[string]any{{"retries": int64(0)}},
		wantProv: map[string]string{"/retries": "web/no-retries"},
	}, {
		// A rule section is more specific than its route.
		name: "rule section beats route",
		docs: []string{kind("Service", ""),
			policy("web", "route", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}\n  timeout: 10s"),
			policy("web", "rule", "2026-01-02T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web, sectionName: main}\n  timeout: 1s")},
		target: "baker",
		want:   []map[string]any{{"timeout": "1s"}},
	}, {
		// A listener section is more specific than its Gateway; the route
		// attaches to listener http only (hostname), so one context.
		name: "listener section beats gateway override? no: gateway override wins",
		docs: []string{kind("Service", ""),
			policy("infra", "gw", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n  overrides: {tls: strict}"),
			policy("infra", "listener", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: http}\n  tls: lax")},
		target: "baker",
		want:   []map[string]any{{"tls": "strict"}},
	}, {
		// A custom atomicity: rules merged by name (merge.MergeByKey).
		name: "custom mergeByKey",
		docs: []string{kind("Service", `  strategies:
    supported: [AtomicDefaults, RuleMergeDefaults]
    custom: [{name: RuleMerge, function: mergeByKey, parameters: {key: name}}]`),
			policy("infra", "gw", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n  strategy: rulemerge\n  limits: [{name: login, rate: 1}, {name: api, rate: 100}]"),
			policy("web", "route", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}\n  limits: [{name: login, rate: 5}, {name: search, rate: 50}]")},
		target: "baker",
		want: []map[string]any{{"limits": []any{
			map[string]any{"name": "login", "rate": int64(5)},
			map[string]any{"name": "api", "rate": int64(100)},
			map[string]any{"name": "search", "rate": int64(50)}}}},
		wantProv: map[string]string{"/limits[name=login]": "web/route", "/limits[name=api]": "infra/gw", "/limits[name=search]": "web/route"},
	}, {
		// 002: a namespaced policy on a cluster-scoped GatewayClass only
		// reaches Gateways of its own namespace...
		name: "GatewayClass policy scoped to its namespace",
		docs: []string{kind("Gateway", ""),
			policy("team-a", "tenant", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: GatewayClass, name: shared}\n  tier: gold")},
		target: "gw",
		want:   []map[string]any{{"tier": "gold"}},
	}, {
		// ...unless its namespace is global for the kind.
		name: "GatewayClass policy from a global namespace",
		docs: []string{kind("Gateway", "  globalNamespaces: [infra]\n"),
			policy("infra", "global", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: GatewayClass, name: shared}\n  tier: silver")},
		target: "gw",
		want:   []map[string]any{{"tier": "silver"}, {"tier": "silver"}},
	}, {
		// 002's precedence: "global policies" rank below every policy of
		// the Gateway's namespace, the one on its Namespace included,
		// though a GatewayClass is below a Namespace in no other sense.
		name: "global GatewayClass policy below the Namespace's",
		docs: []string{kind("Gateway", "  globalNamespaces: [global]\n"),
			policy("global", "global", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: GatewayClass, name: shared}\n  tier: silver\n  zone: eu"),
			policy("infra", "tenant", "2026-01-02T00:00:00Z", "  targetRef: {group: \"\", kind: Namespace, name: infra}\n  tier: bronze")},
		// infra/gw: the tenant's default wins (atomic: whole); team-a/gw,
		// with no policy of its own, gets the global one.
		target: "gw",
		want:   []map[string]any{{"tier": "bronze"}, {"tier": "silver", "zone": "eu"}},
	}} {
		t.Run(c.name, func(t *testing.T) {
			res := runYAML(t, append([]string{topo}, c.docs...)...)
			if got := effectiveOf(res, c.target); !reflect.DeepEqual(got, c.want) {
				t.Errorf("effective %s = %v, want %v", c.target, got, c.want)
			}
			for ptr, want := range c.wantProv {
				found := false
				for _, kr := range res.Kinds {
					e := kr.Effective
					for _, tg := range e.Targets {
						for _, ctx := range tg.Contexts {
							if p, ok := ctx.Result.Prov[ptr]; ok {
								found = true
								if p.ID() != want {
									t.Errorf("%s set by %s, want %s", ptr, p.ID(), want)
								}
							}
						}
					}
				}
				if !found {
					t.Errorf("%s has no provenance", ptr)
				}
			}
		})
	}
}

// Problems with a policy are reported on it, naming the field, and the
// policy affects nothing.
func TestRejections(t *testing.T) {
	exclusive := "  strategies:\n    exclusive: true\n"
	for _, c := range []struct {
		name, kindExtra, spec string
		reason                string
		mentions              []string
		ancestor              string
	}{
		{"dangling", "", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: nope}\n  a: 1", "TargetNotFound", []string{"spec.targetRef", "HTTPRoute web/nope not found"}, "HTTPRoute web/nope"},
		{"unknown section", "", "  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web, sectionName: nope}]\n  a: 1", "TargetNotFound", []string{"spec.targetRefs[0].sectionName", `no rule named "nope"`}, "HTTPRoute web/web#nope"},
		{"kind not allowed", "", "  targetRef: {group: gateway.networking.k8s.io, kind: GRPCRoute, name: web}\n  a: 1", "Invalid", []string{"spec.targetRef.kind", "not a target kind"}, "GRPCRoute web/web"},
		{"cross namespace without grant", "", "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw, namespace: infra}\n  a: 1", "Invalid", []string{"spec.targetRef.namespace", "ReferenceGrant"}, "Gateway infra/gw"},
		{"both blocks on exclusive kind", exclusive, "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}\n  defaults: {a: 1}\n  overrides: {a: 2}", "Invalid", []string{"sets both defaults and overrides"}, "HTTPRoute web/web"},
		{"unsupported strategy", "", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}\n  overrides: {a: 1, strategy: sometimes}", "Invalid", []string{"spec.overrides.strategy", `"sometimes"`}, "HTTPRoute web/web"},
		{"no targets", "", "  a: 1", "Invalid", []string{"spec.targetRefs: at least one target is required"}, "TestPolicy web/p"},
		{"malformed target", "", "  targetRefs: [{name: web}]\n  a: 1", "Invalid", []string{"spec.targetRefs[0].kind: required"}, "TestPolicy web/p"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := runYAML(t, topo, kind("Service", c.kindExtra), policy("web", "p", "2026-01-01T00:00:00Z", c.spec))
			if got := effectiveOf(res, "baker"); got != nil {
				t.Errorf("a rejected policy affects baker: %v", got)
			}
			ps := res.Outcome.Policies[0]
			if got := ps.Ancestors[0].Ref.String(); got != c.ancestor {
				t.Errorf("ancestorRef %s, want %s", got, c.ancestor)
			}
			a := meta.FindStatusCondition(ps.Ancestors[0].Conditions, "Accepted")
			if a == nil || a.Status != metav1.ConditionFalse || a.Reason != c.reason {
				t.Fatalf("Accepted = %+v, want False/%s", a, c.reason)
			}
			for _, m := range c.mentions {
				if !strings.Contains(a.Message, m) {
					t.Errorf("message %q lacks %q", a.Message, m)
				}
			}
		})
	}
}

// A cross-namespace target is accepted with a ReferenceGrant.
func TestCrossNamespaceWithGrant(t *testing.T) {
	grant := `apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: policies, namespace: infra}
spec:
  from: [{group: example.io, kind: TestPolicy, namespace: web}]
  to: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]`
	res := runYAML(t, topo, grant, kind("Service", ""), policy("web", "p", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw, namespace: infra}\n  a: 1"))
	if !meta.IsStatusConditionTrue(statusOf(t, res, "p"), "Accepted") {
		t.Errorf("status %+v", statusOf(t, res, "p"))
	}
	if got := effectiveOf(res, "baker"); len(got) != 1 {
		t.Errorf("effective baker = %v", got)
	}
}

// A policy whose target reaches no effective target yet is accepted and
// enforced (nothing supersedes it), and says so.
func TestNoEffectiveTargets(t *testing.T) {
	res := runYAML(t, topo, kind("Service", ""), policy("team-a", "p", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: app}\n  a: 1"),
		policy("infra", "q", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: other}\n  a: 1"))
	conds := statusOf(t, res, "q")
	e := meta.FindStatusCondition(conds, "Enforced")
	if !meta.IsStatusConditionTrue(conds, "Accepted") || e == nil || e.Status != metav1.ConditionTrue || !strings.Contains(e.Message, "no Service is reached") {
		t.Errorf("conditions %+v", conds)
	}
	for _, ps := range res.Outcome.Policies {
		if ps.Policy.Name == "q" && ps.Ancestors[0].Ref.String() != "Gateway infra/gw#other" {
			t.Errorf("ancestor %s", ps.Ancestors[0].Ref)
		}
	}
}

// Direct kinds merge with None: at one target the oldest wins and the rest
// are Conflicted; a section is more specific than its object.
func TestDirectNone(t *testing.T) {
	direct := `apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: tls}
spec:
  group: example.io
  kind: TestPolicy
  class: Direct
  managed: true
  targetKinds: [{group: gateway.networking.k8s.io, kind: Gateway}]`
	res := runYAML(t, topo, direct,
		policy("infra", "old", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n  v: old"),
		policy("infra", "new", "2026-01-02T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n  v: new"),
		policy("infra", "aaa-same-time", "2026-01-02T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n  v: aaa"),
		policy("infra", "listener", "2026-01-03T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: http}\n  v: listener"))
	if got := effectiveOf(res, "gw"); !reflect.DeepEqual(got, []map[string]any{{"v": "old"}}) {
		t.Errorf("gw = %v", got)
	}
	if got := effectiveOf(res, "gw#http"); !reflect.DeepEqual(got, []map[string]any{{"v": "listener"}}) {
		t.Errorf("gw#http = %v", got)
	}
	for _, name := range []string{"new", "aaa-same-time"} {
		a := meta.FindStatusCondition(statusOf(t, res, name), "Accepted")
		if a.Status != metav1.ConditionFalse || a.Reason != "Conflicted" || !strings.Contains(a.Message, "infra/old") {
			t.Errorf("%s Accepted = %+v", name, a)
		}
	}
	if !meta.IsStatusConditionTrue(statusOf(t, res, "listener"), "Enforced") {
		t.Errorf("listener: %+v", statusOf(t, res, "listener"))
	}
	// old is in force on the Gateway and superseded on its listener.
	if !meta.IsStatusConditionTrue(statusOf(t, res, "old"), "PartiallyEnforced") {
		t.Errorf("old: %+v", statusOf(t, res, "old"))
	}
}

// A policy attached at two nodes of one path (its namespace and a Service
// in it) reaches the target through both: no ancestor claims that nothing
// is reached.
func TestTwoAttachmentsOnOnePath(t *testing.T) {
	res := runYAML(t, topo, kind("Service", ""), policy("baker", "p", "2026-01-01T00:00:00Z",
		"  targetRefs: [{group: \"\", kind: Namespace, name: baker}, {group: \"\", kind: Service, name: baker}]\n  a: 1"))
	for _, a := range res.Outcome.Policies[0].Ancestors {
		if e := meta.FindStatusCondition(a.Conditions, "Enforced"); e == nil || strings.Contains(e.Message, "no Service is reached") {
			t.Errorf("ancestor %s: %+v", a.Ref, a.Conditions)
		}
	}
}
