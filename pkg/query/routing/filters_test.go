package routing

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/strata-dev/strata/pkg/engine/topology"
)

// filters reads a rule's filters as YAML.
func filters(t *testing.T, y string) []gwv1.HTTPRouteFilter {
	t.Helper()
	var fs []gwv1.HTTPRouteFilter
	if err := yaml.UnmarshalStrict([]byte(y), &fs); err != nil {
		t.Fatalf("%s: %v", y, err)
	}
	return fs
}

// summary writes an outcome on a few lines, as the rows below expect it:
// the forwarded request (method, host, path, headers sorted) or the
// answer, the mirrors, the response headers, then each filter's problem.
func summary(o Outcome) string {
	var lines []string
	switch {
	case o.Response != nil:
		lines = append(lines, fmt.Sprintf("answered %d by %s %s", o.Response.StatusCode, o.Response.Filter, o.Response.Location))
	case o.Forwarded != nil:
		f := o.Forwarded
		l := fmt.Sprintf("%s %s%s", f.Method, f.Host, f.Path)
		var hs []string
		for name, v := range f.Headers {
			hs = append(hs, name+": "+strings.Join(v, ","))
		}
		slices.Sort(hs)
		if len(hs) > 0 {
			l += " | " + strings.Join(hs, " | ")
		}
		lines = append(lines, l)
	}
	for _, m := range o.Mirrors {
		l := "mirror " + m.Ref.String() + " " + m.Share
		if m.Problem != "" {
			l += ": " + m.Problem
		}
		lines = append(lines, l)
	}
	if rh := o.ResponseHeaders; rh != nil {
		b, _ := json.Marshal(rh)
		lines = append(lines, "response "+string(b))
	}
	for _, f := range o.Filters {
		if f.Problem != "" {
			lines = append(lines, "problem "+f.Type+": "+f.Problem)
		}
	}
	return strings.Join(lines, "\n")
}

