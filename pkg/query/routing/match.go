package routing

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// candidate is a match of a rule of a route that matches the request,
// with what the precedence order compares.
type candidate struct {
	view            *routeView
	route, rule     topology.NodeID
	ruleIndex       int
	match           int
	step            int // index of its Step
	cond            string
	hostname        string
	exactHost, host int // characters of the matching non-wildcard hostname, of the matching hostname
	path            gwv1.PathMatchType
	pathValue       string
	prefix          int // characters of a PathPrefix value
	method          bool
	service         int // GRPCRoute: characters of the matching service
	grpcMethod      int // GRPCRoute: characters of the matching method
	headers         int
	queries         int
	created         time.Time
	id              string // namespace/name of the route
}

// criterion is one rule of the precedence order: cmp is negative when a
// takes precedence over b; why says what made winner w beat loser l.
type criterion struct {
	name string
	cmp  func(a, b *candidate) int
	why  func(w, l *candidate) string
}

// precedence is the order in which matches of the routes of one listener
// take precedence, continuing on ties. It is Gateway API's, rule by rule:
//
//   - HTTPRouteSpec.hostnames: "precedence must be given to rules from the
//     HTTPRoute with the largest number of: Characters in a matching
//     non-wildcard hostname. Characters in a matching hostname."
//   - HTTPRouteRule.matches: "Across all rules specified on applicable
//     Routes, precedence must be given to the match having: "Exact" path
//     match. "Prefix" path match with largest number of characters. Method
//     match. Largest number of header matches. Largest number of query
//     param matches." RegularExpression path matches come after prefix
//     matches here: their precedence "is implementation-specific".
//   - GRPCRouteRule.matches: after the hostnames, "Characters in a
//     matching service. Characters in a matching method. Header
//     matches." (GRPCRoutes and HTTPRoutes are never compared with each
//     other: "Merging MUST not be done between GRPCRoutes and
//     HTTPRoutes"; their path and gRPC fields are zero for the other
//     kind, so these rules tie.)
//   - "If ties still exist across multiple Routes ...: The oldest Route
//     based on creation timestamp. The Route appearing first in
//     alphabetical order by "{namespace}/{name}"."
//   - "If ties still exist within an HTTPRoute, matching precedence MUST
//     be granted to the FIRST matching rule (in list order)"; and within
//     a rule, to its first match.
var precedence = []criterion{
	{"non-wildcard hostname", func(a, b *candidate) int { return b.exactHost - a.exactHost },
		func(w, l *candidate) string {
			return fmt.Sprintf("its route matches the host with a longer non-wildcard hostname (%s)", w.hostname)
		}},
	{"hostname", func(a, b *candidate) int { return b.host - a.host },
		func(w, l *candidate) string {
			return fmt.Sprintf("its route matches the host with a longer hostname (%s over %s)", orNone(w.hostname), orNone(l.hostname))
		}},
	{"Exact path", func(a, b *candidate) int {
		return boolRank(b.path == gwv1.PathMatchExact) - boolRank(a.path == gwv1.PathMatchExact)
	},
		func(w, l *candidate) string { return fmt.Sprintf("an Exact path match comes before a %s one", l.path) }},
	{"PathPrefix length", func(a, b *candidate) int {
		if c := boolRank(b.path == gwv1.PathMatchPathPrefix) - boolRank(a.path == gwv1.PathMatchPathPrefix); c != 0 {
			return c
		}
		return b.prefix - a.prefix
	}, func(w, l *candidate) string {
		if l.path != gwv1.PathMatchPathPrefix {
			return "a PathPrefix match comes before a RegularExpression one (whose precedence is implementation-specific)"
		}
		return fmt.Sprintf("its path prefix is longer (%d characters against %d)", w.prefix, l.prefix)
	}},
	{"method", func(a, b *candidate) int { return boolRank(b.method) - boolRank(a.method) },
		func(w, l *candidate) string { return "it matches the method, and the other does not name one" }},
	{"gRPC service", func(a, b *candidate) int { return b.service - a.service },
		func(w, l *candidate) string {
			return fmt.Sprintf("it matches a longer service (%d characters against %d)", w.service, l.service)
		}},
	{"gRPC method", func(a, b *candidate) int { return b.grpcMethod - a.grpcMethod },
		func(w, l *candidate) string {
			return fmt.Sprintf("it matches a longer method (%d characters against %d)", w.grpcMethod, l.grpcMethod)
		}},
	{"header matches", func(a, b *candidate) int { return b.headers - a.headers },
		func(w, l *candidate) string {
			return fmt.Sprintf("it has more header matches (%d against %d)", w.headers, l.headers)
		}},
	{"query param matches", func(a, b *candidate) int { return b.queries - a.queries },
		func(w, l *candidate) string {
			return fmt.Sprintf("it has more query param matches (%d against %d)", w.queries, l.queries)
		}},
	{"oldest route", func(a, b *candidate) int { return a.created.Compare(b.created) },
		func(w, l *candidate) string {
			return fmt.Sprintf("a tie, and its route is older (created %s, against %s)", stamp(w.created), stamp(l.created))
		}},
	{"route namespace/name", func(a, b *candidate) int { return strings.Compare(a.id, b.id) },
		func(w, l *candidate) string {
			return fmt.Sprintf("a tie between routes created at the same time, and %s comes first in alphabetical order", w.id)
		}},
	{"rule order", func(a, b *candidate) int { return a.ruleIndex - b.ruleIndex },
		func(w, l *candidate) string { return "a tie, and its rule comes first in the route" }},
	{"match order", func(a, b *candidate) int { return a.match - b.match },
		func(w, l *candidate) string { return "a tie, and its match comes first in the rule" }},
}

