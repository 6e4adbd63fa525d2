package topology_test

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// TestRerouted: a route's new version changes only its edges, and the
// graph Rerouted makes equals the graph Build makes of the changed
// snapshot, node for node; the graph it came from is unchanged. A change
// that is more than new edges is refused (ok false), for Build.
func TestRerouted(t *testing.T) {
	world := func() *snapshot.Snapshot {
		return &snapshot.Snapshot{
			Namespaces:     []*corev1.Namespace{namespace("infra", nil), namespace("app", map[string]string{"team": "a"})},
			GatewayClasses: []*gwv1.GatewayClass{gatewayClass("gc")},
			Gateways: []*gwv1.Gateway{
				gateway("infra", "g1", "gc", listener("http", "HTTP", 80, allowFrom(gwv1.NamespacesFromAll, nil)), listener("shop", "HTTP", 8080, host("shop.example.com"), allowFrom(gwv1.NamespacesFromAll, nil))),
				gateway("infra", "g2", "gc", listener("http", "HTTP", 80, allowFrom(gwv1.NamespacesFromSelector, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "a"}}))),
			},
			Services: []*corev1.Service{service("app", "s1", "http"), service("app", "s2", "http"), service("infra", "mesh", "http")},
			HTTPRoutes: []*gwv1.HTTPRoute{
				httpRoute("app", "r", []gwv1.ParentReference{parent("infra", "g1")}, []string{"shop.example.com"}, rule{name: "a", backends: []gwv1.BackendObjectReference{backend("", "s1")}}, rule{backends: []gwv1.BackendObjectReference{backend("", "s2")}}),
				httpRoute("app", "other", []gwv1.ParentReference{parent("infra", "g1")}, nil, rule{backends: []gwv1.BackendObjectReference{backend("", "s1")}}),
			},
		}
	}
	route := func(edit func(r *gwv1.HTTPRoute)) *gwv1.HTTPRoute {
		r := world().HTTPRoutes[0].DeepCopy()
		r.Generation = 2
		edit(r)
		return r
	}
	for _, tc := range []struct {
		name string
		obj  *gwv1.HTTPRoute
		ok   bool
	}{
		{"to another Gateway", route(func(r *gwv1.HTTPRoute) { r.Spec.ParentRefs = []gwv1.ParentReference{parent("infra", "g2")} }), true},
		{"to one listener", route(func(r *gwv1.HTTPRoute) {
			r.Spec.ParentRefs = []gwv1.ParentReference{withSection(parent("infra", "g1"), "http")}
		}), true},
		{"another hostname", route(func(r *gwv1.HTTPRoute) { r.Spec.Hostnames = []gwv1.Hostname{"elsewhere.test"} }), true},
		{"no parents", route(func(r *gwv1.HTTPRoute) { r.Spec.ParentRefs = nil }), true},
		{"a parent outside the hierarchy", route(func(r *gwv1.HTTPRoute) {
			r.Spec.ParentRefs = append(r.Spec.ParentRefs, gwv1.ParentReference{Name: "m", Kind: ptr(gwv1.Kind("Mystery"))})
		}), true},
		{"backends swapped", route(func(r *gwv1.HTTPRoute) {
			r.Spec.Rules[0].BackendRefs, r.Spec.Rules[1].BackendRefs = r.Spec.Rules[1].BackendRefs, r.Spec.Rules[0].BackendRefs
		}), true},
		{"a backend in another namespace, not granted", route(func(r *gwv1.HTTPRoute) {
			r.Spec.Rules[0].BackendRefs[0].Namespace = ptr(gwv1.Namespace("infra"))
			r.Spec.Rules[0].BackendRefs[0].Name = "mesh"
		}), true},
		{"new labels", route(func(r *gwv1.HTTPRoute) { r.Labels = map[string]string{"x": "y"} }), false},
		{"a rule renamed", route(func(r *gwv1.HTTPRoute) { r.Spec.Rules[0].Name = ptr(gwv1.SectionName("b")) }), false},
		{"a rule more", route(func(r *gwv1.HTTPRoute) { r.Spec.Rules = append(r.Spec.Rules, gwv1.HTTPRouteRule{}) }), false},
		{"a rule less", route(func(r *gwv1.HTTPRoute) { r.Spec.Rules = r.Spec.Rules[:1] }), false},
		{"a Service parent", route(func(r *gwv1.HTTPRoute) {
			r.Spec.ParentRefs = []gwv1.ParentReference{{Name: "mesh", Namespace: ptr(gwv1.Namespace("infra")), Kind: ptr(gwv1.Kind("Service")), Group: ptr(gwv1.Group(""))}}
		}), false},
		{"a new route", func() *gwv1.HTTPRoute { r := route(func(*gwv1.HTTPRoute) {}); r.Name = "new"; return r }(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := world()
			g := topology.Build(s)
			before := dump(g)
			got, id, ok := g.Rerouted(tc.obj)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if dump(g) != before {
				t.Errorf("Rerouted changed the graph it came from")
			}
			if !ok {
				return
			}
			if got.Node(id).Object != tc.obj {
				t.Errorf("the route's node holds %v", got.Node(id).Object)
			}
			changed, err := s.With(snapshot.Change{Object: tc.obj})
			if err != nil {
				t.Fatal(err)
			}
			if have, want := dump(got), dump(topology.Build(changed)); have != want {
				t.Errorf("Rerouted:\n%s\nBuild of the changed snapshot:\n%s", have, want)
			}
		})
	}
}

