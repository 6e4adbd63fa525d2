package routing

import (
	"fmt"
	"strings"
	"testing"

	"github.com/strata-dev/strata/internal/enginetest"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// gateway has one listener per kind of hostname: none, a wildcard, a
// deeper wildcard, an exact one, and an HTTPS wildcard.
const gateway = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: gc}
spec: {controllerName: example.com/gc}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: gc
  listeners:
  - {name: any, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}
  - {name: wild, protocol: HTTP, port: 80, hostname: "*.example.com", allowedRoutes: {namespaces: {from: All}}}
  - {name: deep, protocol: HTTP, port: 80, hostname: "*.shop.example.com", allowedRoutes: {namespaces: {from: All}}}
  - {name: exact, protocol: HTTP, port: 80, hostname: api.example.com, allowedRoutes: {namespaces: {from: All}}}
  - {name: tls, protocol: HTTPS, port: 443, hostname: "*.example.com", allowedRoutes: {namespaces: {from: All}}}
`

// route is an HTTPRoute of namespace app on listener wild, created at
// minute min of a fixed hour, with the given hostnames and rules (YAML).
func route(name string, min int, hostnames, rules string) string {
	return fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: %s, namespace: app, creationTimestamp: "2026-01-01T10:%02d:00Z"}
spec:
  parentRefs: [{name: gw, namespace: infra, sectionName: wild}]
  hostnames: %s
  rules: %s
`, name, min, hostnames, rules)
}

// grpcRoute is route's GRPCRoute.
func grpcRoute(name string, min int, hostnames, rules string) string {
	return strings.Replace(route(name, min, hostnames, rules), "kind: HTTPRoute", "kind: GRPCRoute", 1)
}

func trace(t *testing.T, docs []string, method, url string, headers ...string) (*Trace, *topology.Graph) {
	t.Helper()
	res := enginetest.RunYAML(t, append([]string{gateway}, docs...)...)
	req, err := NewRequest(method, url, headers)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Route(res.Graph, req, "")
	if err != nil {
		t.Fatal(err)
	}
	return tr, res.Graph
}

