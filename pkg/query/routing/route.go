package routing

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

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
		t.Failure = fmt.Sprintf("no listener of %s accepts %s on port %d", where, req.what(), req.Port)
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

	t.chose(g, req, t.chooseRule(g, &req, l))
	return t, nil
}

// Within follows the request through one route alone, assumed to
// receive it, for a reader who cannot see the listener: other routes,
// which may outrank it, are not considered; the Trace's Gateway and
// Listener are None and its Path is the route and its rule.
func Within(g *topology.Graph, req Request, route topology.NodeID) *Trace {
	t := &Trace{Gateway: topology.None, Listener: topology.None, Route: topology.None, Rule: topology.None}
	routes := routesOf(g, &req, []topology.NodeID{route})
	if len(routes) == 0 {
		t.Failure = fmt.Sprintf("%ss do not handle %s", g.Node(route).Ref.Kind, req.what())
		return t
	}
	l := &listener{node: topology.None, gw: topology.None, set: topology.None}
	t.chose(g, req, t.decide(g, &req, l, routes, func() string {
		if len(t.Steps) > 0 && t.Steps[0].Verdict == NoMatch {
			return fmt.Sprintf("%s does not serve it: %s", g.Node(route).Ref, t.Steps[0].Reason)
		}
		if req.Connection() {
			return fmt.Sprintf("%s does not serve %s", g.Node(route).Ref, req.what())
		}
		return fmt.Sprintf("no rule of %s matches %s %s%s", g.Node(route).Ref, req.Method, req.Host, req.Path)
	}))
	return t
}

// chose records the winning match win, if any, its backends and filters.
func (t *Trace) chose(g *topology.Graph, req Request, win *candidate) {
	if win == nil {
		return
	}
	t.Route, t.Rule, t.Match, t.Condition, t.Hostname = win.route, win.rule, win.match, win.cond, win.hostname
	t.Path = append(t.Path, win.route, win.rule)
	rule := win.view.rules[win.ruleIndex]
	t.Backends = backends(g, win, rule.backends)
	t.filter(g, req, win, rule)
}

// filter applies the rule's filters, then each backendRef's own, to the
// request, and resolves the mirrors.
func (t *Trace) filter(g *topology.Graph, req Request, win *candidate, rule ruleView) {
	m := PathMatch{Type: win.path, Value: win.pathValue}
	t.Outcome = Apply(req, m, rule.filters)
	resolveMirrors(g, win.view.gk, win.view.namespace, t.Outcome.Mirrors)
	if t.Outcome.Response != nil {
		// "RequestRedirect filter must not be used together with
		// backendRefs" (HTTPRouteRule).
		if len(rule.backends) > 0 {
			for i := range t.Outcome.Filters {
				if f := &t.Outcome.Filters[i]; f.Type == string(gwv1.HTTPRouteFilterRequestRedirect) && f.Problem == "" {
					f.Problem = "a rule with a RequestRedirect must not have backendRefs: the rule is invalid"
				}
			}
		}
		return // no backend is reached: their filters never run
	}
	for i, b := range rule.backends {
		if len(b.filters) == 0 {
			continue
		}
		fw := t.Outcome.Forwarded
		if fw == nil {
			fw = forwardedOf(req)
		}
		o := applyTo(fw.clone(), req, m, b.filters)
		resolveMirrors(g, win.view.gk, win.view.namespace, o.Mirrors)
		t.Backends[i].Outcome = &o
	}
}

// listener is a listener of a Gateway, its own or an accepted
// ListenerSet's (GEP-1713: a Gateway serves both).
type listener struct {
	node, gw, set topology.NodeID
	spec          gwv1.Listener
}

// listenersOf lists the listeners of a Gateway in precedence order
// (GEP-1713): its own, then its ListenerSets', oldest first, then by
// namespace/name.
func listenersOf(g *topology.Graph, gw topology.NodeID) []listener {
	n := g.Node(gw)
	obj, _ := n.Object.(*gwv1.Gateway)
	if obj == nil {
		return nil
	}
	var out []listener
	for _, l := range obj.Spec.Listeners {
		if sec, ok := n.Sections.Get(string(l.Name)); ok {
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
			if sec, ok := g.Node(ids[ls]).Sections.Get(string(l.Name)); ok {
				out = append(out, listener{node: sec, gw: gw, set: ids[ls], spec: gwv1.Listener(l)})
			}
		}
	}
	return out
}

// chooseListener picks the listener of gw that accepts the request,
// recording a step for each: the most specific hostname wins
// (listenerSpecificity), then the first in precedence order.
func (t *Trace) chooseListener(g *topology.Graph, req *Request, gw topology.NodeID) *listener {
	ls := listenersOf(g, gw)
	var ok []int
	miss := make([]string, len(ls))
	sc := Schemes[req.Scheme]
	kind := "requests"
	if sc.Connection {
		kind = "connections"
	}
	for i := range ls {
		l := &ls[i].spec
		switch {
		case l.Protocol != sc.Protocol:
			miss[i] = fmt.Sprintf("protocol %s does not serve %s:// %s", l.Protocol, req.Scheme, kind)
		case l.Port != req.Port:
			miss[i] = fmt.Sprintf("port %d, not %d", l.Port, req.Port)
		// TCP and UDP listeners have no hostname ("hostname must not be
		// specified for protocols ['TCP', 'UDP']"); TLS ones match the
		// SNI ("The Listener Hostname MUST match the SNI").
		case hostnamed(sc) && l.Hostname != nil && *l.Hostname != "" && !HostMatches(string(*l.Hostname), req.Host):
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
			s.Verdict, s.Reason = Chosen, "accepts "+strings.ToUpper(req.Scheme)+" on port "+strconv.Itoa(int(req.Port))
			if hostnamed(sc) {
				s.Reason += " for " + hostnameOr(ls[i].spec.Hostname, "any host")
			}
			if sc.Protocol == gwv1.TLSProtocolType {
				s.Reason += " (" + string(tlsMode(&ls[i].spec)) + ")"
			}
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

// hostnamed says whether listeners of a scheme's protocol match hostnames.
func hostnamed(sc Scheme) bool {
	return sc.Protocol != gwv1.TCPProtocolType && sc.Protocol != gwv1.UDPProtocolType
}

// tlsMode is a TLS listener's mode: Terminate unless it says otherwise
// (ListenerTLSConfig.mode: "+kubebuilder:default=Terminate").
func tlsMode(l *gwv1.Listener) gwv1.TLSModeType {
	if l.TLS != nil && l.TLS.Mode != nil && *l.TLS.Mode != "" {
		return *l.TLS.Mode
	}
	return gwv1.TLSModeTerminate
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
// request's host, without case (RFC 4343): equal, or for "*.example.com"
// a host with at least one more label ("but not example.com").
func HostMatches(pattern, host string) bool {
	pattern = strings.ToLower(pattern)
	if suffix, wild := strings.CutPrefix(pattern, "*"); wild {
		return strings.HasSuffix(host, suffix) && len(host) > len(suffix)
	}
	return pattern == host
}

// backends are the backendRefs of the chosen rule, resolved as the
// topology resolved them.
func backends(g *topology.Graph, c *candidate, refs []backendView) []Backend {
	var sum int64
	for _, b := range refs {
		sum += int64(weightOf(b.ref.Weight))
	}
	out := make([]Backend, 0, len(refs))
	for _, bv := range refs {
		b := bv.ref
		ref := backendRef(b.BackendObjectReference, c.view.namespace)
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
		if sec, ok := n.Sections.Get(p.Name); ok && p.Name != "" {
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
