package topology_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1b1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Builders for small typed objects. Each returns a pointer the snapshot
// takes as is.

func ptr[T any](v T) *T { return &v }

func meta(ns, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name}
}

func namespace(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func gatewayClass(name string) *gwv1.GatewayClass {
	return &gwv1.GatewayClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: gwv1.GatewayClassSpec{ControllerName: "example.com/gw"}}
}

func gateway(ns, name, class string, ls ...gwv1.Listener) *gwv1.Gateway {
	return &gwv1.Gateway{ObjectMeta: meta(ns, name), Spec: gwv1.GatewaySpec{GatewayClassName: gwv1.ObjectName(class), Listeners: ls}}
}

type listenerOpt func(*gwv1.Listener)

func listener(name string, proto gwv1.ProtocolType, port gwv1.PortNumber, opts ...listenerOpt) gwv1.Listener {
	l := gwv1.Listener{Name: gwv1.SectionName(name), Protocol: proto, Port: port}
	for _, o := range opts {
		o(&l)
	}
	return l
}

func host(h string) listenerOpt {
	return func(l *gwv1.Listener) { l.Hostname = ptr(gwv1.Hostname(h)) }
}

func allowFrom(from gwv1.FromNamespaces, sel *metav1.LabelSelector) listenerOpt {
	return func(l *gwv1.Listener) {
		if l.AllowedRoutes == nil {
			l.AllowedRoutes = &gwv1.AllowedRoutes{}
		}
		l.AllowedRoutes.Namespaces = &gwv1.RouteNamespaces{From: ptr(from), Selector: sel}
	}
}

func allowKinds(kinds ...string) listenerOpt {
	return func(l *gwv1.Listener) {
		if l.AllowedRoutes == nil {
			l.AllowedRoutes = &gwv1.AllowedRoutes{}
		}
		for _, k := range kinds {
			l.AllowedRoutes.Kinds = append(l.AllowedRoutes.Kinds, gwv1.RouteGroupKind{Kind: gwv1.Kind(k)})
		}
	}
}

// parent is a parentRef to a Gateway; ns "" leaves the namespace unset.
func parent(ns, name string) gwv1.ParentReference {
	p := gwv1.ParentReference{Name: gwv1.ObjectName(name)}
	if ns != "" {
		p.Namespace = ptr(gwv1.Namespace(ns))
	}
	return p
}

func withSection(p gwv1.ParentReference, s string) gwv1.ParentReference {
	p.SectionName = ptr(gwv1.SectionName(s))
	return p
}

func withPort(p gwv1.ParentReference, port gwv1.PortNumber) gwv1.ParentReference {
	p.Port = ptr(port)
	return p
}

// backend is a backendRef to a Service; ns "" leaves the namespace unset.
func backend(ns, name string) gwv1.BackendObjectReference {
	b := gwv1.BackendObjectReference{Name: gwv1.ObjectName(name), Port: ptr(gwv1.PortNumber(80))}
	if ns != "" {
		b.Namespace = ptr(gwv1.Namespace(ns))
	}
	return b
}

// rule is a route rule: a name ("" for none) and its backends.
type rule struct {
	name     string
	backends []gwv1.BackendObjectReference
}

func httpRoute(ns, name string, parents []gwv1.ParentReference, hostnames []string, rules ...rule) *gwv1.HTTPRoute {
	r := &gwv1.HTTPRoute{ObjectMeta: meta(ns, name)}
	r.Spec.ParentRefs = parents
	for _, h := range hostnames {
		r.Spec.Hostnames = append(r.Spec.Hostnames, gwv1.Hostname(h))
	}
	for _, ru := range rules {
		x := gwv1.HTTPRouteRule{}
		if ru.name != "" {
			x.Name = ptr(gwv1.SectionName(ru.name))
		}
		for _, b := range ru.backends {
			x.BackendRefs = append(x.BackendRefs, gwv1.HTTPBackendRef{BackendRef: gwv1.BackendRef{BackendObjectReference: b}})
		}
		r.Spec.Rules = append(r.Spec.Rules, x)
	}
	return r
}

func tcpRoute(ns, name string, parents ...gwv1.ParentReference) *gwv1.TCPRoute {
	r := &gwv1.TCPRoute{ObjectMeta: meta(ns, name)}
	r.Spec.ParentRefs = parents
	r.Spec.Rules = []gwv1.TCPRouteRule{{}}
	return r
}

func tlsRoute(ns, name string, parents ...gwv1.ParentReference) *gwv1.TLSRoute {
	r := &gwv1.TLSRoute{ObjectMeta: meta(ns, name)}
	r.Spec.ParentRefs = parents
	r.Spec.Rules = []gwv1.TLSRouteRule{{}}
	return r
}

func grpcRoute(ns, name string, parents ...gwv1.ParentReference) *gwv1.GRPCRoute {
	r := &gwv1.GRPCRoute{ObjectMeta: meta(ns, name)}
	r.Spec.ParentRefs = parents
	r.Spec.Rules = []gwv1.GRPCRouteRule{{}}
	return r
}

func service(ns, name string, ports ...string) *corev1.Service {
	s := &corev1.Service{ObjectMeta: meta(ns, name)}
	for i, p := range ports {
		s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: p, Port: int32(8080 + i)})
	}
	return s
}

// grant lets fromKind objects in fromNS refer to Services in ns (named
// toName when not "").
func grant(ns, fromKind, fromNS, toName string) *gwv1b1.ReferenceGrant {
	rg := &gwv1b1.ReferenceGrant{ObjectMeta: meta(ns, "grant")}
	rg.Spec.From = []gwv1.ReferenceGrantFrom{{Group: hierarchy.GatewayGroup, Kind: gwv1.Kind(fromKind), Namespace: gwv1.Namespace(fromNS)}}
	to := gwv1.ReferenceGrantTo{Group: "", Kind: "Service"}
	if toName != "" {
		to.Name = ptr(gwv1.ObjectName(toName))
	}
	rg.Spec.To = []gwv1.ReferenceGrantTo{to}
	return rg
}

// Refs of nodes, written as in GEP-713 discussions.

func gwRef(ns, name, section string) topology.Ref {
	return topology.Ref{Group: hierarchy.GatewayGroup, Kind: "Gateway", Namespace: ns, Name: name, Section: section}
}

func routeRef(kind, ns, name, section string) topology.Ref {
	return topology.Ref{Group: hierarchy.GatewayGroup, Kind: kind, Namespace: ns, Name: name, Section: section}
}

func svcRef(ns, name, section string) topology.Ref {
	return topology.Ref{Kind: "Service", Namespace: ns, Name: name, Section: section}
}

// mustLookup finds the node of r or fails the test.
func mustLookup(t *testing.T, g *topology.Graph, r topology.Ref) topology.NodeID {
	t.Helper()
	id := g.Lookup(r)
	if id == topology.None {
		t.Fatalf("no node %s", r.Key())
	}
	return id
}

// keys returns the locators of ids, sorted.
func keys(g *topology.Graph, ids []topology.NodeID) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		out = append(out, g.Node(id).Ref.Key())
	}
	slices.Sort(out)
	return out
}

func parentKeys(t *testing.T, g *topology.Graph, r topology.Ref) []string {
	t.Helper()
	return keys(g, g.Node(mustLookup(t, g, r)).Parents)
}

func listenerKeys(ns, gw string, sections ...string) []string {
	out := make([]string, 0, len(sections))
	for _, s := range sections {
		out = append(out, gwRef(ns, gw, s).Key())
	}
	slices.Sort(out)
	return out
}