// One row per rule of Gateway API's filters, quoted from the doc
// comments of the gateway-api types (HTTPRouteFilter and the filter
// types it holds): a request, the path of the match that won, the
// filters, and what reaches the backend (or what the Gateway answers).
func TestApply(t *testing.T) {
	prefix := PathMatch{Type: gwv1.PathMatchPathPrefix, Value: "/foo"}
	for _, c := range []struct {
		rule    string // the spec's words
		method  string
		url     string
		headers []string
		match   PathMatch
		filters string
		want    string
	}{
		// HTTPHeaderFilter.
		{"Set overwrites the request with the given header", "GET", "http://a.example.com/foo", []string{"my-header: foo"}, prefix,
			`[{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: my-header, value: bar}]}}]`,
			"GET a.example.com/foo | My-Header: bar"},
		{"Add adds the given header(s) ... It appends to any existing values", "GET", "http://a.example.com/foo", []string{"my-header: foo"}, prefix,
			`[{type: RequestHeaderModifier, requestHeaderModifier: {add: [{name: my-header, value: "bar,baz"}]}}]`,
			"GET a.example.com/foo | My-Header: foo,bar,baz"},
		{"Remove the given header(s) ... header names are case-insensitive", "GET", "http://a.example.com/foo", []string{"my-header1: foo", "my-header2: bar", "my-header3: baz"}, prefix,
			`[{type: RequestHeaderModifier, requestHeaderModifier: {remove: [my-header1, MY-HEADER3]}}]`,
			"GET a.example.com/foo | My-Header2: bar"},
		{"Only one action for a given header name is permitted", "GET", "http://a.example.com/foo", nil, prefix,
			`[{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x, value: "1"}], remove: [X]}}]`,
			"GET a.example.com/foo\nproblem RequestHeaderModifier: more than one action for header X: the filter is invalid"},
		{"ResponseHeaderModifier ... from an HTTP response before it is sent to the client", "GET", "http://a.example.com/foo", []string{"x: 1"}, prefix,
			`[{type: ResponseHeaderModifier, responseHeaderModifier: {set: [{name: x-frame-options, value: DENY}], remove: [server]}}]`,
			"GET a.example.com/foo | X: 1\nresponse {\"set\":[{\"name\":\"x-frame-options\",\"value\":\"DENY\"}],\"remove\":[\"server\"]}"},
		// HTTPURLRewriteFilter.
		{"Hostname is the value to be used to replace the Host header value during forwarding", "GET", "http://a.example.com:8080/foo?q=1", nil, prefix,
			`[{type: URLRewrite, urlRewrite: {hostname: internal.example.com}}]`,
			"GET internal.example.com/foo?q=1"},
		{"ReplaceFullPath specifies the value with which to replace the full path", "GET", "http://a.example.com/foo/bar?q=1", nil, prefix,
			`[{type: URLRewrite, urlRewrite: {path: {type: ReplaceFullPath, replaceFullPath: /all}}}]`,
			"GET a.example.com/all?q=1"},
		{"a request to /foo/bar with a prefix match of /foo and a ReplacePrefixMatch of /xyz would be modified to /xyz/bar", "GET", "http://a.example.com/foo/bar", nil, prefix,
			`[{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /xyz}}}]`,
			"GET a.example.com/xyz/bar"},
		{"ReplacePrefixMatch is only compatible with a PathPrefix HTTPRouteMatch", "GET", "http://a.example.com/foo/bar", nil, PathMatch{Type: gwv1.PathMatchExact, Value: "/foo/bar"},
			`[{type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /xyz}}}]`,
			"GET a.example.com/foo/bar\nproblem URLRewrite: ReplacePrefixMatch needs a PathPrefix match, not Exact: the route is not Accepted"},
		// HTTPRequestRedirectFilter.
		{"StatusCode ... default=302; When empty, the scheme of the request is used; If redirect scheme is empty, the redirect port MUST be the Gateway Listener port", "GET", "http://a.example.com:8080/foo?q=1", nil, prefix,
			`[{type: RequestRedirect, requestRedirect: {hostname: b.example.com}}]`,
			"answered 302 by RequestRedirect http://b.example.com:8080/foo?q=1"},
		{"If redirect scheme is not-empty, the redirect port MUST be the well-known port associated with the redirect scheme; SHOULD NOT add the port number ... HTTPS ... 443", "GET", "http://a.example.com:8080/foo", nil, prefix,
			`[{type: RequestRedirect, requestRedirect: {scheme: https, statusCode: 301}}]`,
			"answered 301 by RequestRedirect https://a.example.com/foo"},
		{"Hostname ... When empty, the hostname in the Host header of the request is used; Port is the port to be used in the value of the Location header", "GET", "http://a.example.com/foo", []string{"Host: c.example.com:80"}, prefix,
			`[{type: RequestRedirect, requestRedirect: {scheme: https, port: 8443}}]`,
			"answered 302 by RequestRedirect https://c.example.com:8443/foo"},
		{"SHOULD NOT add the port number ... HTTP ... and use port 80", "GET", "https://a.example.com/foo", nil, prefix,
			`[{type: RequestRedirect, requestRedirect: {scheme: http}}]`,
			"answered 302 by RequestRedirect http://a.example.com/foo"},
		{"Path defines parameters used to modify the path of the incoming request. The modified path is then used to construct the Location header", "GET", "http://a.example.com/foo/bar", nil, prefix,
			`[{type: RequestRedirect, requestRedirect: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /xyz}}}]`,
			"answered 302 by RequestRedirect http://a.example.com/xyz/bar"},
		{"This may not be used on the same Route rule or BackendRef as a URLRewrite filter", "GET", "http://a.example.com/foo", nil, prefix,
			`[{type: URLRewrite, urlRewrite: {hostname: b.example.com}}, {type: RequestRedirect, requestRedirect: {statusCode: 301}}]`,
			"answered 301 by RequestRedirect http://a.example.com/foo\nproblem RequestRedirect: URLRewrite and RequestRedirect may not be combined"},
		{"RequestRedirect ... responds to the request with an HTTP redirection: the filters after it do not reach a backend", "GET", "http://a.example.com/foo", nil, prefix,
			`[{type: RequestMirror, requestMirror: {backendRef: {name: audit, port: 80}}}, {type: RequestRedirect, requestRedirect: {hostname: b.example.com}}, {type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x, value: "1"}]}}]`,
			"answered 302 by RequestRedirect http://b.example.com/foo\nmirror Service audit 100%: nothing to mirror: the Gateway answers the request itself"},
		// HTTPRequestMirrorFilter.
		{"If neither field is specified, 100% of requests will be mirrored; This filter can be used multiple times within the same rule", "GET", "http://a.example.com/foo", nil, prefix,
			`[{type: RequestMirror, requestMirror: {backendRef: {name: audit, port: 80}}}, {type: RequestMirror, requestMirror: {backendRef: {name: shadow, namespace: qa, port: 80}, percent: 25}}, {type: RequestMirror, requestMirror: {backendRef: {name: rare, port: 80}, fraction: {numerator: 1, denominator: 3}}}]`,
			"GET a.example.com/foo\nmirror Service audit 100%\nmirror Service qa/shadow 25%\nmirror Service rare 1/3"},
		// HTTPRouteFilter.extensionRef, .type.
		{"ExtensionRef is an optional, implementation-specific extension", "GET", "http://a.example.com/foo", []string{"x: 1"}, prefix,
			`[{type: ExtensionRef, extensionRef: {group: example.com, kind: Waf, name: strict}}]`,
			"GET a.example.com/foo | X: 1"},
		{"Specifying the same filter multiple times is not supported unless explicitly indicated in the filter", "GET", "http://a.example.com/foo", nil, prefix,
			`[{type: URLRewrite, urlRewrite: {hostname: b.example.com}}, {type: URLRewrite, urlRewrite: {hostname: c.example.com}}]`,
			"GET c.example.com/foo\nproblem URLRewrite: URLRewrite is repeated: only RequestMirror and ExtensionRef may be"},
		{"Unknown values here must result in the implementation setting the Accepted Condition for the Route to status: False", "GET", "http://a.example.com/foo", nil, prefix,
			`[{type: Compress}]`,
			"GET a.example.com/foo\nproblem Compress: unknown filter type \"Compress\": the route is not Accepted (UnsupportedValue)"},
		{"Wherever possible, implementations SHOULD implement filters in the order they are specified", "GET", "http://a.example.com/foo/bar", []string{"x-a: 1"}, prefix,
			`[{type: RequestHeaderModifier, requestHeaderModifier: {add: [{name: x-a, value: "2"}]}}, {type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /}}}]`,
			"GET a.example.com/bar | X-A: 1,2"},
		// HTTPCORSFilter.
		{"CORS: a request without Origin is not cross-origin", "GET", "http://a.example.com/foo", nil, prefix,
			`[{type: CORS, cors: {allowOrigins: ["*"]}}]`,
			"GET a.example.com/foo"},
		{"If the request Origin matches one of the configured allowed origins, the gateway sets the response header Access-Control-Allow-Origin to the same value as the Origin header; When set to true, the gateway will include the Access-Control-Allow-Credentials response header", "GET", "http://a.example.com/foo", []string{"Origin: https://app.example.com"}, prefix,
			`[{type: CORS, cors: {allowOrigins: ["https://*.example.com"], allowCredentials: true, exposeHeaders: [x-trace]}}]`,
			"GET a.example.com/foo | Origin: https://app.example.com\nresponse {\"set\":[{\"name\":\"Access-Control-Allow-Origin\",\"value\":\"https://app.example.com\"},{\"name\":\"Access-Control-Allow-Credentials\",\"value\":\"true\"},{\"name\":\"Access-Control-Expose-Headers\",\"value\":\"x-trace\"}]}"},
		{"The status code of a successful response to a preflight request is always an OK status; the gateway must return the Access-Control-Allow-Methods response header; When the MaxAge field is unspecified, the gateway sets the response header Access-Control-Max-Age: 5", "OPTIONS", "http://a.example.com/foo", []string{"Origin: http://app.example.com", "Access-Control-Request-Method: PUT"}, prefix,
			`[{type: CORS, cors: {allowOrigins: ["http://app.example.com"], allowMethods: [GET, PUT], allowHeaders: [x-a]}}]`,
			"answered 200 by CORS \nresponse {\"set\":[{\"name\":\"Access-Control-Allow-Origin\",\"value\":\"http://app.example.com\"},{\"name\":\"Access-Control-Allow-Methods\",\"value\":\"GET, PUT\"},{\"name\":\"Access-Control-Allow-Headers\",\"value\":\"x-a\"},{\"name\":\"Access-Control-Max-Age\",\"value\":\"5\"}]}"},
		{"If the configuration contains the wildcard * in allowMethods and allowCredentials is set to true, ... it must return a single HTTP method matching the value of the Access-Control-Request-Method request header", "OPTIONS", "http://a.example.com/foo", []string{"Origin: http://app.example.com", "Access-Control-Request-Method: DELETE"}, prefix,
			`[{type: CORS, cors: {allowOrigins: ["*"], allowMethods: ["*"], allowCredentials: true, maxAge: 60}}]`,
			"answered 200 by CORS \nresponse {\"set\":[{\"name\":\"Access-Control-Allow-Origin\",\"value\":\"http://app.example.com\"},{\"name\":\"Access-Control-Allow-Credentials\",\"value\":\"true\"},{\"name\":\"Access-Control-Allow-Methods\",\"value\":\"DELETE\"},{\"name\":\"Access-Control-Max-Age\",\"value\":\"60\"}]}"},
		{"If the request Origin does not match the configured allowed origins, the gateway returns 204/200 response but doesn't set the relevant cross-origin response headers", "OPTIONS", "http://a.example.com/foo", []string{"Origin: http://evil.example.net", "Access-Control-Request-Method: PUT"}, prefix,
			`[{type: CORS, cors: {allowOrigins: ["http://app.example.com"]}}]`,
			"answered 200 by CORS "},
	} {
		t.Run(c.rule, func(t *testing.T) {
			req, err := NewRequest(c.method, c.url, c.headers)
			if err != nil {
				t.Fatal(err)
			}
			got := summary(Apply(req, c.match, filters(t, c.filters)))
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// The effects as people read them, one per kind of filter.
func TestApplyEffects(t *testing.T) {
	req, err := NewRequest("GET", "http://a.example.com/foo/bar", []string{"Origin: https://x.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	o := Apply(req, PathMatch{Type: gwv1.PathMatchPathPrefix, Value: "/foo"}, filters(t, `[
	{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x-env, value: canary}], add: [{name: x-via, value: gw}], remove: [x-debug, x-trace]}},
	{type: URLRewrite, urlRewrite: {hostname: internal.example.com, path: {type: ReplacePrefixMatch, replacePrefixMatch: ""}}},
	{type: RequestMirror, requestMirror: {backendRef: {name: audit, port: 8080}, percent: 10}},
	{type: ExtensionRef, extensionRef: {group: example.com, kind: Waf, name: strict}},
	{type: CORS, cors: {allowOrigins: ["https://y.example.com"]}},
	{type: RequestRedirect, requestRedirect: {statusCode: 308}},
	{type: ResponseHeaderModifier, responseHeaderModifier: {add: [{name: x-served-by, value: gw}]}}]`))
	var got []string
	for _, f := range o.Filters {
		got = append(got, f.Type+": "+f.Effect)
	}
	want := []string{
		"RequestHeaderModifier: set x-env: canary; add x-via: gw; remove x-debug, x-trace",
		"URLRewrite: host a.example.com -> internal.example.com; path /foo/bar -> /bar (ReplacePrefixMatch of /foo by \"\")",
		"RequestMirror: copies 10% of the requests to Service audit:8080; its responses are ignored",
		"ExtensionRef: not simulated (implementation-specific): Waf.example.com strict",
		"CORS: no CORS header: origin https://x.example.com is not allowed",
		"RequestRedirect: redirects: 308, Location http://a.example.com/bar",
		"ResponseHeaderModifier: on the response: add x-served-by: gw",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// HTTPPathModifier.replacePrefixMatch's table, row by row.
func TestReplacePrefix(t *testing.T) {
	for _, c := range []struct{ path, prefix, replace, want string }{
		{"/foo/bar", "/foo", "/xyz", "/xyz/bar"},
		{"/foo/bar", "/foo", "/xyz/", "/xyz/bar"},
		{"/foo/bar", "/foo/", "/xyz", "/xyz/bar"},
		{"/foo/bar", "/foo/", "/xyz/", "/xyz/bar"},
		{"/foo", "/foo", "/xyz", "/xyz"},
		{"/foo/", "/foo", "/xyz", "/xyz/"},
		{"/foo/bar", "/foo", "", "/bar"},
		{"/foo/", "/foo", "", "/"},
		{"/foo", "/foo", "", "/"},
		{"/foo/", "/foo", "/", "/"},
		{"/foo", "/foo", "/", "/"},
		{"/anything", "/", "/xyz", "/xyz/anything"}, // the default match, PathPrefix /
	} {
		if got := ReplacePrefix(c.path, c.prefix, c.replace); got != c.want {
			t.Errorf("ReplacePrefix(%q, %q, %q) = %q, want %q", c.path, c.prefix, c.replace, got, c.want)
		}
	}
}

// HTTPCORSFilter.allowOrigins: "* is a greedy match to the left,
// including any number of DNS labels"; "if not included, port 80 is
// assumed for http scheme origins, and port 443 is assumed for https".
func TestOriginMatches(t *testing.T) {
	for _, c := range []struct {
		pattern, origin string
		want            bool
	}{
		{"*", "https://anything.example.net:8443", true},
		{"https://app.example.com", "https://app.example.com", true},
		{"https://app.example.com", "https://app.example.com:443", true},
		{"http://app.example.com:80", "http://app.example.com", true},
		{"https://app.example.com", "http://app.example.com", false},
		{"https://app.example.com", "https://app.example.com:8443", false},
		{"https://*.example.com", "https://a.b.example.com", true},
		{"https://*.example.com", "https://example.com", false},
		{"https://*", "https://example.com", true},
	} {
		if got := OriginMatches(c.pattern, c.origin); got != c.want {
			t.Errorf("OriginMatches(%q, %q) = %v", c.pattern, c.origin, got)
		}
	}
}

// Through Route: the rule's filters, then a backendRef's own ("executed
// if and only if the request is being forwarded to the backend defined
// here"); GRPCRoute filters likewise; mirrors resolved as backends are.
func TestRouteFilters(t *testing.T) {
	svc := func(ns, name string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata: {name: %s, namespace: %s}\nspec: {ports: [{port: 80}]}", name, ns)
	}
	docs := []string{
		route("a", 0, "[a.example.com]", `[{matches: [{path: {value: /api}}],
		  filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x-env, value: prod}]}},
		            {type: URLRewrite, urlRewrite: {path: {type: ReplacePrefixMatch, replacePrefixMatch: /v2}}},
		            {type: RequestMirror, requestMirror: {backendRef: {name: audit, port: 80}}},
		            {type: RequestMirror, requestMirror: {backendRef: {name: gone, port: 80}}},
		            {type: RequestMirror, requestMirror: {backendRef: {name: shadow, namespace: qa, port: 80}}}],
		  backendRefs: [{name: v1, port: 80}, {name: v2, port: 80, filters: [{type: RequestHeaderModifier, requestHeaderModifier: {add: [{name: x-canary, value: "true"}]}}]}]},
		 {matches: [{path: {value: /old}}], filters: [{type: RequestRedirect, requestRedirect: {scheme: https, statusCode: 301}}]}]`),
		grpcRoute("g", 0, "[grpc.example.com]", `[{filters: [{type: RequestHeaderModifier, requestHeaderModifier: {remove: [x-debug]}}, {type: ExtensionRef, extensionRef: {group: example.com, kind: Auth, name: strict}}],
		  backendRefs: [{name: v1, port: 80}]}]`),
		svc("app", "v1"), svc("app", "v2"), svc("app", "audit"), svc("qa", "shadow"),
	}
	tr, g := trace(t, docs, "GET", "http://a.example.com/api/items", "x-debug: 1")
	if tr.Failure != "" {
		t.Fatal(tr.Failure)
	}
	if got, want := summary(tr.Outcome), `GET a.example.com/v2/items | X-Debug: 1 | X-Env: prod