// dump is a graph's nodes in id order, each with its generation, its
// parents, children and sections, and its problems.
func dump(g *topology.Graph) string {
	var out string
	for i, n := range g.Nodes {
		out += fmt.Sprintf("%d %s gen=%d parents=%v children=%v sections=%v\n", i, n.Ref.Key(), n.Generation, keys(g, n.Parents), keys(g, n.Children), n.Sections)
		if !slices.IsSorted(n.Parents) || !slices.IsSorted(n.Children) {
			out += "  unsorted\n"
		}
	}
	for _, p := range g.Problems {
		out += p.Error() + "\n"
	}
	return out
}

// TestRegated: a Gateway's new listeners move the routes that name it,
// and the graph Regated makes equals Build's of the changed snapshot; a
// change that is more than the routes' edges is refused.
func TestRegated(t *testing.T) {
	world := func() *snapshot.Snapshot {
		return &snapshot.Snapshot{
			Namespaces:     []*corev1.Namespace{namespace("infra", nil), namespace("app", map[string]string{"team": "a"})},
			GatewayClasses: []*gwv1.GatewayClass{gatewayClass("gc"), gatewayClass("other")},
			Gateways: []*gwv1.Gateway{
				gateway("infra", "g1", "gc", listener("http", "HTTP", 80, allowFrom(gwv1.NamespacesFromAll, nil)), listener("shop", "HTTP", 8080, host("shop.example.com"), allowFrom(gwv1.NamespacesFromAll, nil))),
				gateway("infra", "g2", "gc", listener("http", "HTTP", 80, allowFrom(gwv1.NamespacesFromAll, nil))),
			},
			Services: []*corev1.Service{service("app", "s1", "http")},
			HTTPRoutes: []*gwv1.HTTPRoute{
				httpRoute("app", "shop", []gwv1.ParentReference{parent("infra", "g1")}, []string{"shop.example.com"}, rule{backends: []gwv1.BackendObjectReference{backend("", "s1")}}),
				httpRoute("app", "by-port", []gwv1.ParentReference{withPort(parent("infra", "g1"), 8080), parent("infra", "g2")}, nil, rule{backends: []gwv1.BackendObjectReference{backend("", "s1")}}),
				httpRoute("infra", "same", []gwv1.ParentReference{parent("infra", "g1")}, nil),
				httpRoute("app", "elsewhere", []gwv1.ParentReference{parent("infra", "g2")}, nil),
			},
		}
	}
	edit := func(f func(gw *gwv1.Gateway)) *gwv1.Gateway {
		gw := world().Gateways[0].DeepCopy()
		gw.Generation = 2
		f(gw)
		return gw
	}
	for _, tc := range []struct {
		name string
		gw   *gwv1.Gateway
		ok   bool
	}{
		{"another hostname", edit(func(gw *gwv1.Gateway) { gw.Spec.Listeners[1].Hostname = ptr(gwv1.Hostname("elsewhere.test")) }), true},
		{"another port", edit(func(gw *gwv1.Gateway) { gw.Spec.Listeners[1].Port = 9090 }), true},
		{"routes from its own namespace only", edit(func(gw *gwv1.Gateway) { allowFrom(gwv1.NamespacesFromSame, nil)(&gw.Spec.Listeners[0]) }), true},
		{"routes from a selector", edit(func(gw *gwv1.Gateway) {
			allowFrom(gwv1.NamespacesFromSelector, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "b"}})(&gw.Spec.Listeners[0])
		}), true},
		{"TCP only", edit(func(gw *gwv1.Gateway) { gw.Spec.Listeners[0].Protocol = gwv1.TCPProtocolType }), true},
		{"a listener renamed", edit(func(gw *gwv1.Gateway) { gw.Spec.Listeners[0].Name = "web" }), false},
		{"a listener less", edit(func(gw *gwv1.Gateway) { gw.Spec.Listeners = gw.Spec.Listeners[:1] }), false},
		{"a listener twice", edit(func(gw *gwv1.Gateway) { gw.Spec.Listeners[1].Name = "http" }), false},
		{"another class", edit(func(gw *gwv1.Gateway) { gw.Spec.GatewayClassName = "other" }), false},
		{"new labels", edit(func(gw *gwv1.Gateway) { gw.Labels = map[string]string{"x": "y"} }), false},
		{"ListenerSets allowed", edit(func(gw *gwv1.Gateway) {
			gw.Spec.AllowedListeners = &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: ptr(gwv1.NamespacesFromAll)}}
		}), false},
		{"a new Gateway", edit(func(gw *gwv1.Gateway) { gw.Name = "new" }), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := world()
			g := topology.Build(s)
			before := dump(g)
			got, id, routes, ok := g.Regated(tc.gw)
			if ok != tc.ok {
				t.Fatalf("ok = %v, want %v", ok, tc.ok)
			}
			if dump(g) != before {
				t.Errorf("Regated changed the graph it came from")
			}
			if !ok {
				return
			}
			if got.Node(id).Object != tc.gw || len(routes) != 3 {
				t.Errorf("the Gateway's node holds %v; routes linked again %v, want the 3 that name it", got.Node(id).Object, keys(got, routes))
			}
			changed, err := s.With(snapshot.Change{Object: tc.gw})
			if err != nil {
				t.Fatal(err)
			}
			if have, want := dump(got), dump(topology.Build(changed)); have != want {
				t.Errorf("Regated:\n%s\nBuild of the changed snapshot:\n%s", have, want)
			}
		})
	}
}
