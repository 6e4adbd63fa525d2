package topology

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/hierarchy/typed"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
)

// GeneratedRuleName names a route rule that has no name: "rule-<index>",
// counted from 0; a policy may target it with sectionName.
func GeneratedRuleName(i int) string {
	if i >= 0 && i < len(ruleNames) {
		return ruleNames[i]
	}
	return "rule-" + strconv.Itoa(i)
}

// ruleNames are the generated names of a route's first rules, made once.
var ruleNames = func() (out [64]string) {
	for i := range out {
		out[i] = "rule-" + strconv.Itoa(i)
	}
	return out
}()

// route is the shape shared by every xRoute kind (typed.Kinds).
type route = typed.Route

// Build makes the DAG of a snapshot (package doc), plus a Namespace node
// per namespace (an umbrella, not an edge). Routes attach to listeners as
// Gateway API defines (parentRef sectionName and port, allowedRoutes,
// hostname intersection); backends attach to rules, across namespaces
// only with a ReferenceGrant. Build adds no extra nodes (BuildWith).
func Build(s *snapshot.Snapshot) *Graph { return BuildWith(s, Extra{}) }

// BuildWith is Build with the nodes the policies of s need beyond its
// objects (Extra), appended after them.
func BuildWith(s *snapshot.Snapshot, extra Extra) *Graph { return Objects(s)(extra) }

