package routing

import (
	"net/http"
	"net/url"
	"slices"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Request is the request simulated, as the Gateway sees it: the URL taken
// apart, the port made explicit (the scheme's default when the URL has
// none) and the headers keyed by their canonical names. A TLS, TCP or
// UDP connection is a Request without method, path or headers.
type Request struct {
	Method string `json:"method,omitempty"`
	URL    string `json:"url"`
	// Scheme is http, https, tls, tcp or udp; it selects listeners of
	// protocol HTTP, HTTPS, TLS, TCP or UDP (Schemes).
	Scheme string `json:"scheme"`
	// Host is the hostname matched against listener and route hostnames,
	// lower-cased, without a port (HTTPRouteSpec.hostnames: "MUST ignore
	// any port value specified in the HTTP Host header"). A Host header
	// overrides the URL's, as it does on the wire. For a TLS connection
	// it is the SNI; a TCP or UDP one's matches nothing, and may be empty.
	Host    string      `json:"host,omitempty"`
	Port    int32       `json:"port"`
	Path    string      `json:"path,omitempty"`
	Query   url.Values  `json:"query,omitempty"`
	Headers http.Header `json:"headers,omitempty"`
}

// Stages of a Step.
const (
	StageListener = "Listener"
	StageRoute    = "Route"
	StageMatch    = "Match"
)

// Verdicts of a Step.
const (
	// Chosen: the listener, or the rule's match, that handles the request.
	Chosen = "Chosen"
	// Outranked: it matches the request, but another one takes
	// precedence; the reason names it and the rule that decided.
	Outranked = "Outranked"
	// NoMatch: it does not match the request; the reason says which
	// condition fails.
	NoMatch = "NoMatch"
	// Passed: a route whose hostnames match; its matches are the steps
	// that follow it.
	Passed = "Passed"
)

// Step is one listener, route or match considered, and what became of it.
type Step struct {
	Stage string `json:"stage"`
	// Object is the listener (Gateway#listener, ListenerSet#listener),
	// the route, or the rule (Route#rule) whose match this is.
	Object strata.Ref `json:"object"`
	// Match is the index of the match in the rule's matches (a rule
	// without matches has the default one, index 0); Match steps only.
	Match *int `json:"match,omitempty"`
	// Condition is the match as written, e.g. "PathPrefix /api, method
	// GET, 1 header"; Match steps only.
	Condition string `json:"condition,omitempty"`
	Verdict   string `json:"verdict"`
	Reason    string `json:"reason"`
	// DecidedBy names the rule of the precedence order that made an
	// Outranked match lose, e.g. "Exact path" or "oldest route".
	DecidedBy string `json:"decidedBy,omitempty"`
}

// Backend is one backendRef of the chosen rule.
type Backend struct {
	// Ref is the backend: a Service, and its port's section when the
	// port is named.
	Ref  strata.Ref `json:"ref"`
	Port int32      `json:"port,omitempty"`
	// Weight as written (default 1); Share is its part of the rule's
	// traffic (HTTPBackendRef.weight: weight / sum of the weights).
	Weight int32  `json:"weight"`
	Share  string `json:"share"`
	// Problem says why requests sent to it fail (HTTPRouteRule
	// backendRefs: "500 status codes MUST be returned for requests that
	// would have otherwise been routed to an invalid backend").
	Problem string `json:"problem,omitempty"`

	// Outcome is what the backendRef's own filters do to the requests
	// sent to it ("Filters defined at this level should be executed if
	// and only if the request is being forwarded to the backend defined
	// here"), after the rule's; nil when it has none.
	*Outcome `json:",omitempty"`

	// Node is the backend's node (its port's section when it has one),
	// or topology.None when the backend is not in the graph below the
	// rule.
	Node topology.NodeID `json:"-"`
}

// Trace is what Route found: the steps in the order they were taken,
// then the choice. When nothing handles the request, Failure says why and
// the node fields are topology.None.
type Trace struct {
	Steps []Step
	// Failure is empty when a rule handles the request.
	Failure string
	// Gateway, Listener (a section of the Gateway or of a ListenerSet),
	// Route and Rule (a section of the route) chosen; Match is the
	// index of the winning match in the rule.
	Gateway, Listener, Route, Rule topology.NodeID
	Match                          int
	// Condition is the winning match as written.
	Condition string
	// Hostname is the route (or listener) hostname that matched the
	// request's host; empty when neither has one.
	Hostname string
	// Outcome is what the chosen rule's filters do to the request.
	Outcome Outcome
	// Backends of the chosen rule, in order.
	Backends []Backend
	// Path is the context path of the request, least specific first:
	// the GatewayClass, the Gateway, a ListenerSet, the listener, the
	// route and its rule (without the Namespaces, which the engine puts
	// above it).
	Path []topology.NodeID
}

// Nodes are the nodes the request passes through: its path and the
// backends (with their Service when the port is a section), the nodes
// whose effective policies apply to it; not the backends when a filter
// answers the request (a redirect, a CORS preflight).
func (t *Trace) Nodes(g *topology.Graph) []topology.NodeID {
	out := append([]topology.NodeID(nil), t.Path...)
	if t.Outcome.Response != nil {
		return out
	}
	add := func(n topology.NodeID) {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, b := range t.Backends {
		if b.Node == topology.None {
			continue
		}
		if n := g.Node(b.Node); n.Ref.Section != "" {
			add(g.Lookup(n.Ref.Object()))
		}
		add(b.Node)
	}
	return out
}