func sameKeys(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || slices.Equal(a, b))
}

// TestBuildRouteAttachment checks which listeners a route attaches to
// (Gateway API: parentRef sectionName and port, allowedRoutes namespaces
// and kinds, hostname intersection).
func TestBuildRouteAttachment(t *testing.T) {
	http := func(name string, opts ...listenerOpt) gwv1.Listener {
		return listener(name, gwv1.HTTPProtocolType, 80, opts...)
	}
	tests := []struct {
		name  string
		snap  snapshot.Snapshot
		route topology.Ref
		want  []string // listener locators the route hangs under
	}{
		{
			name: "no sectionName or port: every listener",
			snap: snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a"), listener("b", gwv1.HTTPProtocolType, 8080))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("infra", "r", []gwv1.ParentReference{parent("", "gw")}, nil)},
			},
			route: routeRef("HTTPRoute", "infra", "r", ""),
			want:  listenerKeys("infra", "gw", "a", "b"),
		},
		{
			name: "sectionName picks one listener",
			snap: snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a"), http("b"))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("infra", "r", []gwv1.ParentReference{withSection(parent("", "gw"), "b")}, nil)},
			},
			route: routeRef("HTTPRoute", "infra", "r", ""),
			want:  listenerKeys("infra", "gw", "b"),
		},
		{
			name: "sectionName of no listener: not attached",
			snap: snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a"))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("infra", "r", []gwv1.ParentReference{withSection(parent("", "gw"), "nope")}, nil)},
			},
			route: routeRef("HTTPRoute", "infra", "r", ""),
		},
		{
			name: "port picks the listeners on that port",
			snap: snapshot.Snapshot{
				Gateways: []*gwv1.Gateway{gateway("infra", "gw", "gc",
					listener("a", gwv1.HTTPProtocolType, 80, host("a.example.com")),
					listener("b", gwv1.HTTPProtocolType, 80, host("b.example.com")),
					listener("c", gwv1.HTTPProtocolType, 8080))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("infra", "r", []gwv1.ParentReference{withPort(parent("", "gw"), 80)}, nil)},
			},
			route: routeRef("HTTPRoute", "infra", "r", ""),
			want:  listenerKeys("infra", "gw", "a", "b"),
		},
		{
			name: "sectionName and port must both match",
			snap: snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a"), listener("b", gwv1.HTTPProtocolType, 8080))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("infra", "r", []gwv1.ParentReference{withPort(withSection(parent("", "gw"), "a"), 8080)}, nil)},
			},
			route: routeRef("HTTPRoute", "infra", "r", ""),
		},
		{
			name: "two parentRefs to two listeners",
			snap: snapshot.Snapshot{
				Gateways: []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a"), http("b"), http("c"))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("infra", "r", []gwv1.ParentReference{
					withSection(parent("", "gw"), "a"), withSection(parent("infra", "gw"), "c")}, nil)},
			},
			route: routeRef("HTTPRoute", "infra", "r", ""),
			want:  listenerKeys("infra", "gw", "a", "c"),
		},
		{
			name: "parentRef to a missing Gateway: not attached",
			snap: snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a"))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("infra", "r", []gwv1.ParentReference{parent("", "other")}, nil)},
			},
			route: routeRef("HTTPRoute", "infra", "r", ""),
		},
		{
			name: "parentRef namespace defaults to the route's: no Gateway there",
			snap: snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a", allowFrom(gwv1.NamespacesFromAll, nil)))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("app", "r", []gwv1.ParentReference{parent("", "gw")}, nil)},
			},
			route: routeRef("HTTPRoute", "app", "r", ""),
		},
		{
			name: "from Same by default: route of another namespace refused",
			snap: snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a"))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("app", "r", []gwv1.ParentReference{parent("infra", "gw")}, nil)},
			},
			route: routeRef("HTTPRoute", "app", "r", ""),
		},
		{
			name: "from Same explicitly: same namespace accepted",
			snap: snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a", allowFrom(gwv1.NamespacesFromSame, nil)))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("infra", "r", []gwv1.ParentReference{parent("infra", "gw")}, nil)},
			},
			route: routeRef("HTTPRoute", "infra", "r", ""),
			want:  listenerKeys("infra", "gw", "a"),
		},
		{
			name: "from All: route of another namespace accepted",
			snap: snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a", allowFrom(gwv1.NamespacesFromAll, nil)), http("b"))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("app", "r", []gwv1.ParentReference{parent("infra", "gw")}, nil)},
			},
			route: routeRef("HTTPRoute", "app", "r", ""),
			want:  listenerKeys("infra", "gw", "a"),
		},
		{
			name: "from Selector: namespace labels match",
			snap: snapshot.Snapshot{
				Namespaces: []*corev1.Namespace{namespace("app", map[string]string{"team": "a"})},
				Gateways: []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a",
					allowFrom(gwv1.NamespacesFromSelector, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}})))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("app", "r", []gwv1.ParentReference{parent("infra", "gw")}, nil)},
			},
			route: routeRef("HTTPRoute", "app", "r", ""),
			want:  listenerKeys("infra", "gw", "a"),
		},
		{
			name: "from Selector: namespace labels differ",
			snap: snapshot.Snapshot{
				Namespaces: []*corev1.Namespace{namespace("app", map[string]string{"team": "b"})},
				Gateways: []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a",
					allowFrom(gwv1.NamespacesFromSelector, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}})))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("app", "r", []gwv1.ParentReference{parent("infra", "gw")}, nil)},
			},
			route: routeRef("HTTPRoute", "app", "r", ""),
		},
		{
			name: "from Selector: matchExpressions",
			snap: snapshot.Snapshot{
				Namespaces: []*corev1.Namespace{namespace("app", map[string]string{"env": "prod"})},
				Gateways: []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a",
					allowFrom(gwv1.NamespacesFromSelector, &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
						{Key: "env", Operator: metav1.LabelSelectorOpIn, Values: []string{"prod", "staging"}}}})))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("app", "r", []gwv1.ParentReference{parent("infra", "gw")}, nil)},
			},
			route: routeRef("HTTPRoute", "app", "r", ""),
			want:  listenerKeys("infra", "gw", "a"),
		},
		{
			name: "from Selector: namespace without a Namespace object has no labels",
			snap: snapshot.Snapshot{
				Gateways: []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a",
					allowFrom(gwv1.NamespacesFromSelector, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}})))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("app", "r", []gwv1.ParentReference{parent("infra", "gw")}, nil)},
			},
			route: routeRef("HTTPRoute", "app", "r", ""),
		},
		{
			name: "from Selector without a selector: nothing accepted",
			snap: snapshot.Snapshot{
				Namespaces: []*corev1.Namespace{namespace("app", map[string]string{"team": "a"})},
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a", allowFrom(gwv1.NamespacesFromSelector, nil)))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("app", "r", []gwv1.ParentReference{parent("infra", "gw")}, nil)},
			},
			route: routeRef("HTTPRoute", "app", "r", ""),
		},
		{
			name: "HTTP listener refuses a TCPRoute",
			snap: snapshot.Snapshot{
				Gateways:  []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a"))},
				TCPRoutes: []*gwv1.TCPRoute{tcpRoute("infra", "r", parent("", "gw"))},
			},
			route: routeRef("TCPRoute", "infra", "r", ""),
		},
		{
			name: "TCP listener takes a TCPRoute",
			snap: snapshot.Snapshot{
				Gateways:  []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a"), listener("tcp", gwv1.TCPProtocolType, 5432))},
				TCPRoutes: []*gwv1.TCPRoute{tcpRoute("infra", "r", parent("", "gw"))},
			},
			route: routeRef("TCPRoute", "infra", "r", ""),
			want:  listenerKeys("infra", "gw", "tcp"),
		},
		{
			name: "TCP listener refuses an HTTPRoute",
			snap: snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", listener("tcp", gwv1.TCPProtocolType, 5432))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("infra", "r", []gwv1.ParentReference{parent("", "gw")}, nil)},
			},
			route: routeRef("HTTPRoute", "infra", "r", ""),
		},
		{
			name: "HTTP listener takes a GRPCRoute by default",
			snap: snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a"))},
				GRPCRoutes: []*gwv1.GRPCRoute{grpcRoute("infra", "r", parent("", "gw"))},
			},
			route: routeRef("GRPCRoute", "infra", "r", ""),
			want:  listenerKeys("infra", "gw", "a"),
		},
		{
			name: "TLS listener takes a TLSRoute",
			snap: snapshot.Snapshot{
				Gateways:  []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a"), listener("tls", gwv1.TLSProtocolType, 443))},
				TLSRoutes: []*gwv1.TLSRoute{tlsRoute("infra", "r", parent("", "gw"))},
			},
			route: routeRef("TLSRoute", "infra", "r", ""),
			want:  listenerKeys("infra", "gw", "tls"),
		},
		{
			name: "allowedRoutes.kinds replaces the protocol's defaults",
			snap: snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http("grpc-only", allowKinds("GRPCRoute")), http("a"))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("infra", "r", []gwv1.ParentReference{parent("", "gw")}, nil)},
			},
			route: routeRef("HTTPRoute", "infra", "r", ""),
			want:  listenerKeys("infra", "gw", "a"),
		},
		{
			name: "hostname: exact match",
			snap: snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a", host("a.example.com")), http("b", host("b.example.com")))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("infra", "r", []gwv1.ParentReference{parent("", "gw")}, []string{"a.example.com"})},
			},
			route: routeRef("HTTPRoute", "infra", "r", ""),
			want:  listenerKeys("infra", "gw", "a"),
		},
		{
			name: "hostname: wildcard listener matches a subdomain, not the apex",
			snap: snapshot.Snapshot{
				Gateways: []*gwv1.Gateway{gateway("infra", "gw", "gc", http("w", host("*.example.com")))},
				HTTPRoutes: []*gwv1.HTTPRoute{
					httpRoute("infra", "sub", []gwv1.ParentReference{parent("", "gw")}, []string{"foo.bar.example.com"}),
					httpRoute("infra", "apex", []gwv1.ParentReference{parent("", "gw")}, []string{"example.com"}),
				},
			},
			route: routeRef("HTTPRoute", "infra", "sub", ""),
			want:  listenerKeys("infra", "gw", "w"),
		},
		{
			name: "hostname: wildcard listener does not take the apex",
			snap: snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http("w", host("*.example.com")))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("infra", "apex", []gwv1.ParentReference{parent("", "gw")}, []string{"example.com"})},
			},
			route: routeRef("HTTPRoute", "infra", "apex", ""),
		},
		{
			name: "hostname: wildcard route matches an exact listener",
			snap: snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a", host("a.example.com")), http("other", host("a.example.org")))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("infra", "r", []gwv1.ParentReference{parent("", "gw")}, []string{"*.example.com"})},
			},
			route: routeRef("HTTPRoute", "infra", "r", ""),
			want:  listenerKeys("infra", "gw", "a"),
		},
		{
			name: "hostname: two wildcards intersect when one suffixes the other",
			snap: snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http("w", host("*.example.com")), http("x", host("*.example.org")))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("infra", "r", []gwv1.ParentReference{parent("", "gw")}, []string{"*.foo.example.com"})},
			},
			route: routeRef("HTTPRoute", "infra", "r", ""),
			want:  listenerKeys("infra", "gw", "w"),
		},
		{
			name: "hostname: no overlap",
			snap: snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a", host("a.example.com")))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("infra", "r", []gwv1.ParentReference{parent("", "gw")}, []string{"b.example.com", "a.example.org"})},
			},
			route: routeRef("HTTPRoute", "infra", "r", ""),
		},
		{
			name: "hostname: a label suffix is not a domain suffix",
			snap: snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http("w", host("*.example.com")))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("infra", "r", []gwv1.ParentReference{parent("", "gw")}, []string{"fooexample.com"})},
			},
			route: routeRef("HTTPRoute", "infra", "r", ""),
		},
		{
			name: "hostname: one of several route hostnames is enough",
			snap: snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a", host("a.example.com")))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("infra", "r", []gwv1.ParentReference{parent("", "gw")}, []string{"b.example.com", "a.example.com"})},
			},
			route: routeRef("HTTPRoute", "infra", "r", ""),
			want:  listenerKeys("infra", "gw", "a"),
		},
		{
			name: "hostname: route without hostnames takes any listener",
			snap: snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http("a", host("a.example.com")), http("any"))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("infra", "r", []gwv1.ParentReference{parent("", "gw")}, nil)},
			},
			route: routeRef("HTTPRoute", "infra", "r", ""),
			want:  listenerKeys("infra", "gw", "a", "any"),
		},
		{
			name: "hostname: listener without hostname takes any route",
			snap: snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("infra", "gw", "gc", http("any"))},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("infra", "r", []gwv1.ParentReference{parent("", "gw")}, []string{"x.example.net"})},
			},
			route: routeRef("HTTPRoute", "infra", "r", ""),
			want:  listenerKeys("infra", "gw", "any"),
		},
		{
			name: "hostname: ignored for TCPRoute",
			snap: snapshot.Snapshot{
				Gateways:  []*gwv1.Gateway{gateway("infra", "gw", "gc", listener("tcp", gwv1.TCPProtocolType, 5432, host("db.example.com")))},
				TCPRoutes: []*gwv1.TCPRoute{tcpRoute("infra", "r", parent("", "gw"))},
			},
			route: routeRef("TCPRoute", "infra", "r", ""),
			want:  listenerKeys("infra", "gw", "tcp"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := topology.Build(&tc.snap)
			if got := parentKeys(t, g, tc.route); !sameKeys(got, tc.want) {
				t.Errorf("parents of %s:\n got %q\nwant %q", tc.route.Key(), got, tc.want)
			}
			if len(g.Problems) > 0 {
				t.Errorf("unexpected problems: %v", g.Problems)
			}
		})
	}
}

