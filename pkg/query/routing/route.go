package routing

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Route follows the request through the Gateways of g, or through the one
// that gateway names ("namespace/name") when it is not empty. The error
// is for a gateway that is not there; a request nothing handles is a
// Trace with a Failure.
func Route(g *topology.Graph, req Request, gateway string) (*Trace, error) {
	t := &Trace{Gateway: topology.None, Listener: topology.None, Route: topology.None, Rule: topology.None}
	gws := slices.Clone(g.ByKind(hierarchy.GatewayKind))
	if gateway != "" {
		ns, name, ok := strings.Cut(gateway, "/")
		if !ok || ns == "" || name == "" {
			return nil, fmt.Errorf("--gateway %q: want NAMESPACE/NAME", gateway)
		}
		id := g.Lookup(topology.Ref{Group: hierarchy.GatewayGroup, Kind: "Gateway", Namespace: ns, Name: name})
		if id == topology.None {
			return nil, fmt.Errorf("--gateway %s: no such Gateway", gateway)
		}
		gws = []topology.NodeID{id}
	}
	slices.SortFunc(gws, func(a, b topology.NodeID) int { return strings.Compare(g.Node(a).Ref.Key(), g.Node(b).Ref.Key()) })

	var accepted []*listener
	for _, gw := range gws {
		if l := t.chooseListener(g, &req, gw); l != nil {
			accepted = append(accepted, l)
		}
	}
	switch len(accepted) {
	case 0:
		where := "any Gateway"
		if gateway != "" {
			where = "Gateway " + gateway
		}
		t.Failure = fmt.Sprintf("no listener of %s accepts %s requests for %s on port %d", where, strings.ToUpper(req.Scheme), req.Host, req.Port)
		return t, nil
	case 1:
	default:
		var names []string
		for _, l := range accepted {
			names = append(names, g.Node(l.gw).Ref.String())
		}
		t.Failure = fmt.Sprintf("listeners of %d Gateways accept the request (%s): which one receives it depends on the address the client connects to; name one with --gateway NAMESPACE/NAME", len(accepted), strings.Join(names, ", "))
		return t, nil
	}
	l := accepted[0]
	t.Gateway, t.Listener = l.gw, l.node
	t.Path = append(t.Path, g.Node(l.gw).Parents...)
	t.Path = append(t.Path, l.gw)
	if l.set != topology.None {
		t.Path = append(t.Path, l.set)
	}
	t.Path = append(t.Path, l.node)

	win := t.chooseRule(g, &req, l)
	if win == nil {
		return t, nil
	}
	t.Route, t.Rule, t.Match, t.Condition, t.Hostname = win.route, win.rule, win.match, win.cond, win.hostname
	t.Path = append(t.Path, win.route, win.rule)
	rule := win.view.rules[win.ruleIndex]
	t.Filters = rule.filters
	t.Backends = backends(g, win, rule.backends)
	return t, nil
}

// listener is a listener of a Gateway, its own or an accepted
// ListenerSet's (GEP-1713: a Gateway serves both).
type listener struct {
	node, gw, set topology.NodeID
	spec          gwv1.Listener
}

