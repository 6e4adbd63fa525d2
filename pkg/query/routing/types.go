package routing

import (
	"net/http"
	"net/url"
	"slices"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Request is the request simulated, as the Gateway sees it: the URL taken
// apart, the port explicit, the headers keyed by their canonical names. A
// TLS, TCP or UDP connection is a Request without method, path or headers.
type Request struct {
	Method string `json:"method,omitempty"`
	URL    string `json:"url"`
	// Scheme is http, https, tls, tcp or udp; it selects listeners of
	// protocol HTTP, HTTPS, TLS, TCP or UDP (Schemes).
	Scheme string `json:"scheme"`
	// Host is the hostname matched against listener and route hostnames,
	// lower-cased, without a port (HTTPRouteSpec.hostnames: "MUST ignore
	// any port value specified in the HTTP Host header"); a TLS
	// connection's SNI; a TCP or UDP one's matches nothing.
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
	// Outranked: it matches, but another one takes precedence.
	Outranked = "Outranked"
	// NoMatch: it does not match; the reason says why.
	NoMatch = "NoMatch"
	// Passed: a route whose hostnames match; its matches follow.
	Passed = "Passed"
)

// Step is one listener, route or match considered, and what became of it.
type Step struct {
	Stage string `json:"stage"`
	// Object is the listener (Gateway#listener, ListenerSet#listener),
	// the route, or the rule (Route#rule) whose match this is.
	Object strata.Ref `json:"object"`
	// Match is the index of the match in the rule's matches (0 for the
	// default one); Match steps only.
	Match *int `json:"match,omitempty"`
	// Condition is the match as written; Match steps only.
	Condition string `json:"condition,omitempty"`
	Verdict   string `json:"verdict"`
	Reason    string `json:"reason"`
	// DecidedBy names the precedence rule that made an Outranked match
	// lose, e.g. "Exact path".
	DecidedBy string `json:"decidedBy,omitempty"`
}

// Backend is one backendRef of the chosen rule.
type Backend struct {
	Ref  strata.Ref `json:"ref"` // with its port's section when named
	Port int32      `json:"port,omitempty"`
	// Weight as written (default 1); Share is its part of the rule's
	// traffic (HTTPBackendRef.weight: weight / sum of the weights).
	Weight int32  `json:"weight"`
	Share  string `json:"share"`
	// Problem says why requests sent to it fail ("500 status codes MUST
	// be returned for requests that would have otherwise been routed to
	// an invalid backend").
	Problem string `json:"problem,omitempty"`

	// Outcome is what the backendRef's own filters do, after the rule's
	// ("executed if and only if the request is being forwarded to the
	// backend defined here"); nil when it has none.
	*Outcome `json:",omitempty"`

	// Node is the backend's node (its port's section when it has one),
	// or topology.None when it is not in the graph below the rule.
	Node topology.NodeID `json:"-"`
}

// Trace is what Route found: the steps in the order they were taken,
// then the choice. When nothing handles the request, Failure says why and
// the node fields are topology.None.
type Trace struct {
	Steps []Step
	// Failure is empty when a rule handles the request.
	Failure string
	// Gateway, Listener, Route and Rule chosen; Match is the index of the
	// winning match in the rule.
	Gateway, Listener, Route, Rule topology.NodeID
	Match                          int
	// Condition is the winning match as written.
	Condition string
	// Hostname is the route (or listener) hostname that matched.
	Hostname string
	// Outcome is what the chosen rule's filters do to the request.
	Outcome Outcome
	// Backends of the chosen rule, in order.
	Backends []Backend
	// Path is the context path of the request, least specific first,
	// from the GatewayClass to the rule (without Namespaces).
	Path []topology.NodeID
}

// Nodes are the nodes whose effective policies apply to the request: its
// path and the backends (with their Service when the port is a
// section), unless a filter answers the request.
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
