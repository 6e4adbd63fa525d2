package typed_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/strata-dev/strata/internal/enginetest"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// TestRouteRuleSections checks, for every route kind of hierarchy.Table
// (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute: each has
// spec.rules[].name in the pinned gateway-api module), that a policy
// whose targetRef names a rule with sectionName attaches to that rule,
// named or generated (rule-<index>), and that a sectionName naming no
// rule is refused with TargetNotFound (GEP-713 "Targeting sections of
// a resource"; Gateway API RouteRule.Name "sectionName in a policy
// targetRef"). Every route kind takes the one path a rule section takes
// through the topology and attachment: no kind is special.
func TestRouteRuleSections(t *testing.T) {
	for _, row := range hierarchy.Table {
		if row.Route == nil {
			continue
		}
		t.Run(row.Kind, func(t *testing.T) {
			world := fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: gc}
spec: {controllerName: example.com/gw}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: ns}
spec:
  gatewayClassName: gc
  listeners: [{name: l, port: 80, protocol: %s}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: ns}
spec: {ports: [{name: http, port: 80}]}
---
apiVersion: %s
kind: %s
metadata: {name: x, namespace: ns}
spec:
  parentRefs: [{name: gw}]
  rules:
  - {name: main, backendRefs: [{name: svc, port: 80}]}
  - {backendRefs: [{name: svc, port: 80}]}
`, row.Route.Protocols[0], row.GroupVersionKind().GroupVersion(), row.Kind)
			decl := fmt.Sprintf(`apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: rulepolicies.example.io}
spec:
  group: example.io
  kind: RulePolicy
  class: Direct
  managed: true
  targetKinds: [{group: gateway.networking.k8s.io, kind: %s}]
`, row.Kind)
			pol := func(name, section string) string {
				return fmt.Sprintf(`apiVersion: example.io/v1
kind: RulePolicy
metadata: {name: %s, namespace: ns}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: %s, name: x, sectionName: %s}
  a: 1
`, name, row.Kind, section)
			}
			res := enginetest.RunYAML(t, world, decl, pol("named", "main"), pol("generated", "rule-1"), pol("missing", "nope"))
			if len(res.Kinds) != 1 {
				t.Fatalf("%d kinds, want 1", len(res.Kinds))
			}
			att := res.Kinds[0].Attachments
			attached := map[string]string{}
			for p, as := range att.ByPolicy {
				for _, a := range as {
					attached[p.Name] = res.Graph.Node(a.Node).Ref.Key()
				}
			}
			rule := func(section string) string {
				return topology.Ref{Group: row.Group, Kind: row.Kind, Namespace: "ns", Name: "x", Section: section}.Key()
			}
			want := map[string]string{"named": rule("main"), "generated": rule("rule-1")}
			for name, key := range want {
				if attached[name] != key {
					t.Errorf("policy %s attached to %q, want %q", name, attached[name], key)
				}
			}
			if _, ok := attached["missing"]; ok {
				t.Errorf("policy missing attached to %s, want refused", attached["missing"])
			}
			var refused []string
			for _, r := range att.Rejections {
				refused = append(refused, r.Policy.Name+" "+r.Reason+" "+r.Message)
			}
			wantRefused := fmt.Sprintf(`missing TargetNotFound spec.targetRef.sectionName: %s ns/x has no rule named "nope"`, row.Kind)
			if len(refused) != 1 || refused[0] != wantRefused {
				t.Errorf("rejections:\n%s\nwant:\n%s", strings.Join(refused, "\n"), wantRefused)
			}
		})
	}
}