mirror Service app/audit 100%
mirror Service app/gone 100%: no such Service: nothing is mirrored
mirror Service qa/shadow 100%: in namespace qa, and no ReferenceGrant there allows HTTPRoutes of namespace app to refer to it: nothing is mirrored`; got != want {
		t.Errorf("rule:\n%s\nwant\n%s", got, want)
	}
	if tr.Backends[0].Outcome != nil {
		t.Errorf("v1 has no filters of its own: %+v", tr.Backends[0].Outcome)
	}
	if o := tr.Backends[1].Outcome; o == nil || summary(*o) != "GET a.example.com/v2/items | X-Canary: true | X-Debug: 1 | X-Env: prod" {
		t.Errorf("v2: %+v", o)
	}
	if got := g.Node(tr.Rule).Ref.String(); got != "HTTPRoute app/a#rule-0" {
		t.Errorf("rule %s", got)
	}

	tr, _ = trace(t, docs, "GET", "http://a.example.com/old/x")
	if got := summary(tr.Outcome); got != "answered 301 by RequestRedirect https://a.example.com/old/x" || len(tr.Backends) != 0 {
		t.Errorf("redirect: %s, %d backends", got, len(tr.Backends))
	}
	// "RequestRedirect filter must not be used together with backendRefs".
	tr, _ = trace(t, []string{route("r", 0, "[r.example.com]", "[{filters: [{type: RequestRedirect, requestRedirect: {hostname: x.example.com}}], backendRefs: [{name: v1, port: 80}]}]"), svc("app", "v1")},
		"GET", "http://r.example.com/")
	if got := summary(tr.Outcome); got != "answered 302 by RequestRedirect http://x.example.com/\nproblem RequestRedirect: a rule with a RequestRedirect must not have backendRefs: the rule is invalid" {
		t.Errorf("redirect with backends: %s", got)
	}
	if n := tr.Nodes(g); len(n) != len(tr.Path) {
		t.Errorf("a redirected request reaches no backend: nodes %v, path %v", n, tr.Path)
	}

	tr, _ = trace(t, docs, "POST", "http://grpc.example.com/shop.Cart/Get", "x-debug: 1", "content-type: application/grpc")
	if got := summary(tr.Outcome); got != "POST grpc.example.com/shop.Cart/Get | Content-Type: application/grpc" {
		t.Errorf("grpc: %s", got)
	}
	if f := tr.Outcome.Filters; len(f) != 2 || f[1].Effect != "not simulated (implementation-specific): Auth.example.com strict" {
		t.Errorf("grpc filters: %+v", f)
	}

	// No filter: no outcome, as before.
	tr, _ = trace(t, []string{route("b", 0, "[b.example.com]", "[{backendRefs: [{name: v1, port: 80}]}]"), svc("app", "v1")}, "GET", "http://b.example.com/")
	if d := cmp.Diff(Outcome{}, tr.Outcome); d != "" || tr.Backends[0].Outcome != nil || tr.Backends[0].Node == topology.None {
		t.Errorf("no filters: %s %+v", d, tr.Backends[0])
	}
}
