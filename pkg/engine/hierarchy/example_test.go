package hierarchy_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
)

// Print the targetable kinds of the hierarchy table from least to most
// specific: the Level of a kind is what orders the policies of a context
// (GEP-713 "Conflict resolution rules": "Between two metaresources at
// different levels of the hierarchy, the one attached higher wins (i.e.
// dictates the merge strategy ...)"), and its Section is what a
// targetRef's sectionName names.
func ExampleTable() {
	for _, r := range hierarchy.Table {
		if r.Targetable {
			fmt.Printf("%d %-14s namespaced=%-5t section=%q\n", r.Level, r.Kind, r.Namespaced, r.Section)
		}
	}
	// Output:
	// 0 Namespace      namespaced=false section=""
	// 1 GatewayClass   namespaced=false section=""
	// 2 Gateway        namespaced=true  section="listener"
	// 3 ListenerSet    namespaced=true  section="listener"
	// 5 HTTPRoute      namespaced=true  section="rule"
	// 5 GRPCRoute      namespaced=true  section="rule"
	// 5 TLSRoute       namespaced=true  section="rule"
	// 5 TCPRoute       namespaced=true  section="rule"
	// 5 UDPRoute       namespaced=true  section="rule"
	// 7 Service        namespaced=true  section="port"
}

// Look up one kind's row: everything Strata knows about it in one place.
func ExampleLookup() {
	r, ok := hierarchy.Lookup(schema.GroupKind{Group: hierarchy.GatewayGroup, Kind: "HTTPRoute"})
	fmt.Println(ok, r.GroupVersionKind(), r.Resource, r.Names)
	// Output:
	// true gateway.networking.k8s.io/v1, Kind=HTTPRoute httproutes [httproute httproutes route routes]
}
