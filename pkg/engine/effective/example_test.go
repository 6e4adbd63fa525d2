package effective_test

import (
	"fmt"
	"strings"

	"github.com/strata-dev/strata/pkg/engine/attach"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/merge"
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

// Compute the effective policy of the route. Its one context is the path
// from the root (after the namespaces above it) to the route; its stack
// holds the blocks of both policies, least specific first (an override
// before the defaults of its level), folded into the effective spec with
// the policy that set each field (GEP-713 "Abstract process for
// calculating Effective metaresources"). The route's default wins the
// request timeout and the Gateway's override keeps the idle one, so each
// policy is partly in force, losing the fields listed.
func ExampleComputeOnly() {
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
	eff := effective.ComputeOnly(g, k, attach.Resolve(g, policies), funcs, nil)
	for _, tg := range eff.Targets {
		for _, ctx := range tg.Contexts {
			var path []string
			for _, n := range ctx.Path {
				path = append(path, g.Node(n).Ref.String())
			}
			fmt.Println(strings.Join(path, " > "))
			for _, e := range ctx.Entries {
				fmt.Printf("  stack: %s %s %v\n", e.Policy().ID(), e.Block.Strategy, e.Block.Values)
			}
			for _, f := range []string{"/idle", "/request"} {
				v, _ := merge.Get(ctx.Result.Values, f)
				fmt.Printf("  %s = %v (%s)\n", f, v, ctx.Result.Prov[f].ID())
			}
			for _, p := range policies {
				st, _, lost := ctx.Standing(p)
				fmt.Printf("  %s: %s %v\n", p.ID(), st, lost)
			}
		}
	}
	// Output:
	// Namespace shop > GatewayClass gc > Gateway shop/gw > Gateway shop/gw#http > HTTPRoute shop/web
	//   stack: shop/gw-timeouts PatchOverrides map[idle:30s]
	//   stack: shop/gw-timeouts PatchDefaults map[idle:60s request:10s]
	//   stack: shop/web-timeouts PatchDefaults map[idle:120s request:30s]
	//   /idle = 30s (shop/gw-timeouts)
	//   /request = 30s (shop/web-timeouts)
	//   shop/gw-timeouts: PartiallyEnforced [/request]
	//   shop/web-timeouts: PartiallyEnforced [/idle]
}