// One row per rule of Gateway API's precedence order (precedence): two
// matches that both match the request, the one that must win, and the
// rule that decides.
func TestPrecedence(t *testing.T) {
	const host = "[shop.example.com]"
	for _, c := range []struct {
		decidedBy string
		docs      []string
		method    string
		url       string
		headers   []string
		winner    string // rule locator, then " match N"
	}{
		{"non-wildcard hostname", []string{
			route("a", 0, "[\"*.example.com\"]", "[{matches: [{path: {type: Exact, value: /x}}]}]"),
			route("b", 1, host, "[{}]"),
		}, "GET", "http://shop.example.com/x", nil, "HTTPRoute app/b#rule-0 match 0"},
		{"hostname", []string{
			route("a", 0, "[\"*.example.com\"]", "[{matches: [{path: {type: Exact, value: /x}}]}]"),
			route("b", 1, "[\"*.store.example.com\"]", "[{}]"),
		}, "GET", "http://a.store.example.com/x", nil, "HTTPRoute app/b#rule-0 match 0"},
		{"Exact path", []string{
			route("a", 0, host, "[{matches: [{path: {type: PathPrefix, value: /api}, method: GET, headers: [{name: x, value: \"1\"}]}]}]"),
			route("b", 1, host, "[{matches: [{path: {type: Exact, value: /api}}]}]"),
		}, "GET", "http://shop.example.com/api", []string{"x: 1"}, "HTTPRoute app/b#rule-0 match 0"},
		{"PathPrefix length", []string{
			route("a", 0, host, "[{matches: [{path: {type: PathPrefix, value: /api}, method: GET}]}]"),
			route("b", 1, host, "[{matches: [{path: {type: PathPrefix, value: /api/v1/}}]}]"),
		}, "GET", "http://shop.example.com/api/v1/x", nil, "HTTPRoute app/b#rule-0 match 0"},
		{"PathPrefix length", []string{ // a prefix, even "/", before a regular expression
			route("a", 0, host, "[{matches: [{path: {type: RegularExpression, value: /api/.*}}]}]"),
			route("b", 1, host, "[{}]"),
		}, "GET", "http://shop.example.com/api/x", nil, "HTTPRoute app/b#rule-0 match 0"},
		{"method", []string{
			route("a", 0, host, "[{matches: [{path: {value: /api}, headers: [{name: x, value: \"1\"}, {name: \"y\", value: \"2\"}]}]}]"),
			route("b", 1, host, "[{matches: [{path: {value: /api}, method: POST}]}]"),
		}, "POST", "http://shop.example.com/api", []string{"X: 1", "y: 2"}, "HTTPRoute app/b#rule-0 match 0"},
		{"gRPC service", []string{
			grpcRoute("a", 0, host, "[{matches: [{method: {method: Get}}]}]"),
			grpcRoute("b", 1, host, "[{matches: [{method: {service: shop.Cart}}]}]"),
		}, "POST", "http://shop.example.com/shop.Cart/Get", nil, "GRPCRoute app/b#rule-0 match 0"},
		{"gRPC method", []string{
			grpcRoute("a", 0, host, "[{matches: [{method: {service: shop.Cart}, headers: [{name: x, value: \"1\"}]}]}]"),
			grpcRoute("b", 1, host, "[{matches: [{method: {service: shop.Cart, method: \"G[e]t\", type: RegularExpression}}]}]"),
		}, "POST", "http://shop.example.com/shop.Cart/Get", []string{"x: 1"}, "GRPCRoute app/b#rule-0 match 0"},
		{"header matches", []string{
			route("a", 0, host, "[{matches: [{headers: [{name: x, value: \"1\"}], queryParams: [{name: q, value: \"1\"}, {name: r, value: \"2\"}]}]}]"),
			route("b", 1, host, "[{matches: [{headers: [{name: x, value: \"1\"}, {name: \"y\", type: RegularExpression, value: \"[0-9]+\"}]}]}]"),
		}, "GET", "http://shop.example.com/?q=1&r=2", []string{"x: 1", "y: 42"}, "HTTPRoute app/b#rule-0 match 0"},
		{"query param matches", []string{
			route("a", 0, host, "[{matches: [{queryParams: [{name: q, value: \"1\"}]}]}]"),
			route("b", 1, host, "[{matches: [{queryParams: [{name: q, value: \"1\"}, {name: r, value: \"2\"}]}]}]"),
		}, "GET", "http://shop.example.com/?q=1&r=2", nil, "HTTPRoute app/b#rule-0 match 0"},
		{"oldest route", []string{
			route("a", 5, host, "[{matches: [{path: {value: /api}}]}]"),
			route("b", 1, host, "[{matches: [{path: {value: /api}}]}]"),
		}, "GET", "http://shop.example.com/api", nil, "HTTPRoute app/b#rule-0 match 0"},
		{"route namespace/name", []string{
			route("b", 1, host, "[{matches: [{path: {value: /api}}]}]"),
			route("a", 1, host, "[{matches: [{path: {value: /api}}]}]"),
		}, "GET", "http://shop.example.com/api", nil, "HTTPRoute app/a#rule-0 match 0"},
		{"rule order", []string{
			route("a", 1, host, "[{matches: [{path: {value: /api}}]}, {name: second, matches: [{path: {value: /api}}]}]"),
		}, "GET", "http://shop.example.com/api", nil, "HTTPRoute app/a#rule-0 match 0"},
		{"match order", []string{
			route("a", 1, host, "[{matches: [{path: {value: /web}}, {path: {value: /api}}, {path: {value: /api/}}]}]"),
		}, "GET", "http://shop.example.com/api", nil, "HTTPRoute app/a#rule-0 match 1"},
	} {
		t.Run(c.decidedBy, func(t *testing.T) {
			tr, g := trace(t, c.docs, c.method, c.url, c.headers...)
			if tr.Failure != "" {
				t.Fatalf("failure: %s\nsteps: %+v", tr.Failure, tr.Steps)
			}
			if got := fmt.Sprintf("%s match %d", g.Node(tr.Rule).Ref, tr.Match); got != c.winner {
				t.Errorf("winner %s, want %s", got, c.winner)
			}
			var decided []string
			for _, s := range tr.Steps {
				if s.Stage == StageMatch && s.Verdict == Outranked {
					decided = append(decided, s.DecidedBy)
					if !strings.Contains(s.Reason, "outranked by "+c.winner) {
						t.Errorf("reason %q does not name the winner", s.Reason)
					}
				}
			}
			if len(decided) != 1 || decided[0] != c.decidedBy {
				t.Errorf("outranked matches decided by %q, want one by %q\nsteps: %+v", decided, c.decidedBy, tr.Steps)
			}
		})
	}
	t.Run("every rule has a row", func(t *testing.T) {
		// Kept in sync by hand with the rows above.
		rows := map[string]bool{"non-wildcard hostname": true, "hostname": true, "Exact path": true, "PathPrefix length": true, "method": true, "header matches": true,
			"query param matches": true, "oldest route": true, "gRPC service": true, "gRPC method": true, "route namespace/name": true, "rule order": true, "match order": true}
		for _, cr := range precedence {
			if !rows[cr.name] {
				t.Errorf("precedence rule %q has no row in TestPrecedence", cr.name)
			}
		}
		if len(rows) != len(precedence) {
			t.Errorf("%d rows for %d rules", len(rows), len(precedence))
		}
	})
}

