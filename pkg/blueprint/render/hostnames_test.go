package render

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func TestIntersectHostnames(t *testing.T) {
	cases := []struct {
		listener, route, want string
		ok                    bool
	}{
		{"", "", "", false},
		{"", "foo.example.com", "foo.example.com", true},
		{"foo.example.com", "", "foo.example.com", true},
		{"foo.example.com", "foo.example.com", "foo.example.com", true},
		{"*.example.com", "foo.example.com", "foo.example.com", true},
		{"*.example.com", "a.b.example.com", "a.b.example.com", true},
		{"foo.example.com", "*.example.com", "foo.example.com", true},
		{"*.example.com", "*.foo.example.com", "*.foo.example.com", true},
		{"*.foo.example.com", "*.example.com", "*.foo.example.com", true},
		{"*.example.com", "example.com", "", false},
		{"*.example.com", "foo.other.org", "", false},
		{"foo.example.com", "bar.example.com", "", false},
	}
	for _, c := range cases {
		got, ok := intersectHostnames(c.listener, c.route)
		if got != c.want || ok != c.ok {
			t.Errorf("intersectHostnames(%q, %q) = %q, %v; want %q, %v", c.listener, c.route, got, ok, c.want, c.ok)
		}
	}
}

func TestHostnames(t *testing.T) {
	host := func(h string) *gwv1.Hostname { x := gwv1.Hostname(h); return &x }
	section := func(s string) *gwv1.SectionName { x := gwv1.SectionName(s); return &x }
	port := func(p int32) *gwv1.PortNumber { x := gwv1.PortNumber(p); return &x }
	gw := &gwv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web"},
		Spec: gwv1.GatewaySpec{Listeners: []gwv1.Listener{
			{Name: "http", Port: 80, Protocol: gwv1.HTTPProtocolType},
			{Name: "https", Port: 443, Protocol: gwv1.HTTPSProtocolType, Hostname: host("*.example.com")},
			{Name: "api", Port: 8443, Protocol: gwv1.HTTPSProtocolType, Hostname: host("api.example.com")},
			{Name: "tls", Port: 9443, Protocol: gwv1.TLSProtocolType, Hostname: host("db.example.com")},
			{Name: "custom", Port: 8080, Protocol: "example.com/h3", Hostname: host("h3.example.com"),
				AllowedRoutes: &gwv1.AllowedRoutes{Kinds: []gwv1.RouteGroupKind{{Kind: "HTTPRoute"}}}},
		}},
	}
	route := func(ref gwv1.ParentReference, hosts ...string) *gwv1.HTTPRoute {
		r := testRoute("team", "r", hosts...)
		r.Spec.ParentRefs = []gwv1.ParentReference{ref}
		return r
	}
	cases := []struct {
		name   string
		routes []*gwv1.HTTPRoute
		want   Hostnames
	}{{
		name: "no routes",
		want: Hostnames{
			Union:        []string{"*.example.com", "api.example.com", "db.example.com", "h3.example.com"},
			Intersection: []string{},
		},
	}, {
		name:   "route without hostnames on every listener",
		routes: []*gwv1.HTTPRoute{route(gwv1.ParentReference{Name: "web"})},
		want: Hostnames{
			Union:        []string{"*.example.com", "api.example.com", "db.example.com", "h3.example.com"},
			Intersection: []string{"*.example.com", "api.example.com", "h3.example.com"},
		},
	}, {
		name:   "route with hostnames on one section",
		routes: []*gwv1.HTTPRoute{route(gwv1.ParentReference{Name: "web", SectionName: section("https")}, "foo.example.com", "db.example.com", "other.org")},
		want: Hostnames{
			Union:        []string{"*.example.com", "api.example.com", "db.example.com", "foo.example.com", "h3.example.com", "other.org"},
			Intersection: []string{"db.example.com", "foo.example.com"},
		},
	}, {
		name:   "route with hostnames on every listener",
		routes: []*gwv1.HTTPRoute{route(gwv1.ParentReference{Name: "web"}, "*.example.com", "other.org")},
		want: Hostnames{
			Union:        []string{"*.example.com", "api.example.com", "db.example.com", "h3.example.com", "other.org"},
			Intersection: []string{"*.example.com", "api.example.com", "h3.example.com", "other.org"},
		},
	}, {
		name:   "by port",
		routes: []*gwv1.HTTPRoute{route(gwv1.ParentReference{Name: "web", Port: port(8443)})},
		want: Hostnames{
			Union:        []string{"*.example.com", "api.example.com", "db.example.com", "h3.example.com"},
			Intersection: []string{"api.example.com"},
		},
	}, {
		name:   "parentRef to another Gateway: taken as attached everywhere",
		routes: []*gwv1.HTTPRoute{route(gwv1.ParentReference{Name: "other"}, "x.example.com")},
		want: Hostnames{
			Union:        []string{"*.example.com", "api.example.com", "db.example.com", "h3.example.com", "x.example.com"},
			Intersection: []string{"x.example.com"},
		},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if d := cmp.Diff(c.want, hostnamesOf(gw, c.routes)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
