package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/source/files"
)

// A small value space: a Base kind referenced by GatewayClasses'
// parametersRef (rank 0), an Infra kind (rank 1) and a Tenant kind
// (rank 2), each effective on Gateways and HTTPRoutes, each target
// standing alone (contexts: Target) as 002's blueprint values do.
func spaceKind(kind string, rank int, extra string) string {
	return fmt.Sprintf(`apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: %[1]s}
spec:
  group: example.io
  kind: %[1]s
  targetKinds:
  - {group: "", kind: Namespace}
  - {group: gateway.networking.k8s.io, kind: GatewayClass}
  - {group: gateway.networking.k8s.io, kind: Gateway}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute}
  effectiveTargetKinds:
  - {group: gateway.networking.k8s.io, kind: Gateway}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute}
  contexts: Target
  valueSpace: {name: example.io/values, rank: %[2]d}
  strategies: {supported: [PatchDefaults, PatchOverrides], default: PatchDefaults}
%[3]s`, kind, rank, extra)
}

const spaceWorld = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: shared}
spec:
  controllerName: example.com/gw
  parametersRef: {group: example.io, kind: Base, name: base}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: shared
  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: web}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
---
apiVersion: example.io/v1
kind: Base
metadata: {name: base}
spec: {defaults: {a: base, b: base, c: base}, overrides: {locked: base}}
`

func spacePolicy(kind, ns, name, ts, spec string) string {
	return fmt.Sprintf("apiVersion: example.io/v1\nkind: %s\nmetadata: {name: %s, namespace: %s, creationTimestamp: %q}\nspec:\n%s", kind, name, ns, ts, spec)
}

// fieldsOf maps each field of a target's effective value (in its one
// context) to "value by Kind ns/name".
func fieldsOf(t *testing.T, res *engine.Result, name string) map[string]string {
	t.Helper()
	out := map[string]string{}
	n := 0
	for i, kr := range res.Kinds {
		e := kr.Effective
		if res.SharedWith(i) != i {
			continue
		}
		for _, tg := range e.Targets {
			if res.Graph.Node(tg.Node).Ref.Name != name {
				continue
			}
			for _, c := range tg.Contexts {
				n++
				for ptr, src := range c.Result.Prov {
					v := fmt.Sprint(mustGet(c.Result.Values, ptr))
					out[ptr] = v + " by " + effective.PolicyOf(src).Kind.Kind + " " + src.ID()
				}
			}
		}
	}
	if n != 1 {
		t.Fatalf("%s: %d contexts, want 1", name, n)
	}
	return out
}

func mustGet(m map[string]any, ptr string) any {
	return m[strings.TrimPrefix(ptr, "/")]
}

// The kinds of one value space fold into one stack: every level of a
// lower rank below every level of a higher one, the blueprint's
// override above all, each policy's standing from the shared value.
func TestValueSpace(t *testing.T) {
	res := runYAML(t,
		spaceKind("Base", 0, "  referencedBy: [{group: gateway.networking.k8s.io, kind: GatewayClass, field: spec.parametersRef}]\n"),
		spaceKind("Infra", 1, "  globalNamespaces: [system]\n"),
		spaceKind("Tenant", 2, ""),
		spaceWorld,
		// Infra on the Gateway (rank 1, Gateway level) loses b to Tenant
		// on the Namespace (rank 2, Namespace level): rank first.
		spacePolicy("Infra", "infra", "on-gw", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n  defaults: {b: infra-gw, locked: infra-gw}"),
		spacePolicy("Tenant", "infra", "on-ns", "2026-01-01T00:00:00Z", "  targetRef: {group: \"\", kind: Namespace, name: infra}\n  defaults: {b: tenant-ns}"),
		// Global Infra config applies to every Gateway and route of the class.
		spacePolicy("Infra", "system", "global", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: GatewayClass, name: shared}\n  defaults: {c: global}"),
		// Tenant config on the Gateway does not reach the route (contexts:
		// Target); the route's own does.
		spacePolicy("Tenant", "infra", "gw-only", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}\n  defaults: {d: gw}"),
		spacePolicy("Tenant", "web", "route", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}\n  defaults: {e: route}"),
	)
	if len(res.Errors) > 0 {
		t.Fatal(res.Errors)
	}
	gw := fieldsOf(t, res, "gw")
	wantGW := map[string]string{
		"/a": "base by Base base", "/b": "tenant-ns by Tenant infra/on-ns", "/c": "global by Infra system/global",
		"/d": "gw by Tenant infra/gw-only", "/locked": "base by Base base",
	}
	if fmt.Sprint(gw) != fmt.Sprint(wantGW) {
		t.Errorf("Gateway gw:\n got %v\nwant %v", gw, wantGW)
	}
	route := fieldsOf(t, res, "web")
	wantRoute := map[string]string{"/a": "base by Base base", "/b": "base by Base base", "/c": "global by Infra system/global", "/e": "route by Tenant web/route", "/locked": "base by Base base"}
	if fmt.Sprint(route) != fmt.Sprint(wantRoute) {
		t.Errorf("HTTPRoute web:\n got %v\nwant %v", route, wantRoute)
	}
	// Standings come from the shared value.
	for _, c := range []struct{ policy, want string }{
		{"infra/on-gw", "Overridden"}, {"infra/on-ns", "Enforced"}, {"infra/gw-only", "Enforced"},
	} {
		for _, tg := range res.Kinds[0].Effective.Targets {
			if res.Graph.Node(tg.Node).Ref.Name != "gw" {
				continue
			}
			for _, e := range tg.Contexts[0].Entries {
				if e.Policy().ID() == c.policy {
					if st, _, _ := tg.Contexts[0].Standing(e.Policy()); string(st) != c.want {
						t.Errorf("%s on Gateway gw: %s, want %s", c.policy, st, c.want)
					}
				}
			}
		}
	}
	// Each kind keeps its own attachments; the shared result is listed once.
	if res.SharedWith(1) != 0 || res.SharedWith(2) != 0 {
		t.Errorf("kinds of one value space share the first kind's result: %d, %d", res.SharedWith(1), res.SharedWith(2))
	}
	for _, kr := range res.Kinds {
		k := kr.Kind
		for p := range kr.Attachments.ByPolicy {
			if p.Kind != k {
				t.Errorf("attachments of %s hold a %s", k.Kind, p.Kind.Kind)
			}
		}
	}
}

// Kinds that cannot fold together are refused, naming both declarations.
func TestValueSpaceDisagrees(t *testing.T) {
	for _, c := range []struct{ name, second, want string }{
		{"same rank", spaceKind("Tenant", 1, ""), "both are at rank 1"},
		{"other contexts", strings.Replace(spaceKind("Tenant", 2, ""), "contexts: Target", "contexts: Path", 1), "spec.contexts differs"},
		{"other effective kinds", strings.Replace(spaceKind("Tenant", 2, ""), "  - {group: gateway.networking.k8s.io, kind: Gateway}\n  - {group: gateway.networking.k8s.io, kind: HTTPRoute}\n  contexts", "  - {group: gateway.networking.k8s.io, kind: HTTPRoute}\n  contexts", 1), "spec.effectiveTargetKinds differs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := files.Read([]string{"-"}, strings.NewReader(spaceKind("Infra", 1, "")+"\n---\n"+c.second))
			if err != nil {
				t.Fatal(err)
			}
			_, errs := engine.KindsWith(r.Snapshot, "", nil)
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), c.want) || !strings.Contains(errs[0].Error(), "PolicyKind Infra") || !strings.Contains(errs[0].Error(), "PolicyKind Tenant") {
				t.Errorf("errors %v, want one naming both PolicyKinds and %q", errs, c.want)
			}
		})
	}
}