func TestBuildRuleSections(t *testing.T) {
	tests := []struct {
		name  string
		rules []rule
		want  []string // section names of the route
	}{
		{name: "unnamed rules are rule-<index>", rules: []rule{{}, {}}, want: []string{"rule-0", "rule-1"}},
		{name: "named rules keep their names", rules: []rule{{name: "login"}, {name: "api"}}, want: []string{"api", "login"}},
		{name: "mixed: the index counts named rules too", rules: []rule{{name: "login"}, {}}, want: []string{"login", "rule-1"}},
		{name: "no rules, no sections", rules: nil, want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := topology.Build(&snapshot.Snapshot{HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("ns", "r", nil, nil, tc.rules...)}})
			rid := mustLookup(t, g, routeRef("HTTPRoute", "ns", "r", ""))
			n := g.Node(rid)
			var got []string
			for _, s := range n.Sections {
				name, sid := s.Name, s.Node
				got = append(got, name)
				sec := g.Node(sid)
				if sec.Ref != routeRef("HTTPRoute", "ns", "r", name) {
					t.Errorf("section %q has ref %s", name, sec.Ref.Key())
				}
				if sec.Level != hierarchy.LevelRule {
					t.Errorf("section %q level %d, want %d", name, sec.Level, hierarchy.LevelRule)
				}
				if !slices.Equal(sec.Parents, []topology.NodeID{rid}) {
					t.Errorf("section %q parents %v, want [%d]", name, sec.Parents, rid)
				}
			}
			slices.Sort(got)
			if !sameKeys(got, tc.want) {
				t.Errorf("sections %q, want %q", got, tc.want)
			}
			if len(n.Children) != len(tc.want) {
				t.Errorf("route has %d children, want %d", len(n.Children), len(tc.want))
			}
			if len(g.Problems) > 0 {
				t.Errorf("unexpected problems: %v", g.Problems)
			}
		})
	}
	// The first names are made once, the others on demand: both alike.
	for _, i := range []int{0, 12, 63, 64, 1000} {
		if got, want := topology.GeneratedRuleName(i), fmt.Sprintf("rule-%d", i); got != want {
			t.Errorf("GeneratedRuleName(%d) = %q, want %q", i, got, want)
		}
	}
}