// Listener selection: protocol, port, then the most specific hostname
// (exact, deeper wildcard, wildcard, none).
func TestListener(t *testing.T) {
	for _, c := range []struct {
		url, want, failure string
	}{
		{"http://api.example.com/", "Gateway infra/gw#exact", ""},
		{"http://a.shop.example.com/", "Gateway infra/gw#deep", ""},
		{"http://a.b.example.com/", "Gateway infra/gw#wild", ""},     // a wildcard matches several labels
		{"http://example.com/", "Gateway infra/gw#any", ""},          // but not the apex
		{"http://API.Example.com:80/", "Gateway infra/gw#exact", ""}, // hostnames ignore case; the default port
		{"https://a.example.com/", "Gateway infra/gw#tls", ""},
		{"https://example.com/", "", "no listener of any Gateway accepts HTTPS requests for example.com on port 443"},
		{"http://a.example.com:8080/", "", "no listener of any Gateway accepts HTTP requests for a.example.com on port 8080"},
	} {
		t.Run(c.url, func(t *testing.T) {
			tr, g := trace(t, nil, "GET", c.url)
			if c.failure != "" {
				if tr.Failure != c.failure {
					t.Errorf("failure %q, want %q", tr.Failure, c.failure)
				}
				return
			}
			if tr.Listener == topology.None || g.Node(tr.Listener).Ref.String() != c.want {
				t.Fatalf("listener %v, want %s (steps %+v)", tr.Listener, c.want, tr.Steps)
			}
		})
	}
	// The reasons of the listeners passed over.
	tr, _ := trace(t, nil, "GET", "http://api.example.com/")
	want := map[string]string{
		"Gateway infra/gw#any":   "Outranked: Gateway infra/gw#exact also accepts it, with a more specific hostname (api.example.com over none)",
		"Gateway infra/gw#wild":  "Outranked: Gateway infra/gw#exact also accepts it, with a more specific hostname (api.example.com over *.example.com)",
		"Gateway infra/gw#deep":  "NoMatch: hostname *.shop.example.com does not match api.example.com",
		"Gateway infra/gw#exact": "Chosen: accepts HTTP on port 80 for api.example.com",
		"Gateway infra/gw#tls":   "NoMatch: protocol HTTPS does not serve http:// requests",
	}
	for _, s := range tr.Steps {
		if got := s.Verdict + ": " + s.Reason; got != want[s.Object.String()] {
			t.Errorf("%s: %q, want %q", s.Object, got, want[s.Object.String()])
		}
	}
}