// listenersOf lists the listeners of a Gateway in precedence order
// (GEP-1713 "Listener precedence"): the Gateway's own, then those of its
// ListenerSets, oldest first, then by namespace/name.
func listenersOf(g *topology.Graph, gw topology.NodeID) []listener {
	n := g.Node(gw)
	obj, _ := n.Object.(*gwv1.Gateway)
	if obj == nil {
		return nil
	}
	var out []listener
	for _, l := range obj.Spec.Listeners {
		if sec, ok := n.Sections[string(l.Name)]; ok {
			out = append(out, listener{node: sec, gw: gw, set: topology.None, spec: l})
		}
	}
	var sets []*gwv1.ListenerSet
	ids := map[*gwv1.ListenerSet]topology.NodeID{}
	for _, c := range n.Children {
		if ls, ok := g.Node(c).Object.(*gwv1.ListenerSet); ok {
			sets = append(sets, ls)
			ids[ls] = c
		}
	}
	slices.SortFunc(sets, func(a, b *gwv1.ListenerSet) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	for _, ls := range sets {
		for _, l := range ls.Spec.Listeners {
			if sec, ok := g.Node(ids[ls]).Sections[string(l.Name)]; ok {
				out = append(out, listener{node: sec, gw: gw, set: ids[ls], spec: gwv1.Listener(l)})
			}
		}
	}
	return out
}

// protocols are the listener protocols that serve a URL scheme.
var protocols = map[string]gwv1.ProtocolType{"http": gwv1.HTTPProtocolType, "https": gwv1.HTTPSProtocolType}

// chooseListener picks the listener of gw that accepts the request, and
// records a step for each listener. Among listeners that accept it, the
// most specific hostname wins (Gateway "Listeners that are distinct only
// by Hostname": exact, then wildcards with more labels, then none); on a
// tie the first in precedence order.
func (t *Trace) chooseListener(g *topology.Graph, req *Request, gw topology.NodeID) *listener {
	ls := listenersOf(g, gw)
	var ok []int
	miss := make([]string, len(ls))
	for i := range ls {
		l := &ls[i].spec
		switch {
		case l.Protocol != protocols[req.Scheme]:
			miss[i] = fmt.Sprintf("protocol %s does not serve %s:// requests", l.Protocol, req.Scheme)
		case l.Port != req.Port:
			miss[i] = fmt.Sprintf("port %d, not %d", l.Port, req.Port)
		case l.Hostname != nil && *l.Hostname != "" && !HostMatches(string(*l.Hostname), req.Host):
			miss[i] = fmt.Sprintf("hostname %s does not match %s", *l.Hostname, req.Host)
		default:
			ok = append(ok, i)
		}
	}
	best := -1
	for _, i := range ok {
		if best < 0 || listenerSpecificity(ls[i].spec.Hostname) > listenerSpecificity(ls[best].spec.Hostname) {
			best = i
		}
	}
	for i := range ls {
		s := Step{Stage: StageListener, Object: g.Node(ls[i].node).Ref.API(), Verdict: NoMatch, Reason: miss[i]}
		switch {
		case i == best:
			s.Verdict, s.Reason = Chosen, "accepts "+strings.ToUpper(req.Scheme)+" on port "+strconv.Itoa(int(req.Port))+" for "+hostnameOr(ls[i].spec.Hostname, "any host")
		case miss[i] == "":
			s.Verdict = Outranked
			s.Reason = fmt.Sprintf("%s also accepts it, with a more specific hostname (%s over %s)", g.Node(ls[best].node).Ref, hostnameOr(ls[best].spec.Hostname, "none"), hostnameOr(ls[i].spec.Hostname, "none"))
			if listenerSpecificity(ls[i].spec.Hostname) == listenerSpecificity(ls[best].spec.Hostname) {
				s.Reason = fmt.Sprintf("%s also accepts it with a hostname as specific and comes first", g.Node(ls[best].node).Ref)
			}
		}
		t.Steps = append(t.Steps, s)
	}
	if best < 0 {
		return nil
	}
	return &ls[best]
}

func hostnameOr(h *gwv1.Hostname, none string) string {
	if h == nil || *h == "" {
		return none
	}
	return string(*h)
}

// listenerSpecificity orders listener hostnames (Gateway "Listeners that
// are distinct only by Hostname"): an exact hostname first, then
// wildcards by "the number of dots in the hostname to the right of the
// wildcard character", then no hostname.
func listenerSpecificity(h *gwv1.Hostname) int {
	switch {
	case h == nil || *h == "":
		return 0
	case strings.HasPrefix(string(*h), "*."):
		return 1 + strings.Count(string(*h), ".")
	}
	return math.MaxInt
}

// HostMatches reports whether a listener or route hostname matches a
// request's host: equal, or for a wildcard "*.example.com" a host ending in
// ".example.com" with at least one more label ("would match both
// test.example.com, and foo.test.example.com, but not example.com").
// Hostnames compare without regard to case (RFC 4343).
func HostMatches(pattern, host string) bool {
	pattern = strings.ToLower(pattern)
	if suffix, wild := strings.CutPrefix(pattern, "*"); wild {
		return strings.HasSuffix(host, suffix) && len(host) > len(suffix)
	}
	return pattern == host
}

// backends are the backendRefs of the chosen rule, resolved as the
// topology resolved them: a backend the graph did not link below the rule
// is missing, or in another namespace without a ReferenceGrant.
func backends(g *topology.Graph, c *candidate, refs []gwv1.BackendRef) []Backend {
	var sum int64
	for _, b := range refs {
		sum += int64(weightOf(b.Weight))
	}
	out := make([]Backend, 0, len(refs))
	for _, b := range refs {
		ref := strata.Ref{Group: hierarchy.CoreGroup, Kind: "Service", Namespace: c.view.namespace, Name: string(b.Name)}
		if b.Group != nil {
			ref.Group = string(*b.Group)
		}
		if b.Kind != nil {
			ref.Kind = string(*b.Kind)
		}
		if b.Namespace != nil {
			ref.Namespace = string(*b.Namespace)
		}
		be := Backend{Ref: ref, Weight: weightOf(b.Weight), Node: topology.None}
		if b.Port != nil {
			be.Port = int32(*b.Port)
		}
		be.Share = "0%"
		if sum > 0 {
			be.Share = strconv.FormatFloat(math.Round(float64(be.Weight)*1000/float64(sum))/10, 'f', -1, 64) + "%"
		}
		node := g.Lookup(topology.FromAPI(ref))
		switch {
		case ref.Group != hierarchy.CoreGroup || ref.Kind != "Service":
			be.Problem = "not a Service: what it does is implementation-specific"
		case node == topology.None:
			be.Problem = "no such Service"
		case !slices.Contains(g.Node(c.rule).Children, node):
			be.Problem = fmt.Sprintf("in namespace %s, and no ReferenceGrant there allows %ss of namespace %s to refer to it", ref.Namespace, c.view.kind, c.view.namespace)
		case b.Port == nil:
			be.Problem = "no port: a Service backendRef needs one"
		default:
			be.Node = node
			if sec, problem := servicePort(g, node, be.Port); problem != "" {
				be.Problem, be.Node = problem, topology.None
			} else if sec != topology.None {
				be.Node = sec
				be.Ref.SectionName = g.Node(sec).Ref.Section
			}
		}
		out = append(out, be)
	}
	return out
}

// servicePort finds the section of a Service's port: None when the port
// has no name, or a problem when the Service has no such port.
func servicePort(g *topology.Graph, svc topology.NodeID, port int32) (topology.NodeID, string) {
	n := g.Node(svc)
	obj, ok := n.Object.(*corev1.Service)
	if !ok {
		return topology.None, ""
	}
	for _, p := range obj.Spec.Ports {
		if p.Port != port {
			continue
		}
		if sec, ok := n.Sections[p.Name]; ok && p.Name != "" {
			return sec, ""
		}
		return topology.None, ""
	}
	return topology.None, fmt.Sprintf("Service %s has no port %d", n.Ref, port)
}

func weightOf(w *int32) int32 {
	if w == nil {
		return 1
	}
	return *w
}