func TestBuildDuplicates(t *testing.T) {
	tests := []struct {
		name      string
		snap      snapshot.Snapshot
		object    topology.Ref
		ambiguous []string
		problems  []string // "locator field" of each problem, sorted
	}{
		{
			name: "duplicate listener name",
			snap: snapshot.Snapshot{Gateways: []*gwv1.Gateway{gateway("infra", "gw", "gc",
				listener("a", gwv1.HTTPProtocolType, 80), listener("b", gwv1.HTTPProtocolType, 81), listener("a", gwv1.HTTPProtocolType, 82))}},
			object:    gwRef("infra", "gw", ""),
			ambiguous: []string{"a"},
			problems:  []string{gwRef("infra", "gw", "").Key() + " spec.listeners[2].name"},
		},
		{
			name:      "duplicate rule name",
			snap:      snapshot.Snapshot{HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("ns", "r", nil, nil, rule{name: "x"}, rule{name: "x"})}},
			object:    routeRef("HTTPRoute", "ns", "r", ""),
			ambiguous: []string{"x"},
			problems:  []string{routeRef("HTTPRoute", "ns", "r", "").Key() + " spec.rules[1].name"},
		},
		{
			name:      "explicit name equal to a generated one",
			snap:      snapshot.Snapshot{HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("ns", "r", nil, nil, rule{}, rule{name: "rule-0"})}},
			object:    routeRef("HTTPRoute", "ns", "r", ""),
			ambiguous: []string{"rule-0"},
			problems:  []string{routeRef("HTTPRoute", "ns", "r", "").Key() + " spec.rules[1].name"},
		},
		{
			name:   "duplicate Service port name",
			snap:   snapshot.Snapshot{Services: []*corev1.Service{service("ns", "s", "http", "http", "")}},
			object: svcRef("ns", "s", ""), ambiguous: []string{"http"},
			problems: []string{svcRef("ns", "s", "").Key() + " spec.ports[1].name"},
		},
		{
			name: "object given twice: the first one is kept",
			snap: snapshot.Snapshot{Gateways: []*gwv1.Gateway{
				gateway("infra", "gw", "gc", listener("a", gwv1.HTTPProtocolType, 80)),
				gateway("infra", "gw", "gc", listener("b", gwv1.HTTPProtocolType, 80)),
			}},
			object:   gwRef("infra", "gw", ""),
			problems: []string{gwRef("infra", "gw", "").Key() + " metadata.name"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := topology.Build(&tc.snap)
			n := g.Node(mustLookup(t, g, tc.object))
			var amb []string
			for name, yes := range n.Ambiguous {
				if yes {
					amb = append(amb, name)
				}
				if _, ok := n.Sections.Get(name); !ok {
					t.Errorf("ambiguous section %q has no node", name)
				}
			}
			slices.Sort(amb)
			if !sameKeys(amb, tc.ambiguous) {
				t.Errorf("ambiguous %q, want %q", amb, tc.ambiguous)
			}
			var probs []string
			for _, p := range g.Problems {
				probs = append(probs, p.Object.Key()+" "+p.Field)
				if p.Message == "" || !strings.Contains(p.Error(), p.Field) {
					t.Errorf("problem %v: want a message naming the field", p)
				}
			}
			if !sameKeys(probs, tc.problems) {
				t.Errorf("problems %q, want %q", probs, tc.problems)
			}
		})
	}

	t.Run("first duplicate object wins", func(t *testing.T) {
		first := gateway("infra", "gw", "gc", listener("a", gwv1.HTTPProtocolType, 80))
		g := topology.Build(&snapshot.Snapshot{Gateways: []*gwv1.Gateway{first, gateway("infra", "gw", "gc", listener("b", gwv1.HTTPProtocolType, 80))}})
		n := g.Node(mustLookup(t, g, gwRef("infra", "gw", "")))
		if n.Object != first {
			t.Errorf("Object is not the first Gateway")
		}
		if g.Lookup(gwRef("infra", "gw", "b")) != topology.None {
			t.Errorf("listener of the ignored duplicate was added")
		}
	})
	t.Run("problem message names the section kind", func(t *testing.T) {
		g := topology.Build(&snapshot.Snapshot{Gateways: []*gwv1.Gateway{gateway("infra", "gw", "gc",
			listener("a", gwv1.HTTPProtocolType, 80), listener("a", gwv1.HTTPProtocolType, 81))}})
		if len(g.Problems) != 1 || g.Problems[0].Message != `duplicate listener name "a"` {
			t.Errorf("problems = %v", g.Problems)
		}
	})
}