// compare orders two candidates by precedence; decided is the index of
// the criterion that decided, or -1 for equal ones.
func compare(a, b *candidate) (c, decided int) {
	for i, cr := range precedence {
		if c := cr.cmp(a, b); c != 0 {
			return c, i
		}
	}
	return 0, -1
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

func orNone(h string) string {
	if h == "" {
		return "none"
	}
	return h
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format(time.RFC3339)
}

// chooseRule finds the winning match among the routes attached to
// listener l that handle the request's scheme (decide).
func (t *Trace) chooseRule(g *topology.Graph, req *Request, l *listener) *candidate {
	routes := routesOf(g, req, g.Node(l.node).Children)
	return t.decide(g, req, l, routes, func() string {
		if req.Connection() {
			return fmt.Sprintf("none of the %d routes attached to %s serves %s: the Gateway refuses the connection", len(routes), g.Node(l.node).Ref, req.what())
		}
		return fmt.Sprintf("no rule of the %d routes attached to %s matches %s %s%s: the Gateway answers 404 (HTTPRouteRule.matches)",
			len(routes), g.Node(l.node).Ref, req.Method, req.Host, req.Path)
	})
}

// routesOf are the routes among nodes (a listener's children) that can
// handle the request (Scheme.Kinds), sorted by namespace/name.
func routesOf(g *topology.Graph, req *Request, nodes []topology.NodeID) []topology.NodeID {
	var routes []topology.NodeID
	sc := Schemes[req.Scheme]
	for _, c := range nodes {
		if !slices.Contains(sc.Kinds, g.Node(c).Ref.GroupKind()) {
			continue
		}
		if _, ok := views[g.Node(c).Ref.GroupKind()]; ok {
			routes = append(routes, c)
		}
	}
	slices.SortFunc(routes, func(a, b topology.NodeID) int { return strings.Compare(g.Node(a).Ref.Key(), g.Node(b).Ref.Key()) })
	return routes
}

// decide finds the winning match among routes on listener l, recording
// a step for every route and match; nil (with t.Failure) when none does.
func (t *Trace) decide(g *topology.Graph, req *Request, l *listener, ids []topology.NodeID, failure func() string) *candidate {
	var routes []topology.NodeID
	rvs := map[topology.NodeID]*routeView{}
	byKind := map[string][]topology.NodeID{}
	sc := Schemes[req.Scheme]
	for _, c := range ids {
		if v, ok := views[g.Node(c).Ref.GroupKind()](g.Node(c).Object); ok {
			routes = append(routes, c)
			rvs[c] = &v
			byKind[v.kind] = append(byKind[v.kind], c)
		}
	}
	var cands []*candidate
	for _, id := range routes {
		v := rvs[id]
		hostname, why := routeHostname(l.spec.Hostname, v.hostnames, req.Host)
		if why == "" && len(byKind) > 1 && !sc.Connection {
			for kind, others := range byKind {
				if kind != v.kind && why == "" {
					why = kindConflict(g, l, v, others, rvs)
				}
			}
		}
		if why == "" && v.gk == hierarchy.TCPRouteKind && tlsMode(&l.spec) == gwv1.TLSModePassthrough {
			why = "a TCPRoute cannot serve a TLS listener in Passthrough mode (TLSModePassthrough: \"SSL passthrough is only supported by TLSRoute\")"
		}
		step := Step{Stage: StageRoute, Object: g.Node(id).Ref.API(), Verdict: Passed, Reason: "hostname " + orNone(hostname) + " matches " + req.Host}
		switch {
		case why != "":
			step.Verdict, step.Reason = NoMatch, why
		case !v.hostnamed && sc.Connection:
			step.Reason = fmt.Sprintf("a %s has no hostnames: it serves every connection its listener accepts", v.kind)
		case hostname == "":
			step.Reason = "neither it nor the listener names a hostname: it serves every host"
		}
		t.Steps = append(t.Steps, step)
		if why != "" {
			continue
		}
		host := len(hostname)
		exact := host
		if strings.HasPrefix(hostname, "*") {
			exact = 0
		}
		for i, rule := range v.rules {
			ruleNode, ok := g.Node(id).Sections.Get(rule.name)
			if !ok {
				continue
			}
			for j, m := range rule.matches {
				c := &candidate{view: v, route: id, rule: ruleNode, ruleIndex: i, match: j, step: len(t.Steps),
					cond: m.cond, hostname: hostname, exactHost: exact, host: host,
					created: v.created, id: v.namespace + "/" + v.name}
				s := Step{Stage: StageMatch, Object: g.Node(ruleNode).Ref.API(), Match: &j, Condition: c.cond, Verdict: Outranked}
				if why := m.miss(req, c); why != "" {
					s.Verdict, s.Reason = NoMatch, why
				} else {
					cands = append(cands, c)
				}
				t.Steps = append(t.Steps, s)
			}
		}
	}
	if len(cands) == 0 {
		t.Failure = failure()
		return nil
	}
	slices.SortStableFunc(cands, func(a, b *candidate) int { c, _ := compare(a, b); return c })
	win := cands[0]
	t.Steps[win.step].Verdict, t.Steps[win.step].Reason = Chosen, "the most specific match (Gateway API precedence)"
	for _, c := range cands[1:] {
		_, decided := compare(win, c)
		reason := "equal to the winner in every respect"
		if decided >= 0 {
			reason = precedence[decided].why(win, c)
			t.Steps[c.step].DecidedBy = precedence[decided].name
		}
		t.Steps[c.step].Reason = fmt.Sprintf("outranked by %s match %d: %s", g.Node(win.rule).Ref, win.match, reason)
	}
	return win
}

// kindConflict says why the listener does not accept route v, which
// shares a hostname with an older route among others, of the other kind
// (HTTPRouteSpec and GRPCRouteSpec hostnames: "the implementation MUST
// accept exactly one of these two routes ...: The oldest Route based on
// creation timestamp. The Route appearing first in alphabetical order by
// {namespace}/{name}"); "" when it does accept it.
func kindConflict(g *topology.Graph, l *listener, v *routeView, others []topology.NodeID, rvs map[topology.NodeID]*routeView) string {
	for _, b := range others {
		vb := rvs[b]
		if olderRoute(vb, v) && sharesHostname(l.spec.Hostname, v.hostnames, vb.hostnames) {
			return fmt.Sprintf("not accepted on this listener: %s, older, shares a hostname with it, and a listener accepts only one of an HTTPRoute and a GRPCRoute that do", g.Node(b).Ref)
		}
	}
	return ""
}

// olderRoute reports whether a comes before b: older, or as old and
// first by namespace/name.
func olderRoute(a, b *routeView) bool {
	if c := a.created.Compare(b.created); c != 0 {
		return c < 0
	}
	return a.namespace+"/"+a.name < b.namespace+"/"+b.name
}

// sharesHostname reports whether two routes' hostnames on a listener of
// hostname lh intersect; a route without hostnames has the listener's.
func sharesHostname(lh *gwv1.Hostname, a, b []gwv1.Hostname) bool {
	eff := func(hs []gwv1.Hostname) []string {
		if len(hs) == 0 {
			return []string{hostnameOr(lh, "")}
		}
		var out []string
		for _, h := range hs {
			if lh == nil || *lh == "" || topology.HostnamesIntersect(string(*lh), string(h)) {
				out = append(out, string(h))
			}
		}
		return out
	}
	for _, x := range eff(a) {
		for _, y := range eff(b) {
			if x == "" || y == "" || topology.HostnamesIntersect(x, y) {
				return true
			}
		}
	}
	return false
}

// routeHostname is the most specific of a route's hostnames that
// intersect the listener's lh ("any HTTPRoute hostnames that do not match
// the Listener hostname MUST be ignored") and match host; lh when the
// route names none. why says why it does not serve host.
func routeHostname(lh *gwv1.Hostname, hs []gwv1.Hostname, host string) (hostname, why string) {
	if len(hs) == 0 {
		return hostnameOr(lh, ""), ""
	}
	var considered []string
	for _, h := range hs {
		if lh != nil && *lh != "" && !topology.HostnamesIntersect(string(*lh), string(h)) {
			continue
		}
		considered = append(considered, string(h))
		if !HostMatches(string(h), host) {
			continue
		}
		if hostname == "" || hostRank(string(h)) > hostRank(hostname) {
			hostname = string(h)
		}
	}
	if hostname == "" {
		return "", fmt.Sprintf("hostname %s matches none of its hostnames %s", host, strings.Join(considered, ", "))
	}
	return hostname, ""
}

// hostRank orders hostnames as the precedence order does: non-wildcard
// characters, then characters.
func hostRank(h string) int {
	if strings.HasPrefix(h, "*") {
		return len(h)
	}
	return 1000 + len(h)
}

// condition writes a match as people read it: "PathPrefix /api, method
// GET, header x-env=canary, query v=2".
func condition(m *gwv1.HTTPRouteMatch) string {
	typ, val := pathOf(m)
	parts := []string{string(typ) + " " + val}
	if m.Method != nil {
		parts = append(parts, "method "+string(*m.Method))
	}
	for _, h := range m.Headers {
		parts = append(parts, "header "+string(h.Name)+op(h.Type != nil && *h.Type == gwv1.HeaderMatchRegularExpression)+h.Value)
	}
	for _, q := range m.QueryParams {
		parts = append(parts, "query "+string(q.Name)+op(q.Type != nil && *q.Type == gwv1.QueryParamMatchRegularExpression)+q.Value)
	}
	return strings.Join(parts, ", ")
}

// op writes a match's operator: "~" for a regular expression, else "=".
func op(regex bool) string {
	if regex {
		return "~"
	}
	return "="
}

// pathOf is a match's path type and value, with Gateway API's defaults
// (PathPrefix "/").
func pathOf(m *gwv1.HTTPRouteMatch) (gwv1.PathMatchType, string) {
	typ, val := gwv1.PathMatchPathPrefix, "/"
	if m.Path != nil {
		if m.Path.Type != nil {
			typ = *m.Path.Type
		}
		if m.Path.Value != nil {
			val = *m.Path.Value
		}
	}
	return typ, val
}

// miss says which condition of m the request fails, "" when it matches
// them all; it fills c's precedence fields.
func (r *Request) miss(m *gwv1.HTTPRouteMatch, c *candidate) string {
	typ, val := pathOf(m)
	c.path, c.pathValue = typ, val
	switch typ {
	case gwv1.PathMatchExact:
		if r.Path != val {
			return fmt.Sprintf("path %s is not %s (Exact)", r.Path, val)
		}
	case gwv1.PathMatchPathPrefix:
		if !PrefixMatches(val, r.Path) {
			return fmt.Sprintf("path %s does not match PathPrefix %s", r.Path, val)
		}
		c.prefix = len(val)
		if val != "/" {
			c.prefix = len(strings.TrimSuffix(val, "/")) // "a trailing / is ignored"
		}
	case gwv1.PathMatchRegularExpression:
		ok, err := fullMatch(val, r.Path)
		if err != nil {
			return fmt.Sprintf("path regular expression %q: %v", val, err)
		}
		if !ok {
			return fmt.Sprintf("path %s does not match RegularExpression %s", r.Path, val)
		}
	default:
		return fmt.Sprintf("path match type %q is not one of Gateway API's", typ)
	}
	if m.Method != nil {
		if r.Method != string(*m.Method) {
			return fmt.Sprintf("method %s is not %s", r.Method, *m.Method)
		}
		c.method = true
	}
	// "If multiple entries specify equivalent header names, only the
	// first entry with an equivalent name MUST be considered" (without
	// case), and the same for query params (exactly).
	seen := map[string]bool{}
	for _, h := range m.Headers {
		name := strings.ToLower(string(h.Name))
		if seen[name] {
			continue
		}
		seen[name] = true
		regex := h.Type != nil && *h.Type == gwv1.HeaderMatchRegularExpression
		vals := r.header(string(h.Name))
		if why := valuesMiss("header", string(h.Name), h.Value, regex, vals); why != "" {
			return why
		}
	}
	c.headers = len(seen)
	clear(seen)
	for _, q := range m.QueryParams {
		if seen[string(q.Name)] {
			continue
		}
		seen[string(q.Name)] = true
		regex := q.Type != nil && *q.Type == gwv1.QueryParamMatchRegularExpression
		// "it is *recommended* that implementations should match against
		// the first value of the param".
		vals := r.Query[string(q.Name)]
		if len(vals) > 1 {
			vals = vals[:1]
		}
		if why := valuesMiss("query param", string(q.Name), q.Value, regex, vals); why != "" {
			return why
		}
	}
	c.queries = len(seen)
	return ""
}

// valuesMiss says why none of a header's or query param's values
// matches, "" when one does.
func valuesMiss(what, name, want string, regex bool, vals []string) string {
	if name != "" {
		what += " " + name + ":"
	}
	if len(vals) == 0 {
		return fmt.Sprintf("no %s", strings.TrimSuffix(what, ":"))
	}
	for _, v := range vals {
		if !regex && v == want {
			return ""
		}
		if regex {
			ok, err := fullMatch(want, v)
			if err != nil {
				return fmt.Sprintf("%s regular expression %q: %v", what, want, err)
			}
			if ok {
				return ""
			}
		}
	}
	op := "is not"
	if regex {
		op = "does not match"
	}
	return fmt.Sprintf("%s %s %s %s", what, strings.Join(vals, ","), op, want)
}

// PrefixMatches reports whether a PathPrefix value matches a path:
// "done on a path element by element basis ... a trailing / is
// ignored": /abc matches /abc, /abc/ and /abc/def, not /abcd.
func PrefixMatches(prefix, path string) bool {
	p := strings.TrimSuffix(prefix, "/")
	return p == "" || path == p || strings.HasPrefix(path, p+"/")
}

// fullMatch matches a regular expression (Go's RE2) against the whole
// value, as Envoy-based implementations do; Gateway API leaves dialect
// and anchoring to implementations.
func fullMatch(re, s string) (bool, error) {
	x, err := regexp.Compile(`^(?:` + re + `)$`)
	if err != nil {
		return false, err
	}
	return x.MatchString(s), nil
}
