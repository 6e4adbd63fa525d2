package topology

import (
	"maps"
	"slices"

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
	if was.Object == nil || len(was.Ambiguous) > 0 || !maps.Equal(was.Labels, obj.GetLabels()) || g.duplicate(ref) {
		return nil, None, false
	}
	if slices.ContainsFunc(was.Parents, func(p NodeID) bool { return g.Nodes[p].Ref.Role == hierarchy.RoleFrontend }) {
		return nil, None, false
	}
	rules := make([]NodeID, len(r.Rules))
	for i, rule := range r.Rules {
		name := GeneratedRuleName(i)
		if rule.Name != nil && *rule.Name != "" {
			name = string(*rule.Name)
		}
		sec, has := was.Sections.Get(name)
		if !has || slices.Contains(rules[:i], sec) {
			return nil, None, false
		}
		rules[i] = sec
	}
	if len(rules) != len(was.Sections) {
		return nil, None, false
	}
	for _, p := range r.ParentRefs {
		if kind, _ := parentOf(p, ref.Namespace); kind == hierarchy.ServiceKind {
			return nil, None, false
		}
	}

	out = &Graph{}
	*out = *g
	out.Nodes, out.slab = slices.Clone(g.Nodes), nil
	copied := map[NodeID]bool{}
	own := func(n NodeID) *Node {
		if !copied[n] {
			c := *out.Nodes[n]
			c.Parents, c.Children = slices.Clip(c.Parents), slices.Clip(c.Children)
			out.Nodes[n], copied[n] = &c, true
		}
		return out.Nodes[n]
	}
	// The old edges go: up from the route, down from its rules.
	for _, p := range was.Parents {
		own(p).Children = slices.DeleteFunc(slices.Clone(out.Nodes[p].Children), func(c NodeID) bool { return c == id })
	}
	n := own(id)
	n.Parents, n.Object, n.Generation = nil, obj, obj.GetGeneration()
	for _, sec := range was.Sections {
		for _, svc := range g.Nodes[sec.Node].Children {
			own(svc).Parents = slices.DeleteFunc(slices.Clone(out.Nodes[svc].Parents), func(p NodeID) bool { return p == sec.Node })
		}
		s := own(sec.Node)
		s.Children, s.Generation = nil, n.Generation
	}
	// The new ones, as Build makes them.
	b := &attacher{g: out, touch: func(n NodeID) { own(n) }}
	b.linkRoute(r, id, rules)
	for c := range copied {
		n := out.Nodes[c]
		slices.Sort(n.Parents)
		n.Parents = slices.Compact(n.Parents)
		slices.Sort(n.Children)
		n.Children = slices.Compact(n.Children)
	}
	// The route's problems are its parentRefs' kinds (the others are
	// about duplicates and Service parents, which it has not).
	out.Problems = slices.DeleteFunc(slices.Clone(g.Problems), func(p Problem) bool { return p.Object == ref })
	out.Problems = appendParentKindProblems(out.Problems, ref, r)
	slices.SortStableFunc(out.Problems, compareProblems)
	return out, id, true
}

// duplicate reports whether the object ref was given more than once.
func (g *Graph) duplicate(ref Ref) bool {
	return slices.ContainsFunc(g.Problems, func(p Problem) bool { return p.Object == ref && p.Field == "metadata.name" })
}
