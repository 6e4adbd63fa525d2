package topology

import (
	"fmt"
	"github.com/strata-dev/strata/pkg/hierarchy"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1b1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"github.com/strata-dev/strata/pkg/snapshot"
)

// GeneratedRuleName names a route rule that has no name: "rule-<index>",
// index counted from 0 in spec.rules. A policy may target it with
// sectionName; an explicit rule name equal to a generated one is reported
// as a duplicate section.
func GeneratedRuleName(i int) string { return fmt.Sprintf("rule-%d", i) }

// route is the shape shared by every xRoute kind, so attachment is written
// once.
type route struct {
	gk        schema.GroupKind
	meta      *metav1.ObjectMeta
	obj       any
	parents   []gwv1.ParentReference
	hostnames []gwv1.Hostname
	rules     []routeRule
}

type routeRule struct {
	name     *gwv1.SectionName
	backends []gwv1.BackendObjectReference
}

// Build makes the DAG of a snapshot:
//
//	GatewayClass ─> Gateway ─> Gateway#listener ─> xRoute ─> xRoute#rule ─> Service ─> Service#port
//
// plus a Namespace node per namespace (an umbrella, not an edge: see
// Context). Routes attach to listeners as Gateway API defines (parentRef
// sectionName and port, allowedRoutes namespaces and kinds, hostname
// intersection); backends attach to rules, across namespaces only with a
// ReferenceGrant.
func Build(s *snapshot.Snapshot) *Graph {
	n := len(s.GatewayClasses) + len(s.Gateways) + len(s.Services) + len(s.Namespaces) +
		2*(len(s.HTTPRoutes)+len(s.GRPCRoutes)+len(s.TCPRoutes)+len(s.TLSRoutes)+len(s.UDPRoutes))
	g := &Graph{
		Nodes:    make([]Node, 0, 2*n),
		index:    make(map[Ref]NodeID, 2*n),
		byKind:   map[schema.GroupKind][]NodeID{},
		byKindIn: map[kindIn][]NodeID{},
		grants:   map[string][]*gwv1b1.ReferenceGrant{},
	}
	for _, rg := range s.ReferenceGrants {
		g.grants[rg.Namespace] = append(g.grants[rg.Namespace], rg)
	}
	for _, ns := range s.Namespaces {
		id := g.namespaceNode(ns.Name)
		g.Nodes[id].Labels = ns.Labels
		g.Nodes[id].Generation = ns.Generation
		g.Nodes[id].Object = ns
	}
	for _, gc := range s.GatewayClasses {
		g.object(hierarchy.GatewayClassKind, &gc.ObjectMeta, gc)
	}
	for _, gw := range s.Gateways {
		g.addGateway(gw)
	}
	for _, svc := range s.Services {
		g.addService(svc)
	}
	b := &attacher{g: g, nsLabels: map[string]labels.Set{}}
	for _, ns := range s.Namespaces {
		b.nsLabels[ns.Name] = ns.Labels
	}
	for _, r := range routes(s) {
		b.addRoute(r)
	}
	for i := range g.Nodes {
		slices.Sort(g.Nodes[i].Parents)
		g.Nodes[i].Parents = slices.Compact(g.Nodes[i].Parents)
		slices.Sort(g.Nodes[i].Children)
		g.Nodes[i].Children = slices.Compact(g.Nodes[i].Children)
	}
	slices.SortFunc(g.Problems, func(a, b Problem) int {
		return strings.Compare(a.Object.Key()+"\x00"+a.Field, b.Object.Key()+"\x00"+b.Field)
	})
	return g
}