func TestBuildBackends(t *testing.T) {
	route := func(be gwv1.BackendObjectReference) *gwv1.HTTPRoute {
		return httpRoute("app", "r", nil, nil, rule{backends: []gwv1.BackendObjectReference{be}})
	}
	rg := func(mut func(*gwv1b1.ReferenceGrant)) []*gwv1b1.ReferenceGrant {
		g := grant("db", "HTTPRoute", "app", "")
		if mut != nil {
			mut(g)
		}
		return []*gwv1b1.ReferenceGrant{g}
	}
	tests := []struct {
		name    string
		backend gwv1.BackendObjectReference
		grants  []*gwv1b1.ReferenceGrant
		want    []string // services the rule links to
	}{
		{name: "same namespace", backend: backend("", "local"), want: []string{svcRef("app", "local", "").Key()}},
		{name: "same namespace spelled out", backend: backend("app", "local"), want: []string{svcRef("app", "local", "").Key()}},
		{name: "missing Service", backend: backend("", "nope")},
		{name: "other namespace without a grant", backend: backend("db", "pg")},
		{name: "other namespace with a grant", backend: backend("db", "pg"), grants: rg(nil), want: []string{svcRef("db", "pg", "").Key()}},
		{name: "grant naming this Service", backend: backend("db", "pg"),
			grants: rg(func(g *gwv1b1.ReferenceGrant) { g.Spec.To[0].Name = ptr(gwv1.ObjectName("pg")) }),
			want:   []string{svcRef("db", "pg", "").Key()}},
		{name: "grant naming another Service", backend: backend("db", "pg"),
			grants: rg(func(g *gwv1b1.ReferenceGrant) { g.Spec.To[0].Name = ptr(gwv1.ObjectName("other")) })},
		{name: "grant from another kind", backend: backend("db", "pg"),
			grants: rg(func(g *gwv1b1.ReferenceGrant) { g.Spec.From[0].Kind = "GRPCRoute" })},
		{name: "grant from another namespace", backend: backend("db", "pg"),
			grants: rg(func(g *gwv1b1.ReferenceGrant) { g.Spec.From[0].Namespace = "elsewhere" })},
		{name: "grant to another kind", backend: backend("db", "pg"),
			grants: rg(func(g *gwv1b1.ReferenceGrant) { g.Spec.To[0].Kind = "Secret" })},
		{name: "grant in the wrong namespace", backend: backend("db", "pg"),
			grants: rg(func(g *gwv1b1.ReferenceGrant) { g.Namespace = "app" })},
		{name: "second grant entry matches", backend: backend("db", "pg"),
			grants: rg(func(g *gwv1b1.ReferenceGrant) {
				g.Spec.From = append([]gwv1.ReferenceGrantFrom{{Group: hierarchy.GatewayGroup, Kind: "TCPRoute", Namespace: "app"}}, g.Spec.From...)
			}),
			want: []string{svcRef("db", "pg", "").Key()}},
		{name: "non-Service backend kind ignored", backend: func() gwv1.BackendObjectReference {
			b := backend("", "local")
			b.Group = ptr(gwv1.Group("example.com"))
			b.Kind = ptr(gwv1.Kind("Bucket"))
			return b
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := topology.Build(&snapshot.Snapshot{
				HTTPRoutes:      []*gwv1.HTTPRoute{route(tc.backend)},
				Services:        []*corev1.Service{service("app", "local"), service("db", "pg"), service("db", "other")},
				ReferenceGrants: tc.grants,
			})
			rule := g.Node(mustLookup(t, g, routeRef("HTTPRoute", "app", "r", "rule-0")))
			if got := keys(g, rule.Children); !sameKeys(got, tc.want) {
				t.Errorf("rule children %q, want %q", got, tc.want)
			}
		})
	}
}

func TestBuildGatewayClass(t *testing.T) {
	g := topology.Build(&snapshot.Snapshot{
		GatewayClasses: []*gwv1.GatewayClass{gatewayClass("gc")},
		Gateways: []*gwv1.Gateway{
			gateway("infra", "with-class", "gc"),
			gateway("infra", "orphan", "missing"),
		},
	})
	gc := mustLookup(t, g, topology.Ref{Group: hierarchy.GatewayGroup, Kind: "GatewayClass", Name: "gc"})
	if n := g.Node(gc); n.Namespace != topology.None || n.Level != hierarchy.LevelGatewayClass || len(n.Parents) != 0 {
		t.Errorf("GatewayClass node %+v: want a cluster-scoped root", n)
	}
	if got, want := parentKeys(t, g, gwRef("infra", "with-class", "")), keys(g, []topology.NodeID{gc}); !slices.Equal(got, want) {
		t.Errorf("parents of with-class %q, want %q", got, want)
	}
	orphan := mustLookup(t, g, gwRef("infra", "orphan", ""))
	if p := g.Node(orphan).Parents; len(p) != 0 {
		t.Errorf("Gateway of a missing class has parents %v; want a root", p)
	}
	var paths [][]topology.NodeID
	g.Ancestors(orphan, func(p []topology.NodeID) { paths = append(paths, slices.Clone(p)) })
	if len(paths) != 1 || !slices.Equal(paths[0], []topology.NodeID{orphan}) {
		t.Errorf("Ancestors(orphan) = %v", paths)
	}
	if len(g.Problems) != 0 {
		t.Errorf("problems %v", g.Problems)
	}
}

func TestBuildParentKinds(t *testing.T) {
	tests := []struct {
		name   string
		parent gwv1.ParentReference
		want   []string // problem fields
	}{
		{name: "mesh Service parent with sectionName", parent: gwv1.ParentReference{Group: ptr(gwv1.Group("")), Kind: ptr(gwv1.Kind("Service")), Name: "svc", SectionName: ptr(gwv1.SectionName("http"))}, want: []string{"spec.parentRefs[1].sectionName"}},
		{name: "mesh Service parent, port it lacks", parent: gwv1.ParentReference{Group: ptr(gwv1.Group("")), Kind: ptr(gwv1.Kind("Service")), Name: "svc", Port: ptr(gwv1.PortNumber(9))}, want: []string{"spec.parentRefs[1].port"}},
		{name: "core kind other than Service", parent: gwv1.ParentReference{Group: ptr(gwv1.Group("")), Kind: ptr(gwv1.Kind("Pod")), Name: "svc"}, want: []string{"spec.parentRefs[1]"}},
		{name: "other group", parent: gwv1.ParentReference{Group: ptr(gwv1.Group("example.com")), Kind: ptr(gwv1.Kind("Gateway")), Name: "gw"}, want: []string{"spec.parentRefs[1]"}},
		{name: "explicit Gateway", parent: gwv1.ParentReference{Group: ptr(gwv1.Group(hierarchy.GatewayGroup)), Kind: ptr(gwv1.Kind("Gateway")), Name: "gw"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := topology.Build(&snapshot.Snapshot{
				Gateways:   []*gwv1.Gateway{gateway("ns", "gw", "gc", listener("a", gwv1.HTTPProtocolType, 80))},
				Services:   []*corev1.Service{service("ns", "svc")},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("ns", "r", []gwv1.ParentReference{parent("", "gw"), tc.parent}, nil)},
			})
			var got []string
			for _, p := range g.Problems {
				if p.Object != routeRef("HTTPRoute", "ns", "r", "") {
					t.Errorf("problem about %s", p.Object.Key())
				}
				got = append(got, p.Field)
			}
			if !sameKeys(got, tc.want) {
				t.Errorf("problem fields %q, want %q", got, tc.want)
			}
			// The Gateway parentRef still attaches; the other is ignored.
			if got, want := parentKeys(t, g, routeRef("HTTPRoute", "ns", "r", "")), listenerKeys("ns", "gw", "a"); !slices.Equal(got, want) {
				t.Errorf("parents %q, want %q", got, want)
			}
		})
	}
}

// fullSnapshot is one of everything: a route in app attached to two
// listeners of a Gateway in infra, sending to a Service in app with a
// named port.
func fullSnapshot() *snapshot.Snapshot {
	return &snapshot.Snapshot{
		Namespaces:     []*corev1.Namespace{namespace("infra", map[string]string{"role": "infra"}), namespace("app", nil)},
		GatewayClasses: []*gwv1.GatewayClass{gatewayClass("gc")},
		Gateways: []*gwv1.Gateway{gateway("infra", "gw", "gc",
			listener("http", gwv1.HTTPProtocolType, 80, allowFrom(gwv1.NamespacesFromAll, nil)),
			listener("https", gwv1.HTTPSProtocolType, 443, allowFrom(gwv1.NamespacesFromAll, nil)),
			listener("private", gwv1.HTTPProtocolType, 8080))},
		HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("app", "r", []gwv1.ParentReference{parent("infra", "gw")}, nil,
			rule{name: "main", backends: []gwv1.BackendObjectReference{backend("", "svc")}})},
		Services: []*corev1.Service{service("app", "svc", "web")},
	}
}