// Objects builds the graph of a snapshot's objects and returns the
// function, to call once, that appends the extra nodes and returns it.
func Objects(s *snapshot.Snapshot) (finish func(Extra) *Graph) {
	rs := routes(s)
	// The graph is sized for its objects and their sections, and an
	// eighth more for implicit namespaces, frontends and extra nodes.
	objects := len(s.GatewayClasses) + len(s.Gateways) + len(s.ListenerSets) + len(s.Services) + len(s.Namespaces) + len(rs)
	n := objects
	for _, gw := range s.Gateways {
		n += len(gw.Spec.Listeners)
	}
	for _, ls := range s.ListenerSets {
		n += len(ls.Spec.Listeners)
	}
	for _, svc := range s.Services {
		n += len(svc.Spec.Ports)
	}
	for _, r := range rs {
		n += len(r.Rules)
	}
	g := &Graph{
		Nodes:  make([]*Node, 0, n+n/8+16),
		slab:   make([]Node, 0, n+n/8+16),
		index:  make(map[Ref]NodeID, objects+objects/8+16), // objects only: sections are not indexed
		grants: NewGrants(s.ReferenceGrants),
		// Declared namespaces, and a few implicit ones.
		namespaces: make(map[string]NodeID, len(s.Namespaces)+16),
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
	b := &attacher{g: g}
	for _, gw := range s.Gateways {
		g.addGateway(gw)
	}
	for _, ls := range s.ListenerSets {
		b.addListenerSet(ls)
	}
	for _, svc := range s.Services {
		g.addService(svc)
	}
	b.addRoutes(rs)
	// Each node's lists sorted, without duplicates.
	for i := range len(g.Nodes) {
		n := g.Nodes[i]
		slices.Sort(n.Parents)
		n.Parents = slices.Compact(n.Parents)
		slices.Sort(n.Children)
		n.Children = slices.Compact(n.Children)
	}
	g.listKinds()
	slices.SortStableFunc(g.Problems, compareProblems)
	return func(extra Extra) *Graph {
		g.addExtra(extra)
		g.origin = &origin{built: len(g.Nodes)}
		return g
	}
}

// compareProblems orders problems by object, then field.
func compareProblems(a, b Problem) int {
	return cmp.Or(strings.Compare(a.Object.Key(), b.Object.Key()), strings.Compare(a.Field, b.Field))
}

// routes reads the routes of s, kind by kind in hierarchy.Table's order.
func routes(s *snapshot.Snapshot) []route {
	n := 0
	for _, row := range hierarchy.Table {
		if row.Route != nil {
			n += typed.Kinds[row.GroupKind].Len(s)
		}
	}
	out := make([]route, 0, n)
	for _, row := range hierarchy.Table {
		if row.Route != nil {
			out = typed.Kinds[row.GroupKind].AppendRoutes(out, s)
		}
	}
	return out
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
	return g.add(Node{Ref: r, Level: info.Level, Labels: m.Labels, Generation: m.Generation, Object: obj, Namespace: g.namespaceNode(r.Namespace)})
}

// sections adds the named sections of an object node, name(i) being the
// name of item i of its spec.<list> ("" for no section), and sets ids[i],
// when ids is not nil, to item i's node (None for "", the first item's
// for a duplicate). A name declared twice is ambiguous: kept once and
// reported (policies targeting it are Invalid).
func (g *Graph) sections(obj NodeID, list string, n int, name func(i int) string, ids []NodeID) {
	o := g.Nodes[obj]
	secs := make(Sections, 0, n)
	// Duplicates are found by a scan, or a set for many sections (issue
	// 11, "No cliffs").
	var seen map[string]NodeID
	if n > fewSections {
		seen = make(map[string]NodeID, n)
	}
	info := hierarchy.Kinds[o.Ref.GroupKind()]
	sec := Node{Ref: o.Ref, Level: info.SectionsAt(), Labels: o.Labels, Generation: o.Generation, Namespace: o.Namespace}
	// The links down to the sections and up from them, in one list.
	links := make([]NodeID, 2*n)
	kids, ups := links[:0:n], links[n:]
	for i := range n {
		nm := name(i)
		if ids != nil {
			ids[i] = None
		}
		if nm == "" {
			continue
		}
		first, dup := None, false
		if seen != nil {
			first, dup = seen[nm]
		} else if j := slices.IndexFunc(secs, func(s Section) bool { return s.Name == nm }); j >= 0 {
			first, dup = secs[j].Node, true
		}
		if dup {
			if ids != nil {
				ids[i] = first
			}
			o := g.Nodes[obj]
			if o.Ambiguous == nil {
				o.Ambiguous = map[string]bool{}
			}
			o.Ambiguous[nm] = true
			field := fmt.Sprintf("spec.%s[%d].name", list, i)
			g.Problems = append(g.Problems, Problem{Object: o.Ref, Field: field, Message: fmt.Sprintf("duplicate %s name %q", info.Section, nm)})
			continue
		}
		sec.Ref.Section = nm
		up := ups[len(kids) : len(kids)+1 : len(kids)+1]
		up[0] = obj
		sec.Parents = up
		id := g.addUnindexed(sec)
		if seen != nil {
			seen[nm] = id
		}
		secs = append(secs, Section{Name: nm, Node: id})
		kids = append(kids, id)
		if ids != nil {
			ids[i] = id
		}
	}
	slices.SortFunc(secs, func(a, b Section) int { return strings.Compare(a.Name, b.Name) })
	o = g.Nodes[obj]
	o.Sections = secs
	if len(o.Children) == 0 {
		o.Children = kids // an append beyond the sections' makes a list of its own
	} else {
		o.Children = append(o.Children, kids...)
	}
}

// fewSections is the most sections whose duplicates are found by a scan.
const fewSections = 16

func (g *Graph) addGateway(gw *gwv1.Gateway) {
	id := g.object(hierarchy.GatewayKind, &gw.ObjectMeta, gw)
	if g.Nodes[id].Object != gw {
		return // duplicate
	}
	if gc := g.Lookup(Ref{Group: hierarchy.GatewayGroup, Kind: "GatewayClass", Name: string(gw.Spec.GatewayClassName)}); gc != None {
		g.link(gc, id)
	}
	g.sections(id, "listeners", len(gw.Spec.Listeners), func(i int) string { return string(gw.Spec.Listeners[i].Name) }, nil)
}

func (g *Graph) addService(svc *corev1.Service) {
	id := g.object(hierarchy.ServiceKind, &svc.ObjectMeta, svc)
	if g.Nodes[id].Object != svc {
		return
	}
	g.sections(id, "ports", len(svc.Spec.Ports), func(i int) string { return svc.Spec.Ports[i].Name }, nil)
}

// attacher links routes to listeners and backends.
type attacher struct {
	g         *Graph
	selectors map[*metav1.LabelSelector]labels.Selector
	// listenerSets are the listeners of each ListenerSet its Gateway
	// accepts, as Gateway listeners, so routes attach to both alike,
	// made on first use.
	listenerSets map[NodeID][]gwv1.Listener
	// touch, when set, is called with each node before link changes it
	// (Rerouted copies the nodes it changes).
	touch func(NodeID)
}

// listeners are what routes attach to in a parent node: a Gateway's
// spec.listeners, or an accepted ListenerSet's (one linked under its
// Gateway); ok is false for a ListenerSet its Gateway does not accept.
func (b *attacher) listeners(parent NodeID) (ls []gwv1.Listener, ok bool) {
	n := b.g.Nodes[parent]
	if gw, isGW := n.Object.(*gwv1.Gateway); isGW {
		return gw.Spec.Listeners, true
	}
	set, isLS := n.Object.(*gwv1.ListenerSet)
	if !isLS || len(n.Parents) == 0 {
		return nil, false
	}
	if ls, ok := b.listenerSets[parent]; ok {
		return ls, true
	}
	if b.listenerSets == nil {
		b.listenerSets = map[NodeID][]gwv1.Listener{}
	}
	out := make([]gwv1.Listener, len(set.Spec.Listeners))
	for i, l := range set.Spec.Listeners {
		out[i] = gwv1.Listener(l) // a ListenerEntry has a Gateway listener's fields
	}
	b.listenerSets[parent] = out
	return out, true
}

// nsLabels are the labels of namespace ns: of its Namespace object, none
// for an implicit one.
func (b *attacher) nsLabels(ns string) labels.Set {
	if id, ok := b.g.namespaces[ns]; ok {
		return b.g.Nodes[id].Labels
	}
	return nil
}

// named records that route id names parent ref (Graph.byParent): at the
// end while Build adds routes in id order, or, for a graph made from
// another (touch), in order in a list of its own.
func (b *attacher) named(ref Ref, id NodeID) {
	g := b.g
	if g.byParent == nil {
		g.byParent = map[Ref][]NodeID{}
	}
	at := g.byParent[ref]
	if b.touch == nil {
		if len(at) == 0 || at[len(at)-1] != id {
			g.byParent[ref] = append(at, id)
		}
		return
	}
	if i, found := slices.BinarySearch(at, id); !found {
		g.byParent[ref] = slices.Insert(slices.Clone(at), i, id)
	}
}

// link is Graph.link, touching both nodes first.
func (b *attacher) link(parent, child NodeID) {
	if b.touch != nil {
		b.touch(parent)
		b.touch(child)
	}
	b.g.link(parent, child)
}

// addListenerSet adds a ListenerSet, its listeners as sections, and its
// edge from its parent Gateway when that Gateway accepts it (GEP-1713
// "Gateway & ListenerSet Handshake"); one it does not accept is a root
// whose listeners admit no route, and a Problem.
func (b *attacher) addListenerSet(ls *gwv1.ListenerSet) {
	g := b.g
	id := g.object(hierarchy.ListenerSetKind, &ls.ObjectMeta, ls)
	if g.Nodes[id].Object != ls {
		return
	}
	g.sections(id, "listeners", len(ls.Spec.Listeners), func(i int) string { return string(ls.Spec.Listeners[i].Name) }, nil)
	p := ls.Spec.ParentRef
	gwNS := ls.Namespace
	if p.Namespace != nil {
		gwNS = string(*p.Namespace)
	}
	gw := None
	if (p.Group == nil || string(*p.Group) == hierarchy.GatewayGroup) && (p.Kind == nil || string(*p.Kind) == "Gateway") {
		gw = g.Lookup(Ref{Group: hierarchy.GatewayGroup, Kind: "Gateway", Namespace: gwNS, Name: string(p.Name)})
	}
	if gw == None {
		g.Problems = append(g.Problems, Problem{Object: g.Nodes[id].Ref, Field: "spec.parentRef", Message: fmt.Sprintf("Gateway %s/%s not found; its listeners admit no route", gwNS, p.Name)})
		return
	}
	if !b.listenersAllowed(g.Nodes[gw].Object.(*gwv1.Gateway), ls.Namespace) {
		g.Problems = append(g.Problems, Problem{Object: g.Nodes[id].Ref, Field: "spec.parentRef", Message: fmt.Sprintf("Gateway %s/%s does not allow ListenerSets from namespace %q (spec.allowedListeners); its listeners admit no route", gwNS, p.Name, ls.Namespace)})
		return
	}
	g.link(gw, id)
}

// listenersAllowed reports whether gw's spec.allowedListeners admits
// ListenerSets of namespace ns: None (the default) admits none, Same its
// own namespace, All every namespace, Selector those whose labels match.
func (b *attacher) listenersAllowed(gw *gwv1.Gateway, ns string) bool {
	al := gw.Spec.AllowedListeners
	if al == nil || al.Namespaces == nil || al.Namespaces.From == nil {
		return false
	}
	switch *al.Namespaces.From {
	case gwv1.NamespacesFromAll:
		return true
	case gwv1.NamespacesFromSame:
		return ns == gw.Namespace
	case gwv1.NamespacesFromSelector:
		sel := b.selector(al.Namespaces.Selector)
		return sel != nil && sel.Matches(b.nsLabels(ns))
	}
	return false
}

// addRoutes adds the routes' nodes, rules and mesh parents in input
// order, then links them to their other parents and backends.
func (b *attacher) addRoutes(rs []route) {
	ids := make([]NodeID, len(rs))
	rules := make([][]NodeID, len(rs))
	for i, r := range rs {
		ids[i], rules[i] = b.addRouteNode(r)
	}
	for i, r := range rs {
		if ids[i] != None {
			b.linkRoute(r, ids[i], rules[i])
		}
	}
}

// addRouteNode adds a route's node, its rules as sections and its
// Service parents (GEP-1426); it returns the route's node (None for a
// duplicate) and its rules' nodes.
func (b *attacher) addRouteNode(r route) (NodeID, []NodeID) {
	g := b.g
	id := g.object(r.GroupKind, r.Meta, r.Object)
	if g.Nodes[id].Object != r.Object {
		return None, nil
	}
	ns := r.Meta.Namespace
	rules := make([]NodeID, len(r.Rules))
	g.sections(id, "rules", len(r.Rules), func(i int) string {
		if n := r.Rules[i].Name; n != nil && *n != "" {
			return string(*n)
		}
		return GeneratedRuleName(i)
	}, rules)
	for i, p := range r.ParentRefs {
		if kind, parentNS := parentOf(p, ns); kind == hierarchy.ServiceKind {
			b.addMeshParent(id, i, p, parentNS)
		}
	}
	g.Problems = appendParentKindProblems(g.Problems, g.Nodes[id].Ref, r)
	return id, rules
}

// appendParentKindProblems appends a problem for each parentRef of route
// r (node ref) of a kind outside the hierarchy.
func appendParentKindProblems(out []Problem, ref Ref, r route) []Problem {
	for i, p := range r.ParentRefs {
		if kind, _ := parentOf(p, r.Meta.Namespace); kind != hierarchy.ServiceKind && kind != hierarchy.GatewayKind && kind != hierarchy.ListenerSetKind {
			out = append(out, Problem{Object: ref, Field: fmt.Sprintf("spec.parentRefs[%d]", i), Message: "parent kinds other than Gateway, ListenerSet and Service are not part of Strata's hierarchy; ignored"})
		}
	}
	return out
}

// parentOf is the kind (Gateway by default) and namespace (ns by
// default) a parentRef of a route in namespace ns names.
func parentOf(p gwv1.ParentReference, ns string) (schema.GroupKind, string) {
	kind := hierarchy.GatewayKind
	if p.Kind != nil {
		kind.Kind = string(*p.Kind)
	}
	if p.Group != nil {
		kind.Group = string(*p.Group)
	}
	if p.Namespace != nil {
		ns = string(*p.Namespace)
	}
	return kind, ns
}

// linkRoute links route r (node id, rules' nodes rules) to the listeners
// that admit it and its rules to their backends.
func (b *attacher) linkRoute(r route, id NodeID, rules []NodeID) {
	g := b.g
	ns := r.Meta.Namespace
	for _, p := range r.ParentRefs {
		kind, parentNS := parentOf(p, ns)
		if kind != hierarchy.GatewayKind && kind != hierarchy.ListenerSetKind {
			continue // a Service parent, or a problem (addRouteNode)
		}
		ref := Ref{Group: hierarchy.GatewayGroup, Kind: kind.Kind, Namespace: parentNS, Name: string(p.Name)}
		b.named(ref, id)
		parent := g.Lookup(ref)
		if parent == None {
			continue
		}
		// GEP-1713 "Route Attachment": to its direct parent's listeners.
		listeners, ok := b.listeners(parent)
		if !ok {
			continue
		}
		for _, l := range listeners {
			if p.SectionName != nil && *p.SectionName != l.Name || p.Port != nil && *p.Port != l.Port {
				continue
			}
			if !b.allowed(parentNS, &l, r, ns) {
				continue
			}
			if lid, ok := g.Nodes[parent].Sections.Get(string(l.Name)); ok {
				b.link(lid, id)
			}
		}
	}
	for i, rule := range r.Rules {
		for _, be := range rule.Backends {
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
			if to.Namespace != ns && !g.Granted(r.GroupKind, ns, to) {
				continue
			}
			b.link(rules[i], svc)
		}
	}
}

// addMeshParent links route node id under the frontend of the Service
// its parentRef i names (GEP-1426 "Service as parent"). A consumer route
// needs no ReferenceGrant (Graph.Mesh). GEP-1426 allows port, not
// sectionName: a sectionName, or a port the Service lacks, is reported. A
// missing Service is no parent and no problem.
func (b *attacher) addMeshParent(id NodeID, i int, p gwv1.ParentReference, parentNS string) {
	g := b.g
	field := fmt.Sprintf("spec.parentRefs[%d]", i)
	if p.SectionName != nil {
		g.Problems = append(g.Problems, Problem{Object: g.Nodes[id].Ref, Field: field + ".sectionName", Message: "a Service parent has no sections (GEP-1426: sectionName is not supported for a Service parentRef; use port); this parentRef is ignored"})
		return
	}
	svc := g.Lookup(Ref{Group: hierarchy.CoreGroup, Kind: hierarchy.ServiceKind.Kind, Namespace: parentNS, Name: string(p.Name)})
	if svc == None {
		return
	}
	if p.Port != nil && !hasPort(g.Nodes[svc].Object.(*corev1.Service), int32(*p.Port)) {
		g.Problems = append(g.Problems, Problem{Object: g.Nodes[id].Ref, Field: field + ".port", Message: fmt.Sprintf("Service %s/%s has no port %d; this parentRef is ignored", parentNS, p.Name, *p.Port)})
		return
	}
	g.link(g.frontend(svc), id)
}

func hasPort(svc *corev1.Service, port int32) bool {
	return slices.ContainsFunc(svc.Spec.Ports, func(sp corev1.ServicePort) bool { return sp.Port == port })
}

// frontend returns the frontend node of Service node svc, adding it on
// first use: a root at hierarchy.LevelMeshFrontend with the frontend
// role, no object (the Service node has it) and no sections.
func (g *Graph) frontend(svc NodeID) NodeID {
	s := g.Nodes[svc]
	r := s.Ref
	r.Role = hierarchy.RoleFrontend
	if id, ok := g.index[r]; ok {
		return id
	}
	return g.add(Node{Ref: r, Level: hierarchy.LevelMeshFrontend, Labels: s.Labels, Generation: s.Generation, Namespace: s.Namespace})
}

// defaultKinds are the route kinds a listener accepts when allowedRoutes
// names none, by protocol (Gateway API Listener.allowedRoutes.kinds);
// hostnameKinds those whose hostnames must intersect the listener's. Both
// come from the RouteInfo of hierarchy.Table's rows.
var defaultKinds, hostnameKinds = func() (map[gwv1.ProtocolType][]schema.GroupKind, map[schema.GroupKind]bool) {
	kinds, hosts := map[gwv1.ProtocolType][]schema.GroupKind{}, map[schema.GroupKind]bool{}
	for _, row := range hierarchy.Table {
		if row.Route != nil {
			for _, p := range row.Route.Protocols {
				kinds[gwv1.ProtocolType(p)] = append(kinds[gwv1.ProtocolType(p)], row.GroupKind)
			}
			hosts[row.GroupKind] = row.Route.Hostnames
		}
	}
	return kinds, hosts
}()

// allowed reports whether listener l of a parent in namespace parentNS
// admits route r of namespace routeNS: its allowedRoutes and, for kinds
// with hostnames, their intersection.
func (b *attacher) allowed(parentNS string, l *gwv1.Listener, r route, routeNS string) bool {
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
	if !slices.Contains(kinds, r.GroupKind) {
		return false
	}
	switch from {
	case gwv1.NamespacesFromAll:
	case gwv1.NamespacesFromSelector:
		sel := b.selector(ar.Namespaces.Selector)
		if sel == nil || !sel.Matches(b.nsLabels(routeNS)) {
			return false
		}
	default: // Same, and unknown values (Gateway API treats them as invalid).
		if routeNS != parentNS {
			return false
		}
	}
	if hostnameKinds[r.GroupKind] && l.Hostname != nil && len(r.Hostnames) > 0 {
		for _, h := range r.Hostnames {
			if HostnamesIntersect(string(*l.Hostname), string(h)) {
				return true
			}
		}
		return false
	}
	return true
}

func (b *attacher) selector(ls *metav1.LabelSelector) labels.Selector {
	if b.selectors == nil {
		b.selectors = map[*metav1.LabelSelector]labels.Selector{}
	}
	if s, ok := b.selectors[ls]; ok {
		return s
	}
	var s labels.Selector
	if ls != nil {
		if sel, err := metav1.LabelSelectorAsSelector(ls); err == nil {
			s = sel
		}
	}
	b.selectors[ls] = s
	return s
}

// HostnamesIntersect reports whether a listener hostname and a route
// hostname, both non-empty, can match a common host; a leading "*."
// matches one or more labels (Gateway API Hostname).
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