func routes(s *snapshot.Snapshot) []route {
	out := make([]route, 0, len(s.HTTPRoutes)+len(s.GRPCRoutes)+len(s.TCPRoutes)+len(s.TLSRoutes)+len(s.UDPRoutes))
	for _, r := range s.HTTPRoutes {
		rr := route{gk: hierarchy.HTTPRouteKind, meta: &r.ObjectMeta, obj: r, parents: r.Spec.ParentRefs, hostnames: r.Spec.Hostnames}
		for _, rule := range r.Spec.Rules {
			x := routeRule{name: rule.Name}
			for _, b := range rule.BackendRefs {
				x.backends = append(x.backends, b.BackendObjectReference)
			}
			rr.rules = append(rr.rules, x)
		}
		out = append(out, rr)
	}
	for _, r := range s.GRPCRoutes {
		rr := route{gk: hierarchy.GRPCRouteKind, meta: &r.ObjectMeta, obj: r, parents: r.Spec.ParentRefs, hostnames: r.Spec.Hostnames}
		for _, rule := range r.Spec.Rules {
			x := routeRule{name: rule.Name}
			for _, b := range rule.BackendRefs {
				x.backends = append(x.backends, b.BackendObjectReference)
			}
			rr.rules = append(rr.rules, x)
		}
		out = append(out, rr)
	}
	for _, r := range s.TLSRoutes {
		rr := route{gk: hierarchy.TLSRouteKind, meta: &r.ObjectMeta, obj: r, parents: r.Spec.ParentRefs, hostnames: r.Spec.Hostnames}
		for _, rule := range r.Spec.Rules {
			rr.rules = append(rr.rules, backendRule(rule.Name, rule.BackendRefs))
		}
		out = append(out, rr)
	}
	for _, r := range s.TCPRoutes {
		rr := route{gk: hierarchy.TCPRouteKind, meta: &r.ObjectMeta, obj: r, parents: r.Spec.ParentRefs}
		for _, rule := range r.Spec.Rules {
			rr.rules = append(rr.rules, backendRule(rule.Name, rule.BackendRefs))
		}
		out = append(out, rr)
	}
	for _, r := range s.UDPRoutes {
		rr := route{gk: hierarchy.UDPRouteKind, meta: &r.ObjectMeta, obj: r, parents: r.Spec.ParentRefs}
		for _, rule := range r.Spec.Rules {
			rr.rules = append(rr.rules, backendRule(rule.Name, rule.BackendRefs))
		}
		out = append(out, rr)
	}
	return out
}

func backendRule(name *gwv1.SectionName, refs []gwv1.BackendRef) routeRule {
	x := routeRule{name: name}
	for _, b := range refs {
		x.backends = append(x.backends, b.BackendObjectReference)
	}
	return x
}

// object adds the node of a whole object, reporting a duplicate.
func (g *Graph) object(gk schema.GroupKind, m *metav1.ObjectMeta, obj any) NodeID {
	info := hierarchy.Kinds[gk]
	r := Ref{Group: gk.Group, Kind: gk.Kind, Name: m.Name}
	if info.Namespaced {
		r.Namespace = m.Namespace
	}
	if id, dup := g.index[r]; dup {
		g.Problems = append(g.Problems, Problem{Object: r, Field: "metadata.name", Message: "object given more than once; the first one is used"})
		return id
	}
	id := g.add(Node{Ref: r, Level: info.Level, Labels: m.Labels, Generation: m.Generation, Object: obj, Namespace: g.namespaceNode(r.Namespace)})
	g.indexKind(r, id)
	return id
}

// section adds a named section under an object node. A name declared twice
// is ambiguous: kept once and reported (policies targeting it are Invalid).
func (g *Graph) section(obj NodeID, name, field string) NodeID {
	o := &g.Nodes[obj]
	if id, dup := o.Sections[name]; dup {
		if o.Ambiguous == nil {
			o.Ambiguous = map[string]bool{}
		}
		o.Ambiguous[name] = true
		g.Problems = append(g.Problems, Problem{Object: o.Ref, Field: field, Message: fmt.Sprintf("duplicate %s name %q", hierarchy.Kinds[o.Ref.GroupKind()].Section, name)})
		return id
	}
	r := o.Ref
	r.Section = name
	sec := Node{Ref: r, Level: o.Level + 1, Labels: o.Labels, Generation: o.Generation, Namespace: o.Namespace}
	id := g.add(sec)
	o = &g.Nodes[obj] // g.add may have moved the slice
	if o.Sections == nil {
		o.Sections = map[string]NodeID{}
	}
	o.Sections[name] = id
	g.link(obj, id)
	return id
}