func TestAncestors(t *testing.T) {
	g := topology.Build(fullSnapshot())
	gc := topology.Ref{Group: hierarchy.GatewayGroup, Kind: "GatewayClass", Name: "gc"}
	chain := func(listenerName string, tail ...topology.Ref) []string {
		refs := append([]topology.Ref{gc, gwRef("infra", "gw", ""), gwRef("infra", "gw", listenerName),
			routeRef("HTTPRoute", "app", "r", ""), routeRef("HTTPRoute", "app", "r", "main")}, tail...)
		out := make([]string, len(refs))
		for i, r := range refs {
			out[i] = r.Key()
		}
		return out
	}
	tests := []struct {
		name   string
		target topology.Ref
		want   [][]string
	}{
		{name: "Service: one path per listener", target: svcRef("app", "svc", ""), want: [][]string{
			chain("http", svcRef("app", "svc", "")), chain("https", svcRef("app", "svc", ""))}},
		{name: "Service port", target: svcRef("app", "svc", "web"), want: [][]string{
			chain("http", svcRef("app", "svc", ""), svcRef("app", "svc", "web")),
			chain("https", svcRef("app", "svc", ""), svcRef("app", "svc", "web"))}},
		{name: "route", target: routeRef("HTTPRoute", "app", "r", ""), want: [][]string{chain("http")[:4], chain("https")[:4]}},
		{name: "listener not taking the route", target: gwRef("infra", "gw", "private"), want: [][]string{{gc.Key(), gwRef("infra", "gw", "").Key(), gwRef("infra", "gw", "private").Key()}}},
		{name: "root", target: gc, want: [][]string{{gc.Key()}}},
		{name: "namespace is no parent", target: topology.Ref{Kind: "Namespace", Name: "app"}, want: [][]string{{topology.Ref{Kind: "Namespace", Name: "app"}.Key()}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got [][]string
			g.Ancestors(mustLookup(t, g, tc.target), func(path []topology.NodeID) {
				var p []string
				for _, id := range path {
					p = append(p, g.Node(id).Ref.Key())
				}
				got = append(got, p)
			})
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("paths:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestNamespaces(t *testing.T) {
	s := fullSnapshot()
	s.Services = append(s.Services, service("db", "pg"))
	s.ReferenceGrants = []*gwv1b1.ReferenceGrant{grant("db", "HTTPRoute", "app", "pg")}
	s.HTTPRoutes[0].Spec.Rules[0].BackendRefs = append(s.HTTPRoutes[0].Spec.Rules[0].BackendRefs,
		gwv1.HTTPBackendRef{BackendRef: gwv1.BackendRef{BackendObjectReference: backend("db", "pg")}})
	g := topology.Build(s)
	nsKey := func(ns string) string { return topology.Ref{Kind: "Namespace", Name: ns}.Key() }
	tests := []struct {
		name   string
		target topology.Ref
		want   []string
	}{
		{name: "cross-namespace path", target: svcRef("db", "pg", ""), want: []string{nsKey("infra"), nsKey("app"), nsKey("db")}},
		{name: "same namespace twice listed once", target: svcRef("app", "svc", "web"), want: []string{nsKey("infra"), nsKey("app")}},
		{name: "cluster-scoped only", target: topology.Ref{Group: hierarchy.GatewayGroup, Kind: "GatewayClass", Name: "gc"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			g.Ancestors(mustLookup(t, g, tc.target), func(path []topology.NodeID) {
				n++
				var got []string
				for _, id := range g.Namespaces(path) {
					got = append(got, g.Node(id).Ref.Key())
				}
				if !sameKeys(got, tc.want) {
					t.Errorf("Namespaces(%v) = %q, want %q", path, got, tc.want)
				}
			})
			if n == 0 {
				t.Errorf("no path")
			}
		})
	}
	t.Run("implicit namespace node without an object", func(t *testing.T) {
		id := mustLookup(t, g, topology.Ref{Kind: "Namespace", Name: "db"})
		if n := g.Node(id); n.Object != nil || n.Level != hierarchy.LevelNamespace || len(n.Parents)+len(n.Children) != 0 {
			t.Errorf("implicit namespace node %+v", n)
		}
		if got := g.ByKind(hierarchy.NamespaceKind); len(got) != 3 {
			t.Errorf("namespace nodes %v, want 3", keys(g, got))
		}
	})
	t.Run("Namespace object labels", func(t *testing.T) {
		n := g.Node(mustLookup(t, g, topology.Ref{Kind: "Namespace", Name: "infra"}))
		if n.Labels["role"] != "infra" || n.Object == nil {
			t.Errorf("namespace node %+v", n)
		}
	})
}

// checkDAG asserts the graph invariants: every edge goes from a lower
// Level to a strictly higher one (so there is no cycle), Parents and
// Children mirror each other, both sorted without duplicates, and every
// node is found by its ref.
func checkDAG(t *testing.T, g *topology.Graph) (edges int) {
	t.Helper()
	for i := range g.Nodes {
		id := topology.NodeID(i)
		n := g.Node(id)
		if got := g.Lookup(n.Ref); got != id {
			t.Errorf("Lookup(%s) = %d, want %d", n.Ref.Key(), got, id)
		}
		if !slices.IsSorted(n.Children) || len(slices.Compact(slices.Clone(n.Children))) != len(n.Children) {
			t.Errorf("%s: children %v not sorted and unique", n.Ref.Key(), n.Children)
		}
		if !slices.IsSorted(n.Parents) || len(slices.Compact(slices.Clone(n.Parents))) != len(n.Parents) {
			t.Errorf("%s: parents %v not sorted and unique", n.Ref.Key(), n.Parents)
		}
		for _, c := range n.Children {
			edges++
			child := g.Node(c)
			if child.Level <= n.Level {
				t.Errorf("edge %s (level %d) -> %s (level %d) does not go down the hierarchy", n.Ref.Key(), n.Level, child.Ref.Key(), child.Level)
			}
			if !slices.Contains(child.Parents, id) {
				t.Errorf("edge %s -> %s missing from the child's parents", n.Ref.Key(), child.Ref.Key())
			}
		}
		for _, p := range n.Parents {
			if !slices.Contains(g.Node(p).Children, id) {
				t.Errorf("edge %s -> %s missing from the parent's children", g.Node(p).Ref.Key(), n.Ref.Key())
			}
		}
	}
	return edges
}

func TestBuildAcyclic(t *testing.T) {
	for name, s := range map[string]*snapshot.Snapshot{"full": fullSnapshot(), "scaled": scaled(3)} {
		t.Run(name, func(t *testing.T) {
			g := topology.Build(s)
			if checkDAG(t, g) == 0 {
				t.Errorf("no edges")
			}
		})
	}
}

// scaled is n copies of one unit: a namespace with a Gateway of 2
// listeners, 3 routes of 2 rules each attached to both listeners, and 2
// Services with one named port, every rule sending to both. All units
// share one GatewayClass.
func scaled(n int) *snapshot.Snapshot {
	s := &snapshot.Snapshot{GatewayClasses: []*gwv1.GatewayClass{gatewayClass("gc")}}
	for i := range n {
		ns := fmt.Sprintf("ns-%d", i)
		s.Namespaces = append(s.Namespaces, namespace(ns, nil))
		s.Gateways = append(s.Gateways, gateway(ns, "gw", "gc",
			listener("a", gwv1.HTTPProtocolType, 80), listener("b", gwv1.HTTPProtocolType, 81)))
		s.Services = append(s.Services, service(ns, "s0", "web"), service(ns, "s1", "web"))
		bes := []gwv1.BackendObjectReference{backend("", "s0"), backend("", "s1")}
		for j := range 3 {
			s.HTTPRoutes = append(s.HTTPRoutes, httpRoute(ns, fmt.Sprintf("r%d", j), []gwv1.ParentReference{parent("", "gw")}, nil,
				rule{backends: bes}, rule{name: "named", backends: bes}))
		}
	}
	return s
}

// TestBuildLinear checks Build's size, not its time: nodes and edges grow
// by exactly the same amount per unit of input, so the graph (and the
// work to build it, one pass per object and reference) is linear.
func TestBuildLinear(t *testing.T) {
	const (
		// Per unit: namespace, gateway, 2 listeners, 3 routes, 6 rules,
		// 2 services, 2 ports.
		nodesPerUnit = 1 + 1 + 2 + 3 + 6 + 2 + 2
		// Per unit: gc->gw, gw->2 listeners, 2 listeners->3 routes,
		// 3 routes->2 rules, 6 rules->2 services, 2 services->port.
		edgesPerUnit = 1 + 2 + 6 + 6 + 12 + 2
	)
	for _, n := range []int{1, 10, 100, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			g := topology.Build(scaled(n))
			if got, want := len(g.Nodes), 1+n*nodesPerUnit; got != want {
				t.Errorf("nodes = %d, want %d", got, want)
			}
			edges := 0
			for i := range g.Nodes {
				edges += len(g.Nodes[i].Children)
			}
			if want := n * edgesPerUnit; edges != want {
				t.Errorf("edges = %d, want %d", edges, want)
			}
			if len(g.Problems) != 0 {
				t.Errorf("problems: %v", g.Problems[:1])
			}
			// One path per listener for every Service.
			paths := 0
			g.Ancestors(mustLookup(t, g, svcRef("ns-0", "s0", "web")), func([]topology.NodeID) { paths++ })
			if want := 2 * 3 * 2; paths != want {
				t.Errorf("paths to a Service port = %d, want %d", paths, want)
			}
		})
	}
}

func TestRefKey(t *testing.T) {
	tests := []struct {
		ref       topology.Ref
		key, str  string
		objectKey string
	}{
		{ref: gwRef("infra", "gw", "http"), key: "Gateway.gateway.networking.k8s.io:infra/gw#http", str: "Gateway infra/gw#http", objectKey: "Gateway.gateway.networking.k8s.io:infra/gw"},
		{ref: topology.Ref{Kind: "Namespace", Name: "app"}, key: "Namespace:app", str: "Namespace app", objectKey: "Namespace:app"},
		{ref: svcRef("app", "svc", ""), key: "Service:app/svc", str: "Service app/svc", objectKey: "Service:app/svc"},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			if got := tc.ref.Key(); got != tc.key {
				t.Errorf("Key() = %q, want %q", got, tc.key)
			}
			if got := tc.ref.String(); got != tc.str {
				t.Errorf("String() = %q, want %q", got, tc.str)
			}
			if got := tc.ref.Object().Key(); got != tc.objectKey {
				t.Errorf("Object().Key() = %q, want %q", got, tc.objectKey)
			}
		})
	}
}

