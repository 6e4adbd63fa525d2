package topology

import (
	"maps"
	"reflect"
	"slices"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/hierarchy/typed"
)

// Rerouted returns the graph of g's snapshot with obj, a new version of
// one of its routes, in place of the old: the route's node and rules
// carry obj, and its edges up to listeners and down to backends are
// obj's, linked as Build links them. Every node the change does not
// touch is shared with g, and g is not changed (docs/live-model.md).
// It also returns the route's node.
//
// ok is false when the change is more than new edges, and the graph
// must be built anew: g holds no such route (a new one), or holds it
// twice; the rules' names differ, or repeat (the rule nodes change); the
// labels differ (label selectors may move); the route has a Service
// parent, before or after (a frontend node may be made).
func (g *Graph) Rerouted(obj typed.Object) (out *Graph, route NodeID, ok bool) {
	r, isRoute := typed.RouteOf(obj)
	if !isRoute {
		return nil, None, false
	}
	ref := Ref{Group: r.GroupKind.Group, Kind: r.GroupKind.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
	id, found := g.index[ref]
	if !found {
		return nil, None, false
	}
	was := g.Nodes[id]
	if was.Object == nil || !maps.Equal(was.Labels, obj.GetLabels()) || g.duplicate(ref) {
		return nil, None, false
	}
	rules, ok := g.relinkable(id, r)
	if !ok {
		return nil, None, false
	}
	p := g.patch()
	old, _ := typed.RouteOf(was.Object.(typed.Object))
	p.unlinkRoute(id, old, true)
	n := p.own(id)
	n.Object, n.Generation = obj, obj.GetGeneration()
	for _, sec := range was.Sections {
		p.own(sec.Node).Generation = n.Generation
	}
	p.linkRoute(r, id, rules)
	// The route's problems are its parentRefs' kinds (the others are
	// about duplicates and Service parents, which it has not).
	out = p.done()
	out.Problems = slices.DeleteFunc(slices.Clone(g.Problems), func(p Problem) bool { return p.Object == ref })
	out.Problems = appendParentKindProblems(out.Problems, ref, r)
	slices.SortStableFunc(out.Problems, compareProblems)
	return out, id, true
}

// Regated returns the graph of g's snapshot with gw, a new version of
// one of its Gateways, in place of the old, as Rerouted does for a
// route: the Gateway's node and listeners carry gw, and every route
// whose parentRefs name the Gateway is linked again, so that a listener's
// new port, hostname or allowedRoutes admits the routes it now admits.
// It returns the Gateway's node and the routes linked again.
//
// ok is false when the change is more than the routes' edges: g holds
// no such Gateway, or holds it twice; its labels, class, listener names
// or allowedListeners differ (nodes, selectors or ListenerSets move); a
// route to link again has a Service parent.
func (g *Graph) Regated(gw *gwv1.Gateway) (out *Graph, gateway NodeID, routes []NodeID, ok bool) {
	ref := Ref{Group: hierarchy.GatewayGroup, Kind: hierarchy.GatewayKind.Kind, Namespace: gw.Namespace, Name: gw.Name}
	id, found := g.index[ref]
	if !found {
		return nil, None, nil, false
	}
	was := g.Nodes[id]
	old, isGW := was.Object.(*gwv1.Gateway)
	if !isGW || !maps.Equal(was.Labels, gw.Labels) || g.duplicate(ref) || len(was.Ambiguous) > 0 ||
		old.Spec.GatewayClassName != gw.Spec.GatewayClassName || !reflect.DeepEqual(old.Spec.AllowedListeners, gw.Spec.AllowedListeners) ||
		len(gw.Spec.Listeners) != len(was.Sections) {
		return nil, None, nil, false
	}
	seen := make(map[gwv1.SectionName]bool, len(gw.Spec.Listeners))
	for _, l := range gw.Spec.Listeners {
		if _, has := was.Sections.Get(string(l.Name)); !has || seen[l.Name] {
			return nil, None, nil, false
		}
		seen[l.Name] = true
	}
	routes = g.byParent[ref]
	type linked struct {
		r     route
		rules []NodeID
	}
	todo := make([]linked, len(routes))
	for i, rt := range routes {
		r, _ := typed.RouteOf(g.Nodes[rt].Object.(typed.Object))
		rules, ok := g.relinkable(rt, r)
		if !ok {
			return nil, None, nil, false
		}
		todo[i] = linked{r, rules}
	}
	p := g.patch()
	n := p.own(id)
	n.Object, n.Generation = gw, gw.Generation
	for _, sec := range was.Sections {
		p.own(sec.Node).Generation = n.Generation
	}
	for i, rt := range routes {
		p.unlinkRoute(rt, todo[i].r, false) // its parentRefs stay
		p.linkRoute(todo[i].r, rt, todo[i].rules)
	}
	return p.done(), id, routes, true
}

// relinkable returns the rule nodes of route node id for r, a version of
// it, when r can be linked in place of the version g holds: the same
// rule names, each once, and no Service parent, before or after.
func (g *Graph) relinkable(id NodeID, r route) ([]NodeID, bool) {
	was := g.Nodes[id]
	if len(was.Ambiguous) > 0 || slices.ContainsFunc(was.Parents, func(p NodeID) bool { return g.Nodes[p].Ref.Role == hierarchy.RoleFrontend }) {
		return nil, false
	}
	rules := make([]NodeID, len(r.Rules))
	for i, rule := range r.Rules {
		name := GeneratedRuleName(i)
		if rule.Name != nil && *rule.Name != "" {
			name = string(*rule.Name)
		}
		sec, has := was.Sections.Get(name)
		if !has || slices.Contains(rules[:i], sec) {
			return nil, false
		}
		rules[i] = sec
	}
	if len(rules) != len(was.Sections) {
		return nil, false
	}
	for _, p := range r.ParentRefs {
		if kind, _ := parentOf(p, r.Meta.Namespace); kind == hierarchy.ServiceKind {
			return nil, false
		}
	}
	return rules, true
}

// patch makes a graph from another: it shares the other's nodes but
// those it owns, copied on first change.
type patch struct {
	out    *Graph
	copied map[NodeID]bool
}

func (g *Graph) patch() *patch {
	out := &Graph{}
	*out = *g
	out.Nodes, out.slab, out.byParent = slices.Clone(g.Nodes), nil, maps.Clone(g.byParent)
	return &patch{out: out, copied: map[NodeID]bool{}}
}

// own returns node n of the new graph, a copy of its own.
func (p *patch) own(n NodeID) *Node {
	if !p.copied[n] {
		c := *p.out.Nodes[n]
		c.Parents, c.Children = slices.Clip(c.Parents), slices.Clip(c.Children)
		p.out.Nodes[n], p.copied[n] = &c, true
	}
	return p.out.Nodes[n]
}

// unlinkRoute removes the edges of route node id, of version was: up to
// its parents, down from its rules, and, with named, its entries in
// byParent.
func (p *patch) unlinkRoute(id NodeID, was route, named bool) {
	g := p.out
	n := p.own(id)
	for _, up := range n.Parents {
		p.own(up).Children = slices.DeleteFunc(slices.Clone(g.Nodes[up].Children), func(c NodeID) bool { return c == id })
	}
	n.Parents = nil
	for _, sec := range n.Sections {
		for _, svc := range g.Nodes[sec.Node].Children {
			p.own(svc).Parents = slices.DeleteFunc(slices.Clone(g.Nodes[svc].Parents), func(up NodeID) bool { return up == sec.Node })
		}
		p.own(sec.Node).Children = nil
	}
	if !named {
		return
	}
	for _, ref := range parentsNamed(was) {
		if at := g.byParent[ref]; slices.Contains(at, id) {
			g.byParent[ref] = slices.DeleteFunc(slices.Clone(at), func(r NodeID) bool { return r == id })
		}
	}
}

// linkRoute links route node id as Build does.
func (p *patch) linkRoute(r route, id NodeID, rules []NodeID) {
	b := &attacher{g: p.out, touch: func(n NodeID) { p.own(n) }}
	b.linkRoute(r, id, rules)
}

// done sorts the edges of the nodes changed and returns the graph.
func (p *patch) done() *Graph {
	for c := range p.copied {
		n := p.out.Nodes[c]
		slices.Sort(n.Parents)
		n.Parents = slices.Compact(n.Parents)
		slices.Sort(n.Children)
		n.Children = slices.Compact(n.Children)
	}
	return p.out
}

// parentsNamed are the Gateway and ListenerSet refs r's parentRefs name.
func parentsNamed(r route) []Ref {
	var out []Ref
	for _, p := range r.ParentRefs {
		if kind, ns := parentOf(p, r.Meta.Namespace); kind == hierarchy.GatewayKind || kind == hierarchy.ListenerSetKind {
			out = append(out, Ref{Group: hierarchy.GatewayGroup, Kind: kind.Kind, Namespace: ns, Name: string(p.Name)})
		}
	}
	return out
}

// duplicate reports whether the object ref was given more than once.
func (g *Graph) duplicate(ref Ref) bool {
	return slices.ContainsFunc(g.Problems, func(p Problem) bool { return p.Object == ref && p.Field == "metadata.name" })
}
