package outcome_test

import (
	"fmt"
	"strings"

	"github.com/strata-dev/strata/pkg/engine/attach"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/merge"
	"github.com/strata-dev/strata/pkg/engine/outcome"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/source/files"
)

// timeouts is one Gateway, one HTTPRoute and a TimeoutPolicy kind declared
// as data (docs/policy-kinds.md): a policy on the Gateway with defaults
// and an override, and a more specific one on the route.
const timeouts = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: gc}
spec: {controllerName: example.com/gateway}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: shop}
spec: {gatewayClassName: gc, listeners: [{name: http, protocol: HTTP, port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: shop}
spec: {parentRefs: [{name: gw}]}
---
apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: timeoutpolicies.example.com}
spec:
  group: example.com
  kind: TimeoutPolicy
  managed: true
  targetKinds: [{group: gateway.networking.k8s.io, kind: Gateway}, {group: gateway.networking.k8s.io, kind: HTTPRoute}]
  effectiveTargetKind: {group: gateway.networking.k8s.io, kind: HTTPRoute}
  strategies: {default: PatchDefaults}
---
apiVersion: example.com/v1
kind: TimeoutPolicy
metadata: {name: gw-timeouts, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  defaults: {request: 10s, idle: 60s}
  overrides: {idle: 30s}
---
apiVersion: example.com/v1
kind: TimeoutPolicy
metadata: {name: web-timeouts, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}]
  defaults: {request: 30s, idle: 120s}
`

// Derive the status of every policy, per ancestor (the Gateway through
// which it acts), and the <Kind>Affected condition of the route (GEP-713
// "Metaresource status", "Target object status"): both policies are
// Accepted and each is PartiallyEnforced, since the other wins a field;
// the conditions of the other states are there too, False.
func ExampleCompute() {
	src, err := files.Read([]string{"-"}, strings.NewReader(timeouts))
	if err != nil {
		panic(err)
	}
	s := src.Snapshot
	k, err := policykind.Compile(s.Declarations[0])
	if err != nil {
		panic(err)
	}
	var policies []*policykind.Policy
	for _, u := range s.Policies {
		policies = append(policies, k.Read(u))
	}
	g := topology.Build(s)
	funcs, err := effective.Funcs(merge.DefaultRegistry(), k, nil)
	if err != nil {
		panic(err)
	}
	att := attach.Resolve(g, policies)
	eff := effective.ComputeOnly(g, k, att, funcs, nil)
	out := outcome.Compute(g, policies, outcome.Input{Attachments: att, Effective: eff})
	for _, ps := range out.Policies {
		for _, a := range ps.Ancestors {
			for _, c := range a.Conditions {
				if c.Status != "True" {
					continue // the other states, written False
				}
				fmt.Printf("%s on %s: %s: %s\n", ps.Policy.ID(), a.Ref, c.Type, c.Message)
			}
		}
	}
	for _, ts := range out.Targets() {
		c := ts.AffectedCondition(g.Node(ts.Node).Generation)
		fmt.Printf("%s: %s=%s: %s\n", g.Node(ts.Node).Ref, c.Type, c.Status, c.Message)
	}
	// Output:
	// shop/gw-timeouts on Gateway shop/gw: Accepted: accepted
	// shop/gw-timeouts on Gateway shop/gw: PartiallyEnforced: superseded by shop/web-timeouts in 1 of 1 context (fields /request)
	// shop/web-timeouts on Gateway shop/gw: Accepted: accepted
	// shop/web-timeouts on Gateway shop/gw: PartiallyEnforced: superseded by shop/gw-timeouts in 1 of 1 context (fields /idle)
	// HTTPRoute shop/web: strata.dev/TimeoutPolicyAffected=True: affected by TimeoutPolicy shop/gw-timeouts, shop/web-timeouts
}