func (g *Graph) addGateway(gw *gwv1.Gateway) {
	id := g.object(hierarchy.GatewayKind, &gw.ObjectMeta, gw)
	if g.Nodes[id].Object != gw {
		return // duplicate
	}
	if gc := g.Lookup(Ref{Group: hierarchy.GatewayGroup, Kind: "GatewayClass", Name: string(gw.Spec.GatewayClassName)}); gc != None {
		g.link(gc, id)
	}
	for i, l := range gw.Spec.Listeners {
		g.section(id, string(l.Name), fmt.Sprintf("spec.listeners[%d].name", i))
	}
}

func (g *Graph) addService(svc *corev1.Service) {
	id := g.object(hierarchy.ServiceKind, &svc.ObjectMeta, svc)
	if g.Nodes[id].Object != svc {
		return
	}
	for i, p := range svc.Spec.Ports {
		if p.Name != "" {
			g.section(id, p.Name, fmt.Sprintf("spec.ports[%d].name", i))
		}
	}
}

// attacher links routes to listeners and backends.
type attacher struct {
	g         *Graph
	nsLabels  map[string]labels.Set
	selectors map[*gwv1.RouteNamespaces]labels.Selector
}

func (b *attacher) addRoute(r route) {
	g := b.g
	id := g.object(r.gk, r.meta, r.obj)
	if g.Nodes[id].Object != r.obj {
		return
	}
	ns := r.meta.Namespace
	rules := make([]NodeID, len(r.rules))
	for i, rule := range r.rules {
		name := GeneratedRuleName(i)
		if rule.name != nil && *rule.name != "" {
			name = string(*rule.name)
		}
		rules[i] = g.section(id, name, fmt.Sprintf("spec.rules[%d].name", i))
	}
	for i, p := range r.parents {
		if p.Group != nil && string(*p.Group) != hierarchy.GatewayGroup || p.Kind != nil && string(*p.Kind) != "Gateway" {
			// Mesh parents (e.g. a Service) would put a Service above a
			// route; the hierarchy only goes Gateway > route > Service.
			g.Problems = append(g.Problems, Problem{Object: g.Nodes[id].Ref, Field: fmt.Sprintf("spec.parentRefs[%d]", i), Message: "parent kinds other than Gateway are not part of Strata's hierarchy; ignored"})
			continue
		}
		gwNS := ns
		if p.Namespace != nil {
			gwNS = string(*p.Namespace)
		}
		gw := g.Lookup(Ref{Group: hierarchy.GatewayGroup, Kind: "Gateway", Namespace: gwNS, Name: string(p.Name)})
		if gw == None {
			continue
		}
		gateway := g.Nodes[gw].Object.(*gwv1.Gateway)
		for _, l := range gateway.Spec.Listeners {
			if p.SectionName != nil && *p.SectionName != l.Name || p.Port != nil && *p.Port != l.Port {
				continue
			}
			if !b.allowed(gateway, &l, r, ns) {
				continue
			}
			if lid, ok := g.Nodes[gw].Sections[string(l.Name)]; ok {
				g.link(lid, id)
			}
		}
	}
	for i, rule := range r.rules {
		for _, be := range rule.backends {
			if be.Group != nil && string(*be.Group) != hierarchy.CoreGroup || be.Kind != nil && string(*be.Kind) != "Service" {
				continue
			}
			to := Ref{Group: hierarchy.CoreGroup, Kind: "Service", Namespace: ns, Name: string(be.Name)}
			if be.Namespace != nil {
				to.Namespace = string(*be.Namespace)
			}
			svc := g.Lookup(to)
			if svc == None {
				continue
			}
			if to.Namespace != ns && !g.Granted(r.gk, ns, to) {
				continue
			}
			g.link(rules[i], svc)
		}
	}
}