// Route hostnames: intersected with the listener's, the ones outside it
// ignored; a route without hostnames serves every host its listener does.
func TestRouteHostnames(t *testing.T) {
	docs := []string{
		route("a", 0, "[a.example.com, a.example.net]", "[{}]"),
		route("b", 0, "[]", "[{matches: [{path: {value: /b}}]}]"),
	}
	for _, c := range []struct{ url, rule, hostname, failure string }{
		{"http://a.example.com/", "HTTPRoute app/a#rule-0", "a.example.com", ""},
		{"http://z.example.com/b", "HTTPRoute app/b#rule-0", "*.example.com", ""},
		{"http://z.example.com/", "", "", "no rule of the 2 routes attached to Gateway infra/gw#wild matches GET z.example.com/: the Gateway answers 404 (HTTPRouteRule.matches)"},
	} {
		tr, g := trace(t, docs, "GET", c.url)
		if tr.Failure != c.failure {
			t.Errorf("%s: failure %q, want %q", c.url, tr.Failure, c.failure)
		}
		if c.failure != "" {
			continue
		}
		if got := g.Node(tr.Rule).Ref.String(); got != c.rule || tr.Hostname != c.hostname {
			t.Errorf("%s: %s through %s, want %s through %s", c.url, got, tr.Hostname, c.rule, c.hostname)
		}
	}
	tr, _ := trace(t, docs, "GET", "http://z.example.com/")
	for _, s := range tr.Steps {
		if s.Object.Name == "a" && s.Stage == StageRoute && s.Reason != "hostname z.example.com matches none of its hostnames a.example.com" {
			t.Errorf("route a: %q (a.example.net is outside the listener's *.example.com: ignored)", s.Reason)
		}
		if s.Stage == StageMatch && s.Object.Name == "b" && s.Reason != "path / does not match PathPrefix /b" {
			t.Errorf("route b: %q", s.Reason)
		}
	}
}

