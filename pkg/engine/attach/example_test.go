package attach_test

import (
	"fmt"
	"strings"

	"github.com/strata-dev/strata/pkg/engine/attach"
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

// Attach the policies of one kind to the nodes their targetRefs name. A
// targetRef that names no object is no attachment but a rejection,
// reported against the policy's ancestor with GEP-713's reason
// (TargetNotFound).
func ExampleResolve() {
	src, err := files.Read([]string{"-"}, strings.NewReader(timeouts+`
---
apiVersion: example.com/v1
kind: TimeoutPolicy
metadata: {name: old-timeouts, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: old}]
  defaults: {request: 5s}
`))
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
	att := attach.Resolve(g, policies)
	for _, p := range policies {
		for _, a := range att.ByPolicy[p] {
			fmt.Printf("%s attached to %s by %s\n", p.ID(), g.Node(a.Node).Ref, a.Field)
		}
	}
	for _, r := range att.Rejections {
		fmt.Printf("%s rejected (%s): %s: %s\n", r.Policy.ID(), r.Field, r.Reason, r.Message)
	}
	// Output:
	// shop/gw-timeouts attached to Gateway shop/gw by spec.targetRefs[0]
	// shop/web-timeouts attached to HTTPRoute shop/web by spec.targetRefs[0]
	// shop/old-timeouts rejected (spec.targetRefs[0]): TargetNotFound: spec.targetRefs[0]: HTTPRoute shop/old not found
}
