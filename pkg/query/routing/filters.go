package routing

import (
	"fmt"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Outcome is what a rule's filters, or a backendRef's own, do to the
// request, applied in the order they are written ("Wherever possible,
// implementations SHOULD implement filters in the order they are
// specified"). The zero Outcome is that of no filter.
type Outcome struct {
	// Filters are the filters, in order, with what each does.
	Filters []FilterStep `json:"filters,omitempty"`
	// Forwarded is the request as the backends receive it; nil when a
	// filter answers, or when there is no filter.
	Forwarded *Forwarded `json:"forwarded,omitempty"`
	// Response is the answer the Gateway gives itself (a RequestRedirect,
	// a CORS preflight): no backend is reached.
	Response *Response `json:"response,omitempty"`
	// Mirrors receive a copy of the forwarded request; their responses
	// are ignored (RequestMirror).
	Mirrors []Mirror `json:"mirrors,omitempty"`
	// ResponseHeaders are the changes made to the response's headers
	// (ResponseHeaderModifier, and the headers CORS adds).
	ResponseHeaders *gwv1.HTTPHeaderFilter `json:"responseHeaders,omitempty"`
}

// FilterStep is one filter and what it does to the request simulated.
type FilterStep struct {
	Type string `json:"type"`
	// Effect says what it does ("set x-env: canary"), or why nothing.
	Effect string `json:"effect"`
	// Problem says why the filter is invalid as written.
	Problem string `json:"problem,omitempty"`
}

// Forwarded is a request as a backend receives it.
type Forwarded struct {
	Method string `json:"method"`
	// Host is the Host header (HTTP/2's :authority), with any port.
	Host    string      `json:"host"`
	Path    string      `json:"path"` // and query
	Headers http.Header `json:"headers,omitempty"`
}

// Response is an answer the Gateway gives without reaching a backend.
type Response struct {
	Filter     string `json:"filter"` // RequestRedirect, or CORS
	StatusCode int    `json:"statusCode"`
	// Location is a redirect's Location header.
	Location string `json:"location,omitempty"`
}

// Mirror is the destination of a RequestMirror filter.
type Mirror struct {
	Ref   strata.Ref `json:"ref"`
	Port  int32      `json:"port,omitempty"`
	Share string     `json:"share"` // "100%", "50%", or "1/3" for a fraction
	// Problem says why nothing is mirrored there.
	Problem string `json:"problem,omitempty"`
}

// PathMatch is the path condition of the match that won, which
// ReplacePrefixMatch replaces.
type PathMatch struct {
	Type  gwv1.PathMatchType
	Value string
}

// Apply returns the outcome of filters on req (as the Gateway received
// it, its Port the listener's), selected by a match whose path condition
// is m. GRPCRoute filters are given as the HTTPRoute filters they are.
func Apply(req Request, m PathMatch, filters []gwv1.HTTPRouteFilter) Outcome {
	if len(filters) == 0 {
		return Outcome{}
	}
	return applyTo(forwardedOf(req), req, m, filters)
}

// forwardedOf is the request as it came: the Host header as sent, the
// raw path and query.
func forwardedOf(req Request) *Forwarded {
	f := &Forwarded{Method: req.Method, Host: req.Host, Path: req.Path}
	raw := ""
	if u, err := url.Parse(req.URL); err == nil {
		f.Host, raw = u.Host, u.RawQuery
	} else if len(req.Query) > 0 {
		raw = req.Query.Encode()
	}
	if raw != "" {
		f.Path += "?" + raw
	}
	for name, vals := range req.Headers {
		if name == "Host" {
			f.Host = vals[0]
			continue
		}
		if f.Headers == nil {
			f.Headers = http.Header{}
		}
		f.Headers[name] = slices.Clone(vals)
	}
	return f
}

// applyTo applies filters to fw, the request as forwarded so far; req is
// the request as the Gateway received it.
func applyTo(fw *Forwarded, req Request, m PathMatch, filters []gwv1.HTTPRouteFilter) Outcome {
	out := Outcome{Forwarded: fw}
	seen := map[gwv1.HTTPRouteFilterType]bool{}
	for _, f := range filters {
		st := FilterStep{Type: string(f.Type)}
		// "Specifying the same filter multiple times is not supported
		// unless explicitly indicated in the filter" (RequestMirror and
		// ExtensionRef are); "the URLRewrite and RequestRedirect
		// filters ... may not be combined".
		switch {
		case seen[f.Type] && f.Type != gwv1.HTTPRouteFilterRequestMirror && f.Type != gwv1.HTTPRouteFilterExtensionRef:
			st.Problem = fmt.Sprintf("%s is repeated: only RequestMirror and ExtensionRef may be", f.Type)
		case f.Type == gwv1.HTTPRouteFilterURLRewrite && seen[gwv1.HTTPRouteFilterRequestRedirect],
			f.Type == gwv1.HTTPRouteFilterRequestRedirect && seen[gwv1.HTTPRouteFilterURLRewrite]:
			st.Problem = "URLRewrite and RequestRedirect may not be combined"
		}
		seen[f.Type] = true
		if out.Response != nil && f.Type != gwv1.HTTPRouteFilterResponseHeaderModifier {
			st.Effect = fmt.Sprintf("none: the Gateway answers the request itself (%s)", out.Response.Filter)
			out.Filters = append(out.Filters, st)
			continue
		}
		switch f.Type {
		case gwv1.HTTPRouteFilterRequestHeaderModifier:
			st.Effect, st.Problem = requestHeaders(fw, f.RequestHeaderModifier, st.Problem)
		case gwv1.HTTPRouteFilterResponseHeaderModifier:
			st.Effect, st.Problem = responseHeaders(&out, f.ResponseHeaderModifier, st.Problem)
		case gwv1.HTTPRouteFilterURLRewrite:
			st.Effect, st.Problem = rewrite(fw, m, f.URLRewrite, st.Problem)
		case gwv1.HTTPRouteFilterRequestRedirect:
			st.Effect, st.Problem = redirect(&out, req, fw, m, f.RequestRedirect, st.Problem)
		case gwv1.HTTPRouteFilterRequestMirror:
			st.Effect, st.Problem = mirror(&out, f.RequestMirror, st.Problem)
		case gwv1.HTTPRouteFilterCORS:
			st.Effect, st.Problem = cors(&out, req, f.CORS, st.Problem)
		case gwv1.HTTPRouteFilterExtensionRef:
			st.Effect = "not simulated (implementation-specific)"
			if e := f.ExtensionRef; e != nil {
				st.Effect += ": " + extensionName(e)
			} else {
				st.Problem = orProblem(st.Problem, "no extensionRef")
			}
		case gwv1.HTTPRouteFilterExternalAuth:
			st.Effect = "not simulated: the request is forwarded only if the external authorization service allows it (experimental)"
			if a := f.ExternalAuth; a != nil {
				st.Effect = fmt.Sprintf("not simulated: the request is forwarded only if %s (%s) allows it (experimental)", backendName(a.BackendRef, ""), a.ExternalAuthProtocol)
			}
		default:
			st.Effect = "not simulated"
			st.Problem = orProblem(st.Problem, fmt.Sprintf("unknown filter type %q: the route is not Accepted (UnsupportedValue)", f.Type))
		}
		out.Filters = append(out.Filters, st)
	}
	if out.Response != nil {
		out.Forwarded = nil
		// Mirrors copy the forwarded request: there is none.
		for i := range out.Mirrors {
			out.Mirrors[i].Problem = orProblem(out.Mirrors[i].Problem, "nothing to mirror: the Gateway answers the request itself")
		}
	}
	return out
}

func orProblem(had, p string) string {
	if had != "" {
		return had
	}
	return p
}

func extensionName(e *gwv1.LocalObjectReference) string {
	if e.Group == "" {
		return string(e.Kind) + " " + string(e.Name)
	}
	return string(e.Kind) + "." + string(e.Group) + " " + string(e.Name)
}

// missing is the problem of a filter whose type's field is not set.
func missing(field string) string {
	return field + " is not set: the filter is invalid"
}

// requestHeaders applies a RequestHeaderModifier (HTTPHeaderFilter):
// "Set overwrites the request with the given header", "Add adds the
// given header(s) ... It appends to any existing values associated with
// the header name", "Remove the given header(s)"; "Only one action for a
// given header name is permitted".
func requestHeaders(fw *Forwarded, hf *gwv1.HTTPHeaderFilter, problem string) (string, string) {
	if hf == nil {
		return "none", orProblem(problem, missing("requestHeaderModifier"))
	}
	if fw.Headers == nil {
		fw.Headers = http.Header{}
	}
	for i, h := range slices.Concat(hf.Set, hf.Add) {
		k := textproto.CanonicalMIMEHeaderKey(string(h.Name))
		switch {
		case k == "Host": // one Host: adding one replaces it
			fw.Host = h.Value
		case i < len(hf.Set):
			fw.Headers[k] = []string{h.Value}
		default:
			fw.Headers[k] = append(fw.Headers[k], h.Value)
		}
	}
	for _, name := range hf.Remove {
		delete(fw.Headers, textproto.CanonicalMIMEHeaderKey(name))
	}
	if len(fw.Headers) == 0 {
		fw.Headers = nil
	}
	return headerActions(hf), orProblem(problem, repeatedHeader(hf))
}

// responseHeaders lists a ResponseHeaderModifier's changes; the response
// is not simulated.
func responseHeaders(out *Outcome, hf *gwv1.HTTPHeaderFilter, problem string) (string, string) {
	if hf == nil {
		return "none", orProblem(problem, missing("responseHeaderModifier"))
	}
	rh := out.responseHeaders()
	rh.Set = append(rh.Set, hf.Set...)
	rh.Add = append(rh.Add, hf.Add...)
	rh.Remove = append(rh.Remove, hf.Remove...)
	return "on the response: " + headerActions(hf), orProblem(problem, repeatedHeader(hf))
}

func (o *Outcome) responseHeaders() *gwv1.HTTPHeaderFilter {
	if o.ResponseHeaders == nil {
		o.ResponseHeaders = &gwv1.HTTPHeaderFilter{}
	}
	return o.ResponseHeaders
}

// headerActions writes an HTTPHeaderFilter: "set a: 1; add b: 2; remove
// c, d".
func headerActions(hf *gwv1.HTTPHeaderFilter) string {
	var parts []string
	for _, x := range []struct {
		verb string
		hs   []gwv1.HTTPHeader
	}{{"set", hf.Set}, {"add", hf.Add}} {
		for _, h := range x.hs {
			parts = append(parts, fmt.Sprintf("%s %s: %s", x.verb, h.Name, h.Value))
		}
	}
	if len(hf.Remove) > 0 {
		parts = append(parts, "remove "+strings.Join(hf.Remove, ", "))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// repeatedHeader is the problem of a filter with more than one action for
// a header name ("Filters specifying multiple actions of the same or
// different type for any one header name are invalid"; names compare
// without case).
func repeatedHeader(hf *gwv1.HTTPHeaderFilter) string {
	seen := map[string]bool{}
	names := make([]string, 0, len(hf.Set)+len(hf.Add)+len(hf.Remove))
	for _, h := range slices.Concat(hf.Set, hf.Add) {
		names = append(names, string(h.Name))
	}
	for _, n := range append(names, hf.Remove...) {
		k := strings.ToLower(n)
		if seen[k] {
			return fmt.Sprintf("more than one action for header %s: the filter is invalid", n)
		}
		seen[k] = true
	}
	return ""
}

// modifyPath applies an HTTPPathModifier to path (without its query):
// ReplaceFullPath replaces it, ReplacePrefixMatch replaces the matched
// PathPrefix, element by element, as the table of
// HTTPPathModifier.replacePrefixMatch says (a trailing / of the prefix
// and of the replacement is ignored; an empty result is /).
func modifyPath(path string, m PathMatch, pm *gwv1.HTTPPathModifier) (string, string, string) {
	switch pm.Type {
	case gwv1.FullPathHTTPPathModifier:
		if pm.ReplaceFullPath == nil {
			return path, "", "ReplaceFullPath without replaceFullPath: the filter is invalid"
		}
		return *pm.ReplaceFullPath, fmt.Sprintf("path %s -> %s (ReplaceFullPath)", path, *pm.ReplaceFullPath), ""
	case gwv1.PrefixMatchHTTPPathModifier:
		if pm.ReplacePrefixMatch == nil {
			return path, "", "ReplacePrefixMatch without replacePrefixMatch: the filter is invalid"
		}
		if m.Type != gwv1.PathMatchPathPrefix {
			return path, "", fmt.Sprintf("ReplacePrefixMatch needs a PathPrefix match, not %s: the route is not Accepted", m.Type)
		}
		p := ReplacePrefix(path, m.Value, *pm.ReplacePrefixMatch)
		return p, fmt.Sprintf("path %s -> %s (ReplacePrefixMatch of %s by %s)", path, p, m.Value, orQuoted(*pm.ReplacePrefixMatch)), ""
	}
	return path, "", fmt.Sprintf("path modifier type %q is not one of Gateway API's: the route is not Accepted (UnsupportedValue)", pm.Type)
}

func orQuoted(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// ReplacePrefix replaces the PathPrefix prefix, which matches path, by
// replacement (HTTPPathModifier.replacePrefixMatch): "/foo/bar" with
// prefix "/foo" and replacement "/xyz" is "/xyz/bar".
func ReplacePrefix(path, prefix, replacement string) string {
	p := strings.TrimSuffix(prefix, "/")
	rest := strings.TrimPrefix(path, p)
	out := strings.TrimSuffix(replacement, "/") + rest
	if out == "" {
		return "/"
	}
	return out
}

// splitQuery cuts a forwarded path into path and "?query" (or "").
func splitQuery(p string) (string, string) {
	if i := strings.IndexByte(p, '?'); i >= 0 {
		return p[:i], p[i:]
	}
	return p, ""
}

// rewrite applies a URLRewrite: the Host header and the path modifier.
func rewrite(fw *Forwarded, m PathMatch, rw *gwv1.HTTPURLRewriteFilter, problem string) (string, string) {
	if rw == nil {
		return "none", orProblem(problem, missing("urlRewrite"))
	}
	var parts []string
	if rw.Hostname != nil {
		parts = append(parts, fmt.Sprintf("host %s -> %s", fw.Host, *rw.Hostname))
		fw.Host = string(*rw.Hostname)
	}
	if rw.Path != nil {
		path, query := splitQuery(fw.Path)
		p, effect, why := modifyPath(path, m, rw.Path)
		if why != "" {
			problem = orProblem(problem, why)
		} else {
			fw.Path = p + query
			parts = append(parts, effect)
		}
	}
	if len(parts) == 0 {
		return "none", problem
	}
	return strings.Join(parts, "; "), problem
}

// redirect answers with a RequestRedirect: the scheme and hostname (the
// request's when empty), the path modifier, the port ("If redirect scheme
// is not-empty, the redirect port MUST be the well-known port associated
// with the redirect scheme ... If redirect scheme is empty, the redirect
// port MUST be the Gateway Listener port"; not written when well-known)
// and the status code (default 302). The query is kept, as Envoy does.
func redirect(out *Outcome, req Request, fw *Forwarded, m PathMatch, rr *gwv1.HTTPRequestRedirectFilter, problem string) (string, string) {
	if rr == nil {
		return "none", orProblem(problem, missing("requestRedirect"))
	}
	scheme, port := req.Scheme, req.Port
	if rr.Scheme != nil && *rr.Scheme != "" {
		scheme = strings.ToLower(*rr.Scheme)
		if def, ok := defaultPorts[scheme]; ok {
			port = def
		}
	}
	if rr.Port != nil {
		port = int32(*rr.Port)
	}
	host := req.Host
	if rr.Hostname != nil && *rr.Hostname != "" {
		host = string(*rr.Hostname)
	}
	path, query := splitQuery(fw.Path)
	if rr.Path != nil {
		p, _, why := modifyPath(path, m, rr.Path)
		if why != "" {
			problem = orProblem(problem, why)
		}
		path = p
	}
	authority := host
	if port != defaultPorts[scheme] {
		authority += ":" + strconv.Itoa(int(port))
	}
	code := 302
	if rr.StatusCode != nil {
		code = *rr.StatusCode
		switch code {
		case 301, 302, 303, 307, 308:
		default:
			problem = orProblem(problem, fmt.Sprintf("status code %d is not one of 301, 302, 303, 307, 308: the route is not Accepted (UnsupportedValue)", code))
		}
	}
	out.Response = &Response{Filter: string(gwv1.HTTPRouteFilterRequestRedirect), StatusCode: code, Location: scheme + "://" + authority + path + query}
	return fmt.Sprintf("redirects: %d, Location %s", code, out.Response.Location), problem
}

// mirror notes a RequestMirror: "Requests are sent to the specified
// destination, but responses from that destination are ignored"; "If
// neither field is specified, 100% of requests will be mirrored".
func mirror(out *Outcome, rm *gwv1.HTTPRequestMirrorFilter, problem string) (string, string) {
	if rm == nil {
		return "none", orProblem(problem, missing("requestMirror"))
	}
	mi := Mirror{Ref: backendRef(rm.BackendRef, ""), Share: "100%"}
	if rm.BackendRef.Port != nil {
		mi.Port = int32(*rm.BackendRef.Port)
	}
	switch {
	case rm.Percent != nil && rm.Fraction != nil:
		problem = orProblem(problem, "only one of percent and fraction may be given")
	case rm.Percent != nil:
		mi.Share = strconv.Itoa(int(*rm.Percent)) + "%"
	case rm.Fraction != nil:
		den := int32(100)
		if rm.Fraction.Denominator != nil {
			den = *rm.Fraction.Denominator
		}
		if den == 100 {
			mi.Share = strconv.Itoa(int(rm.Fraction.Numerator)) + "%"
		} else {
			mi.Share = fmt.Sprintf("%d/%d", rm.Fraction.Numerator, den)
		}
	}
	out.Mirrors = append(out.Mirrors, mi)
	return fmt.Sprintf("copies %s of the requests to %s; its responses are ignored", mi.Share, backendName(rm.BackendRef, "")), problem
}

// backendRef is the object a BackendObjectReference names, of a route in
// namespace ns (Service by default).
func backendRef(b gwv1.BackendObjectReference, ns string) strata.Ref {
	ref := strata.Ref{Group: "", Kind: "Service", Namespace: ns, Name: string(b.Name)}
	if b.Group != nil {
		ref.Group = string(*b.Group)
	}
	if b.Kind != nil {
		ref.Kind = string(*b.Kind)
	}
	if b.Namespace != nil {
		ref.Namespace = string(*b.Namespace)
	}
	return ref
}

// backendName writes a backend as the Backends table does, with its
// port: "Service shop/audit:8080".
func backendName(b gwv1.BackendObjectReference, ns string) string {
	ref := backendRef(b, ns)
	s := ref.Kind + " "
	if ref.Namespace != "" {
		s += ref.Namespace + "/"
	}
	s += ref.Name
	if b.Port != nil {
		s += ":" + strconv.Itoa(int(*b.Port))
	}
	return s
}

// resolveMirrors fills the mirrors' namespaces (the route's) and their
// problems, as backends are resolved (HTTPRequestMirrorFilter.backendRef:
// "If the referent cannot be found, this BackendRef is invalid and must
// be dropped").
func resolveMirrors(g *topology.Graph, routeKind schema.GroupKind, ns string, ms []Mirror) {
	for i := range ms {
		m := &ms[i]
		if m.Ref.Namespace == "" {
			m.Ref.Namespace = ns
		}
		if m.Problem != "" {
			continue
		}
		to := topology.FromAPI(m.Ref)
		switch {
		case m.Ref.Group != "" || m.Ref.Kind != "Service":
			m.Problem = "not a Service: what it does is implementation-specific"
		case g.Lookup(to) == topology.None:
			m.Problem = "no such Service: nothing is mirrored"
		case m.Ref.Namespace != ns && !g.Granted(routeKind, ns, to):
			m.Problem = fmt.Sprintf("in namespace %s, and no ReferenceGrant there allows %ss of namespace %s to refer to it: nothing is mirrored", m.Ref.Namespace, routeKind.Kind, ns)
		}
	}
}

// cors applies a CORS filter (HTTPCORSFilter) to a request with an Origin
// header: an allowed origin gets Access-Control-Allow-Origin, -Allow-
// Credentials and, for an actual request, -Expose-Headers. A preflight
// (OPTIONS with Origin and Access-Control-Request-Method) is answered by
// the Gateway ("always an OK status (i.e., 204 or 200)") with -Allow-
// Methods, -Allow-Headers and -Max-Age (default 5). An origin not allowed
// gets no CORS header.
func cors(out *Outcome, req Request, c *gwv1.HTTPCORSFilter, problem string) (string, string) {
	if c == nil {
		return "none", orProblem(problem, missing("cors"))
	}
	origin := first(req.header("Origin"))
	reqMethod := first(req.header("Access-Control-Request-Method"))
	preflight := req.Method == http.MethodOptions && origin != "" && reqMethod != ""
	if origin == "" {
		return "none: no Origin header, not a cross-origin request", problem
	}
	allowed := false
	for _, o := range c.AllowOrigins {
		if OriginMatches(string(o), origin) {
			allowed = true
			break
		}
	}
	if preflight {
		out.Response = &Response{Filter: string(gwv1.HTTPRouteFilterCORS), StatusCode: http.StatusOK}
	}
	if !allowed {
		if preflight {
			return fmt.Sprintf("answers the preflight request itself (200 or 204), without CORS headers: origin %s is not allowed, and the browser does not send the request", origin), problem
		}
		return fmt.Sprintf("no CORS header: origin %s is not allowed", origin), problem
	}
	credentials := c.AllowCredentials != nil && *c.AllowCredentials
	set := []gwv1.HTTPHeader{{Name: "Access-Control-Allow-Origin", Value: origin}}
	if credentials {
		set = append(set, gwv1.HTTPHeader{Name: "Access-Control-Allow-Credentials", Value: "true"})
	}
	// A wildcard with credentials: "the gateway must not return *...
	// Instead, it must return" the request's value.
	list := func(vals []string, echo string) (string, bool) {
		if len(vals) == 1 && vals[0] == "*" && credentials {
			return echo, echo != ""
		}
		return strings.Join(vals, ", "), len(vals) > 0
	}
	if preflight {
		if v, ok := list(strs(c.AllowMethods), reqMethod); ok {
			set = append(set, gwv1.HTTPHeader{Name: "Access-Control-Allow-Methods", Value: v})
		}
		if v, ok := list(strs(c.AllowHeaders), first(req.header("Access-Control-Request-Headers"))); ok {
			set = append(set, gwv1.HTTPHeader{Name: "Access-Control-Allow-Headers", Value: v})
		}
		age := c.MaxAge
		if age == 0 {
			age = 5
		}
		set = append(set, gwv1.HTTPHeader{Name: "Access-Control-Max-Age", Value: strconv.Itoa(int(age))})
	} else if headers := strs(c.ExposeHeaders); len(headers) > 0 {
		if !(len(headers) == 1 && headers[0] == "*" && credentials) { // "the gateway cannot use the *"
			set = append(set, gwv1.HTTPHeader{Name: "Access-Control-Expose-Headers", Value: strings.Join(headers, ", ")})
		}
	}
	rh := out.responseHeaders()
	rh.Set = append(rh.Set, set...)
	if preflight {
		return fmt.Sprintf("answers the preflight request itself (200 or 204): origin %s is allowed", origin), problem
	}
	return fmt.Sprintf("origin %s is allowed: CORS headers on the response", origin), problem
}

// strs are vals as strings.
func strs[S ~string](vals []S) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = string(v)
	}
	return out
}

func first(vals []string) string {
	if len(vals) == 0 {
		return ""
	}
	return vals[0]
}

// OriginMatches reports whether an allowOrigins entry matches a request's
// Origin: "*" matches every origin; else schemes and ports (defaulted)
// are equal, and hosts too, or the entry's host starts with "*", "a
// greedy match to the left, including any number of DNS labels".
func OriginMatches(pattern, origin string) bool {
	if pattern == "*" {
		return true
	}
	ps, ph, pp, ok1 := splitOrigin(pattern)
	os, oh, op, ok2 := splitOrigin(origin)
	if !ok1 || !ok2 || ps != os || pp != op {
		return false
	}
	if suffix, wild := strings.CutPrefix(ph, "*"); wild {
		return strings.HasSuffix(oh, suffix)
	}
	return ph == oh
}

// splitOrigin takes "<scheme>://<host>(:<port>)" apart, the port
// defaulted from the scheme.
func splitOrigin(o string) (scheme, host string, port int32, ok bool) {
	scheme, rest, ok := strings.Cut(strings.ToLower(o), "://")
	if !ok {
		return "", "", 0, false
	}
	port = defaultPorts[scheme]
	host = rest
	if i := strings.LastIndexByte(rest, ':'); i >= 0 && !strings.Contains(rest[i:], "]") {
		n, err := strconv.ParseUint(rest[i+1:], 10, 16)
		if err != nil {
			return "", "", 0, false
		}
		host, port = rest[:i], int32(n)
	}
	return scheme, host, port, host != ""
}

// clone is a copy of f that applying filters to leaves f alone.
func (f *Forwarded) clone() *Forwarded {
	c := *f
	if f.Headers != nil {
		c.Headers = f.Headers.Clone()
	}
	return &c
}