// The near misses say which condition fails.
func TestMisses(t *testing.T) {
	rules := `[{matches: [{path: {type: Exact, value: /api}}]},
	{matches: [{path: {value: /web}, method: PUT}]},
	{matches: [{headers: [{name: x-env, value: canary}]}]},
	{matches: [{queryParams: [{name: v, type: RegularExpression, value: "[0-9]+"}]}]}]`
	tr, _ := trace(t, []string{route("a", 0, "[a.example.com]", rules)}, "GET", "http://a.example.com/web/x?v=beta", "X-Env: stable")
	var got []string
	for _, s := range tr.Steps {
		if s.Stage == StageMatch {
			got = append(got, s.Object.SectionName+": "+s.Condition+": "+s.Reason)
		}
	}
	want := []string{
		"rule-0: Exact /api: path /web/x is not /api (Exact)",
		"rule-1: PathPrefix /web, method PUT: method GET is not PUT",
		"rule-2: PathPrefix /, header x-env=canary: header x-env: stable is not canary",
		"rule-3: PathPrefix /, query v~[0-9]+: query param v: beta does not match [0-9]+",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(tr.Failure, "404") {
		t.Errorf("failure %q", tr.Failure)
	}
}

// Backends: weights as shares; a backend in another namespace without a
// ReferenceGrant, or missing, is a problem (those requests get a 500).
func TestBackends(t *testing.T) {
	docs := []string{
		route("a", 0, "[a.example.com]", "[{backendRefs: [{name: s1, port: 80, weight: 3}, {name: s2, port: 8080}, {name: s3, namespace: other, port: 80}, {name: nope, port: 80, weight: 0}]}]"),
		"apiVersion: v1\nkind: Service\nmetadata: {name: s1, namespace: app}\nspec: {ports: [{name: http, port: 80}]}",
		"apiVersion: v1\nkind: Service\nmetadata: {name: s2, namespace: app}\nspec: {ports: [{port: 8080}]}",
		"apiVersion: v1\nkind: Service\nmetadata: {name: s3, namespace: other}\nspec: {ports: [{port: 80}]}",
	}
	tr, g := trace(t, docs, "GET", "http://a.example.com/")
	var got []string
	for _, b := range tr.Backends {
		node := "-"
		if b.Node != topology.None {
			node = g.Node(b.Node).Ref.String()
		}
		got = append(got, fmt.Sprintf("%s %d %s node=%s %s", b.Ref, b.Weight, b.Share, node, b.Problem))
	}
	want := []string{
		"Service app/s1#http 3 60% node=Service app/s1#http ",
		"Service app/s2 1 20% node=Service app/s2 ",
		"Service other/s3 1 20% node=- in namespace other, and no ReferenceGrant there allows HTTPRoutes of namespace app to refer to it",
		"Service app/nope 0 0% node=- no such Service",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Two Gateways accepting the request: the address decides, so the
// answer asks for --gateway; an unknown --gateway is an error.
func TestGateways(t *testing.T) {
	second := strings.ReplaceAll(strings.SplitN(gateway, "---", 2)[1], "name: gw,", "name: gw2,")
	res := enginetest.RunYAML(t, gateway, second)
	req, err := NewRequest("GET", "http://a.example.com/", nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Route(res.Graph, req, "")
	if err != nil || !strings.Contains(tr.Failure, "listeners of 2 Gateways accept the request (Gateway infra/gw, Gateway infra/gw2)") {
		t.Errorf("%v %q", err, tr.Failure)
	}
	tr, err = Route(res.Graph, req, "infra/gw2")
	if err != nil || tr.Listener == topology.None || res.Graph.Node(tr.Listener).Ref.String() != "Gateway infra/gw2#wild" {
		t.Errorf("--gateway infra/gw2: %v %+v", err, tr)
	}
	if _, err := Route(res.Graph, req, "infra/nope"); err == nil || err.Error() != "--gateway infra/nope: no such Gateway" {
		t.Errorf("unknown gateway: %v", err)
	}
}

func TestNewRequest(t *testing.T) {
	r, err := NewRequest("post", "https://Shop.Example.com/a%20b?q=1&q=2", []string{"X-A: 1", "host: other.example.com:8443"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != "POST" || r.Host != "other.example.com" || r.Port != 443 || r.Path != "/a%20b" || len(r.Query["q"]) != 2 || r.header("x-a")[0] != "1" {
		t.Errorf("%+v", r)
	}
	for _, c := range []struct{ url, header, want string }{
		{"shop.example.com/", "", "want an absolute http:// or https:// URL"},
		{"ftp://shop.example.com/", "", "want an absolute http:// or https:// URL"},
		{"http://shop.example.com:0/", "", "port \"0\""},
		{"http://shop.example.com/", "nocolon", "want Name: value"},
	} {
		var hs []string
		if c.header != "" {
			hs = []string{c.header}
		}
		if _, err := NewRequest("GET", c.url, hs); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want %q", c.url, c.header, err, c.want)
		}
	}
}

func TestHostAndPrefix(t *testing.T) {
	for _, c := range []struct {
		pattern, host string
		want          bool
	}{
		{"a.example.com", "a.example.com", true},
		{"A.example.com", "a.example.com", true},
		{"*.example.com", "a.example.com", true},
		{"*.example.com", "a.b.example.com", true},
		{"*.example.com", "example.com", false},
		{"*.example.com", "aexample.com", false},
		{"a.example.com", "b.example.com", false},
	} {
		if got := HostMatches(c.pattern, c.host); got != c.want {
			t.Errorf("HostMatches(%q, %q) = %v", c.pattern, c.host, got)
		}
	}
	for _, c := range []struct {
		prefix, path string
		want         bool
	}{
		{"/", "/anything", true},
		{"/abc", "/abc", true},
		{"/abc", "/abc/", true},
		{"/abc", "/abc/def", true},
		{"/abc/", "/abc", true},
		{"/abc", "/abcd", false},
		{"/abc/def", "/abc", false},
	} {
		if got := PrefixMatches(c.prefix, c.path); got != c.want {
			t.Errorf("PrefixMatches(%q, %q) = %v", c.prefix, c.path, got)
		}
	}
}

// GRPCRoutes: a call is a POST to /service/method; an HTTPRoute and a
// GRPCRoute sharing a hostname on a listener: only the older is accepted.
func TestGRPC(t *testing.T) {
	docs := []string{
		grpcRoute("g", 1, "[grpc.example.com]", "[{matches: [{method: {service: shop.Cart, method: Get}}], backendRefs: [{name: cart, port: 9090}]}]"),
		route("h", 5, "[\"*.example.com\"]", "[{}]"),
		route("web", 0, "[www.example.com]", "[{}]"),
		"apiVersion: v1\nkind: Service\nmetadata: {name: cart, namespace: app}\nspec: {ports: [{name: grpc, port: 9090}]}",
	}
	tr, g := trace(t, docs, "POST", "http://grpc.example.com/shop.Cart/Get")
	if tr.Failure != "" || g.Node(tr.Rule).Ref.String() != "GRPCRoute app/g#rule-0" || len(tr.Backends) != 1 || tr.Backends[0].Ref.String() != "Service app/cart#grpc" {
		t.Fatalf("%+v", tr)
	}
	want := map[string]string{
		"GRPCRoute app/g":   "Passed: hostname grpc.example.com matches grpc.example.com",
		"HTTPRoute app/h":   "NoMatch: not accepted on this listener: GRPCRoute app/g, older, shares a hostname with it, and a listener accepts only one of an HTTPRoute and a GRPCRoute that do",
		"HTTPRoute app/web": "NoMatch: hostname grpc.example.com matches none of its hostnames www.example.com",
	}
	for _, s := range tr.Steps {
		if w, ok := want[s.Object.String()]; ok && s.Verdict+": "+s.Reason != w {
			t.Errorf("%s: %s: %s, want %s", s.Object, s.Verdict, s.Reason, w)
		}
	}
	for url, why := range map[string]string{
		"http://grpc.example.com/shop.Cart/Put": "method Put is not Get",
		"http://grpc.example.com/shop.Cart":     "not a gRPC call: POST /shop.Cart is not POST /service/method",
	} {
		tr, _ := trace(t, docs, "POST", url)
		var got string
		for _, s := range tr.Steps {
			if s.Stage == StageMatch {
				got = s.Reason
			}
		}
		if got != why || tr.Failure == "" {
			t.Errorf("%s: %q (failure %q), want %q", url, got, tr.Failure, why)
		}
	}
}

// A ListenerSet's listeners serve requests as the Gateway's own do
// (GEP-1713), after them on a tie; the path goes through the ListenerSet.
func TestListenerSet(t *testing.T) {
	gw := `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: gc
  allowedListeners: {namespaces: {from: All}}
  listeners:
  - {name: own, protocol: HTTP, port: 80, hostname: "*.example.com", allowedRoutes: {namespaces: {from: All}}}`
	ls := `apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: team, namespace: app}
spec:
  parentRef: {name: gw, namespace: infra}
  listeners:
  - {name: team, protocol: HTTP, port: 80, hostname: team.example.com}
  - {name: same, protocol: HTTP, port: 80, hostname: "*.example.com"}`
	rt := `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: app}
spec:
  parentRefs: [{kind: ListenerSet, name: team, sectionName: team}]
  rules: [{}]`
	res := enginetest.RunYAML(t, strings.SplitN(gateway, "---", 2)[0], gw, ls, rt)
	for url, want := range map[string]string{
		"http://team.example.com/": "ListenerSet app/team#team",
		"http://a.example.com/":    "Gateway infra/gw#own", // as specific as same, and first
	} {
		req, err := NewRequest("GET", url, nil)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := Route(res.Graph, req, "")
		if err != nil || tr.Listener == topology.None || res.Graph.Node(tr.Listener).Ref.String() != want {
			t.Fatalf("%s: %v %+v, want %s", url, err, tr, want)
		}
		if want == "ListenerSet app/team#team" {
			var path []string
			for _, n := range tr.Path {
				path = append(path, res.Graph.Node(n).Ref.String())
			}
			if got := strings.Join(path, " > "); got != "GatewayClass gc > Gateway infra/gw > ListenerSet app/team > ListenerSet app/team#team > HTTPRoute app/r > HTTPRoute app/r#rule-0" {
				t.Errorf("path %s", got)
			}
		}
	}
}

// NewRequest never panics, and what it accepts is a request Route can
// read: a host, a port, a path from the root; or a connection: a port,
// no method, path or header, an SNI host for TLS.
func FuzzNewRequest(f *testing.F) {
	f.Add("GET", "http://shop.example.com/api?q=1", "x-a: 1")
	f.Add("post", "https://[::1]:8443/", "Host: a.example.com:80")
	f.Add("GET", "http://a/", ":")
	f.Add("", "tls://db.example.com", "")
	f.Add("", "udp://:53", "")
	f.Fuzz(func(t *testing.T, method, url, header string) {
		var hs []string
		if header != "" {
			hs = []string{header}
		}
		r, err := NewRequest(method, url, hs)
		if err != nil {
			return
		}
		if r.Connection() {
			if r.Port <= 0 || r.Method != "" || r.Path != "" || r.Headers != nil || r.Scheme == "tls" && r.Host == "" {
				t.Errorf("%q %q %q: %+v", method, url, header, r)
			}
			return
		}
		if r.Host == "" || r.Port <= 0 || !strings.HasPrefix(r.Path, "/") || r.Method == "" {
			t.Errorf("%q %q %q: %+v", method, url, header, r)
		}
	})
}

// Repeated names: of a match's entries with equivalent names only the
// first counts; of a request's repeated query param, the first value.
func TestRepeats(t *testing.T) {
	rules := `[{matches: [{headers: [{name: x, value: "1"}, {name: X, value: "2"}]}]},
	{matches: [{queryParams: [{name: q, value: "1"}]}]}]`
	tr, g := trace(t, []string{route("a", 0, "[a.example.com]", rules)}, "GET", "http://a.example.com/?q=2&q=1", "x: 1")
	if tr.Failure != "" || g.Node(tr.Rule).Ref.Section != "rule-0" {
		t.Fatalf("%+v", tr)
	}
	for _, s := range tr.Steps {
		if s.Stage == StageMatch && s.Object.SectionName == "rule-1" && s.Reason != "query param q: 2 is not 1" {
			t.Errorf("rule-1: %q", s.Reason)
		}
	}
}

// Within follows one route alone, its listener unknown: its hostnames,
// then its own rules' matches under the precedence order.
func TestWithin(t *testing.T) {
	res := enginetest.RunYAML(t, gateway,
		route("a", 0, "[a.example.com]", "[{matches: [{path: {value: /x}}]}, {name: exact, matches: [{path: {type: Exact, value: /x/y}}]}]"),
		route("b", 0, "[b.example.com]", "[{}]"))
	a := res.Graph.Lookup(topology.Ref{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Namespace: "app", Name: "a"})
	for _, c := range []struct{ url, rule, failure string }{
		{"http://a.example.com/x/y", "HTTPRoute app/a#exact", ""},
		{"http://a.example.com/x/z", "HTTPRoute app/a#rule-0", ""},
		{"http://a.example.com/z", "", "no rule of HTTPRoute app/a matches GET a.example.com/z"},
		{"http://b.example.com/x", "", "HTTPRoute app/a does not serve it: hostname b.example.com matches none of its hostnames a.example.com"},
	} {
		req, err := NewRequest("GET", c.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		tr := Within(res.Graph, req, a)
		if tr.Failure != c.failure || tr.Listener != topology.None || tr.Gateway != topology.None {
			t.Errorf("%s: failure %q, want %q", c.url, tr.Failure, c.failure)
			continue
		}
		if c.failure == "" && res.Graph.Node(tr.Rule).Ref.String() != c.rule {
			t.Errorf("%s: rule %s, want %s", c.url, res.Graph.Node(tr.Rule).Ref, c.rule)
		}
		if tr.Steps[0].Stage != StageRoute {
			t.Errorf("%s: first step %+v", c.url, tr.Steps[0])
		}
	}
	req, _ := NewRequest("", "tls://a.example.com", nil)
	if tr := Within(res.Graph, req, a); tr.Failure != "HTTPRoutes do not handle TLS connections for a.example.com" {
		t.Errorf("tls: %q", tr.Failure)
	}
}
