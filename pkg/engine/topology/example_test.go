package topology_test

import (
	"fmt"
	"strings"

	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/source/files"
)

// world is one Gateway with one listener and one HTTPRoute attached to it.
const world = `
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
spec: {parentRefs: [{name: gw}], rules: [{name: all}]}
`

// Build the DAG of a tiny world and print each node with its parents:
// the route hangs below the listener it attached to, its rule below it,
// and the Namespace node is an umbrella above its objects without edges
// (GEP-713 "Hierarchy"). Nodes are ids into Graph.Nodes.
func ExampleBuild() {
	src, err := files.Read([]string{"-"}, strings.NewReader(world))
	if err != nil {
		panic(err)
	}
	g := topology.Build(src.Snapshot)
	for _, n := range g.Nodes {
		parents := []string{"(root)"}
		if len(n.Parents) > 0 {
			parents = nil
		}
		for _, p := range n.Parents {
			parents = append(parents, g.Node(p).Ref.String())
		}
		fmt.Printf("%-22s <- %s\n", n.Ref, strings.Join(parents, ", "))
	}
	// A targetRef finds its node through the same locator.
	route := topology.Ref{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Namespace: "shop", Name: "web"}
	fmt.Println(route.Key(), "is node", g.Lookup(route))
	// Output:
	// GatewayClass gc        <- (root)
	// Namespace shop         <- (root)
	// Gateway shop/gw        <- GatewayClass gc
	// Gateway shop/gw#http   <- Gateway shop/gw
	// HTTPRoute shop/web     <- Gateway shop/gw#http
	// HTTPRoute shop/web#all <- HTTPRoute shop/web
	// HTTPRoute.gateway.networking.k8s.io:shop/web is node 4
}