// defaultKinds are the route kinds a listener accepts when allowedRoutes
// names none, by protocol (Gateway API Listener.allowedRoutes.kinds).
var defaultKinds = map[gwv1.ProtocolType][]schema.GroupKind{
	gwv1.HTTPProtocolType:  {hierarchy.HTTPRouteKind, hierarchy.GRPCRouteKind},
	gwv1.HTTPSProtocolType: {hierarchy.HTTPRouteKind, hierarchy.GRPCRouteKind},
	gwv1.TLSProtocolType:   {hierarchy.TLSRouteKind, hierarchy.TCPRouteKind},
	gwv1.TCPProtocolType:   {hierarchy.TCPRouteKind},
	gwv1.UDPProtocolType:   {hierarchy.UDPRouteKind},
}

// hostnameKinds are the route kinds whose hostnames must intersect the
// listener's hostname.
var hostnameKinds = map[schema.GroupKind]bool{hierarchy.HTTPRouteKind: true, hierarchy.GRPCRouteKind: true, hierarchy.TLSRouteKind: true}

func (b *attacher) allowed(gw *gwv1.Gateway, l *gwv1.Listener, r route, routeNS string) bool {
	kinds := defaultKinds[l.Protocol]
	var from gwv1.FromNamespaces = gwv1.NamespacesFromSame
	var ar *gwv1.AllowedRoutes = l.AllowedRoutes
	if ar != nil {
		if len(ar.Kinds) > 0 {
			kinds = kinds[:0:0]
			for _, k := range ar.Kinds {
				grp := hierarchy.GatewayGroup
				if k.Group != nil {
					grp = string(*k.Group)
				}
				kinds = append(kinds, schema.GroupKind{Group: grp, Kind: string(k.Kind)})
			}
		}
		if ar.Namespaces != nil && ar.Namespaces.From != nil {
			from = *ar.Namespaces.From
		}
	}
	if !slices.Contains(kinds, r.gk) {
		return false
	}
	switch from {
	case gwv1.NamespacesFromAll:
	case gwv1.NamespacesFromSelector:
		sel := b.selector(ar.Namespaces)
		if sel == nil || !sel.Matches(b.nsLabels[routeNS]) {
			return false
		}
	default: // Same, and unknown values (Gateway API treats them as invalid).
		if routeNS != gw.Namespace {
			return false
		}
	}
	if hostnameKinds[r.gk] && l.Hostname != nil && len(r.hostnames) > 0 {
		for _, h := range r.hostnames {
			if HostnamesIntersect(string(*l.Hostname), string(h)) {
				return true
			}
		}
		return false
	}
	return true
}

func (b *attacher) selector(rn *gwv1.RouteNamespaces) labels.Selector {
	if b.selectors == nil {
		b.selectors = map[*gwv1.RouteNamespaces]labels.Selector{}
	}
	if s, ok := b.selectors[rn]; ok {
		return s
	}
	var s labels.Selector
	if rn.Selector != nil {
		if sel, err := metav1.LabelSelectorAsSelector(rn.Selector); err == nil {
			s = sel
		}
	}
	b.selectors[rn] = s
	return s
}

// HostnamesIntersect reports whether a listener hostname and a route
// hostname can match a common host. A leading "*." matches one or more
// labels (Gateway API Hostname). Both must be non-empty: an empty
// hostname (matching every host) is the caller's case. The blueprint
// renderer uses it for .Hostnames.Intersection, so attachment and
// rendering agree on which hosts a route serves.
func HostnamesIntersect(a, b string) bool {
	if a == b {
		return true
	}
	aw, bw := strings.HasPrefix(a, "*."), strings.HasPrefix(b, "*.")
	switch {
	case aw && bw:
		return strings.HasSuffix(a[1:], b[1:]) || strings.HasSuffix(b[1:], a[1:])
	case aw:
		return strings.HasSuffix(b, a[1:])
	case bw:
		return strings.HasSuffix(a, b[1:])
	}
	return false
}