func TestGranted(t *testing.T) {
	g := topology.Build(&snapshot.Snapshot{ReferenceGrants: []*gwv1b1.ReferenceGrant{grant("db", "HTTPRoute", "app", "pg")}})
	tests := []struct {
		name   string
		fromNS string
		to     topology.Ref
		want   bool
	}{
		{name: "granted", fromNS: "app", to: svcRef("db", "pg", ""), want: true},
		{name: "other name", fromNS: "app", to: svcRef("db", "other", "")},
		{name: "other from namespace", fromNS: "web", to: svcRef("db", "pg", "")},
		{name: "grant lives in the target namespace only", fromNS: "app", to: svcRef("app", "pg", "")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := g.Granted(hierarchy.HTTPRouteKind, tc.fromNS, tc.to); got != tc.want {
				t.Errorf("Granted = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestBuildWithExtra(t *testing.T) {
	r := topology.Ref{Group: "dns.example.com", Kind: "FQDN", Namespace: "app", Name: "api"}
	g := topology.BuildWith(&snapshot.Snapshot{}, topology.Extra{Namespaces: []string{"own"}, Virtual: []topology.Ref{r, r}})
	id := g.Lookup(r)
	if id == topology.None || len(g.Nodes) != 3 {
		t.Fatalf("nodes %+v, want namespaces own and app and one virtual node", g.Nodes)
	}
	n := g.Node(id)
	if !n.Virtual || n.Level != hierarchy.LevelVirtual || n.Namespace != g.Lookup(topology.Ref{Kind: "Namespace", Name: "app"}) {
		t.Errorf("virtual node %+v", n)
	}
	if got := g.ByKind(r.GroupKind()); !slices.Equal(got, []topology.NodeID{id}) {
		t.Errorf("ByKind = %v", got)
	}
	if g.Lookup(topology.Ref{Kind: "Namespace", Name: "own"}) != 0 {
		t.Errorf("the policies' namespaces come first, in order: %+v", g.Nodes)
	}
}

// TestExtend: a graph extended with new nodes is a new graph; the one it
// came from is unchanged, and is returned as is when it has them all.
func TestExtend(t *testing.T) {
	s := &snapshot.Snapshot{Namespaces: []*corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "app"}}}}
	a := topology.Ref{Group: "dns.example.com", Kind: "FQDN", Namespace: "app", Name: "a"}
	b := topology.Ref{Group: "dns.example.com", Kind: "FQDN", Namespace: "new", Name: "b"}
	g := topology.BuildWith(s, topology.Extra{Virtual: []topology.Ref{a}})
	before := make([]topology.Node, len(g.Nodes)) // the nodes' values: a copy of g.Nodes would share them
	for i, n := range g.Nodes {
		before[i] = *n
	}
	nodes := func(g *topology.Graph) []topology.Node {
		out := make([]topology.Node, len(g.Nodes))
		for i, n := range g.Nodes {
			out[i] = *n
		}
		return out
	}
	if same := g.Extend(topology.Extra{Namespaces: []string{"app"}, Virtual: []topology.Ref{a}}); same != g {
		t.Errorf("Extend with nodes g has made a new graph")
	}
	ext := g.Extend(topology.Extra{Virtual: []topology.Ref{b}})
	ext2 := g.Extend(topology.Extra{Namespaces: []string{"other"}})
	if ext == g || len(g.Nodes) != len(before) || !reflect.DeepEqual(nodes(g), before) || g.Lookup(b) != topology.None {
		t.Fatalf("Extend changed the graph it came from: %+v", g.Nodes)
	}
	for i := range before {
		if ext.Node(topology.NodeID(i)).Ref != before[i].Ref {
			t.Errorf("node %d moved: %v", i, ext.Node(topology.NodeID(i)).Ref)
		}
	}
	if id := ext.Lookup(b); id == topology.None || !slices.Equal(ext.ByKind(b.GroupKind()), []topology.NodeID{g.Lookup(a), id}) {
		t.Errorf("ByKind = %v", ext.ByKind(b.GroupKind()))
	}
	if got := g.ByKind(a.GroupKind()); len(got) != 1 {
		t.Errorf("the original's ByKind grew: %v", got)
	}
	if ext2.Lookup(b) != topology.None || ext2.Lookup(topology.Ref{Kind: "Namespace", Name: "other"}) == topology.None {
		t.Errorf("two extensions of one graph share nodes")
	}
}

// TestHolds: a graph holds itself and those it extends, with their
// extensions' nodes when it has them at the same ids, and no graph built
// apart, even one with the same nodes.
func TestHolds(t *testing.T) {
	s := &snapshot.Snapshot{Namespaces: []*corev1.Namespace{{ObjectMeta: metav1.ObjectMeta{Name: "app"}}}}
	b := topology.Ref{Group: "dns.example.com", Kind: "FQDN", Namespace: "app", Name: "b"}
	c := topology.Ref{Group: "dns.example.com", Kind: "FQDN", Namespace: "app", Name: "c"}
	g := topology.Build(s)
	gb := g.Extend(topology.Extra{Virtual: []topology.Ref{b}})
	gbc := gb.Extend(topology.Extra{Virtual: []topology.Ref{c}})
	gc := g.Extend(topology.Extra{Virtual: []topology.Ref{c}})
	gcb := gc.Extend(topology.Extra{Virtual: []topology.Ref{b}})
	apart := topology.Build(s)
	tests := []struct {
		name string
		g, h *topology.Graph
		want bool
	}{
		{"itself", g, g, true},
		{"the graph it extends", gb, g, true},
		{"an extension of an extension", gbc, gb, true},
		{"the first of a line", gbc, g, true},
		{"not its extension", g, gb, false},
		{"another extension, other nodes at its ids", gc, gb, false},
		{"an extension with the same nodes in another order", gcb, gb, false},
		{"a graph built apart", apart, g, false},
	}
	for _, tc := range tests {
		if got := tc.g.Holds(tc.h); got != tc.want {
			t.Errorf("%s: Holds = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestByKindIn(t *testing.T) {
	g := topology.Build(scaled(3))
	tests := []struct {
		name string
		gk   topology.Ref
		ns   string
		want []string
	}{
		{name: "routes of one namespace", gk: routeRef("HTTPRoute", "", "", ""), ns: "ns-1", want: []string{
			routeRef("HTTPRoute", "ns-1", "r0", "").Key(), routeRef("HTTPRoute", "ns-1", "r1", "").Key(), routeRef("HTTPRoute", "ns-1", "r2", "").Key()}},
		{name: "cluster-scoped kinds are in namespace \"\"", gk: topology.Ref{Group: hierarchy.GatewayGroup, Kind: "GatewayClass"}, ns: "",
			want: []string{topology.Ref{Group: hierarchy.GatewayGroup, Kind: "GatewayClass", Name: "gc"}.Key()}},
		{name: "no such namespace", gk: routeRef("HTTPRoute", "", "", ""), ns: "nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ids := g.ByKindIn(tc.gk.GroupKind(), tc.ns)
			if got := keys(g, ids); !sameKeys(got, tc.want) {
				t.Errorf("ByKindIn = %q, want %q", got, tc.want)
			}
			for _, id := range ids {
				if !slices.Contains(g.ByKind(tc.gk.GroupKind()), id) {
					t.Errorf("%s in ByKindIn but not ByKind", g.Node(id).Ref.Key())
				}
			}
		})
	}
}

// TestLookupSections: sections are not in the graph's index but found
// through their object, and a virtual ref naming an existing section is
// that section, not a new node.
func TestLookupSections(t *testing.T) {
	s := &snapshot.Snapshot{Gateways: []*gwv1.Gateway{gateway("infra", "gw", "gc", listener("http", gwv1.HTTPProtocolType, 80))}}
	sec := gwRef("infra", "gw", "http")
	g := topology.BuildWith(s, topology.Extra{Virtual: []topology.Ref{sec}})
	id := mustLookup(t, g, sec)
	if n := g.Node(id); n.Ref != sec || n.Virtual || !slices.Contains(n.Parents, mustLookup(t, g, gwRef("infra", "gw", ""))) {
		t.Errorf("section node %+v", n)
	}
	for _, r := range []topology.Ref{gwRef("infra", "gw", "https"), gwRef("infra", "other", "http"), gwRef("other", "gw", "http")} {
		if g.Lookup(r) != topology.None {
			t.Errorf("Lookup(%v) found a node", r)
		}
	}
	if ext := g.Extend(topology.Extra{Virtual: []topology.Ref{sec}}); ext != g {
		t.Errorf("Extend with an existing section made a new graph")
	}
}

// TestSectionsFewAndMany: an object's sections are found alike whether
// its duplicates are found by a scan (few sections) or by a set (many):
// sorted by name, each name once at its first item's node, the later
// items with that name reported and ambiguous, and a duplicate rule's
// backends linked below the first rule of that name.
func TestSectionsFewAndMany(t *testing.T) {
	for _, n := range []int{10, 40} { // below and above fewSections
		t.Run(fmt.Sprintf("%d names", n), func(t *testing.T) {
			// Names in reverse order, every fifth one the name of the
			// item before.
			var names []string
			for i := range n {
				name := fmt.Sprintf("p%03d", n-i)
				if i%5 == 4 {
					name = names[i-1]
				}
				names = append(names, name)
			}
			rules := make([]rule, n)
			for i, name := range names {
				rules[i] = rule{name: name}
				if i%5 == 4 {
					rules[i].backends = []gwv1.BackendObjectReference{{Name: "b"}}
				}
			}
			g := topology.Build(&snapshot.Snapshot{
				Services:   []*corev1.Service{service("ns", "s", names...), service("ns", "b")},
				HTTPRoutes: []*gwv1.HTTPRoute{httpRoute("ns", "r", nil, nil, rules...)},
			})
			for _, obj := range []topology.Ref{svcRef("ns", "s", ""), routeRef("HTTPRoute", "ns", "r", "")} {
				node := g.Node(mustLookup(t, g, obj))
				if !slices.IsSortedFunc(node.Sections, func(a, b topology.Section) int { return strings.Compare(a.Name, b.Name) }) {
					t.Errorf("%s: sections not sorted: %v", obj.Key(), node.Sections)
				}
				var unique []string
				for i, name := range names {
					id, ok := node.Sections.Get(name)
					switch {
					case !ok:
						t.Errorf("%s: section %q not found", obj.Key(), name)
					case g.Node(id).Ref.Section != name:
						t.Errorf("%s: section %q is node %s", obj.Key(), name, g.Node(id).Ref.Key())
					case (slices.Contains(names[:i], name) || slices.Contains(names[i+1:], name)) != node.Ambiguous[name]:
						t.Errorf("%s: section %q ambiguous %v", obj.Key(), name, node.Ambiguous[name])
					}
					if !slices.Contains(unique, name) {
						unique = append(unique, name)
					}
				}
				if len(node.Sections) != len(unique) {
					t.Errorf("%s: %d sections, want %d", obj.Key(), len(node.Sections), len(unique))
				}
				if _, ok := node.Sections.Get("none"); ok {
					t.Errorf("%s: a name not declared found", obj.Key())
				}
			}
			b := mustLookup(t, g, svcRef("ns", "b", ""))
			for i := 4; i < n; i += 5 {
				first, _ := g.Node(mustLookup(t, g, routeRef("HTTPRoute", "ns", "r", ""))).Sections.Get(names[i])
				if !slices.Contains(g.Node(first).Children, b) {
					t.Errorf("backend of rules[%d] (%q, a duplicate) not below the first rule of that name", i, names[i])
				}
			}
			if want := n / 5 * 2; len(g.Problems) != want {
				t.Errorf("%d problems, want %d: %v", len(g.Problems), want, g.Problems)
			}
		})
	}
}
