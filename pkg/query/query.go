package query

import (
	"cmp"
	"slices"
	"strings"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/merge"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// query answers questions about one engine run.
type query struct {
	res     *engine.Result
	g       *topology.Graph
	targets []map[topology.NodeID]*effective.Target // per kind, for targets out of NodeID order
	checked []bool                                  // per kind, the order of its targets
	leaves  map[*policykind.Policy][]string
	values  map[ownKey]map[string]any // targetValues, by kind and node
	keys    []string                  // nodeKey, by node
	// Strings describe repeats in every context, made once (issue 11).
	policyNames map[*policykind.Policy]policyNames
	strategies  map[policykind.Strategy]string
}

// policyNames are a policy's ID and sourceName.
type policyNames struct{ id, source string }

// names is the policy's ID and sourceName, made once per query.
func (q *query) names(p *policykind.Policy) policyNames {
	n, ok := q.policyNames[p]
	if !ok {
		n = policyNames{id: p.ID(), source: sourceName(p)}
		q.policyNames[p] = n
	}
	return n
}

// sourceName is sourceName(p), made once per policy.
func (q *query) sourceName(p *policykind.Policy) string {
	if p == nil {
		return TargetSource
	}
	return q.names(p).source
}

// strategy is s.String(), made once per strategy.
func (q *query) strategy(s policykind.Strategy) string {
	str, ok := q.strategies[s]
	if !ok {
		str = s.String()
		q.strategies[s] = str
	}
	return str
}

type ownKey struct {
	k *policykind.Kind
	n topology.NodeID
}

func newQuery(res *engine.Result) *query {
	return &query{
		res: res, g: res.Graph,
		targets:     make([]map[topology.NodeID]*effective.Target, len(res.Kinds)),
		checked:     make([]bool, len(res.Kinds)),
		leaves:      map[*policykind.Policy][]string{},
		values:      map[ownKey]map[string]any{},
		policyNames: map[*policykind.Policy]policyNames{},
		strategies:  map[policykind.Strategy]string{},
	}
}

// targetOf finds the effective target of kind i at node n, or nil.
func (q *query) targetOf(i int, n topology.NodeID) *effective.Target {
	ts := q.res.Kinds[i].Effective.Targets
	if !q.checked[i] {
		q.checked[i] = true
		if !slices.IsSortedFunc(ts, func(a, b *effective.Target) int { return cmp.Compare(a.Node, b.Node) }) {
			m := make(map[topology.NodeID]*effective.Target, len(ts))
			for _, t := range ts {
				m[t.Node] = t
			}
			q.targets[i] = m
		}
	}
	if m := q.targets[i]; m != nil {
		return m[n]
	}
	if j, ok := slices.BinarySearchFunc(ts, n, func(t *effective.Target, n topology.NodeID) int { return cmp.Compare(t.Node, n) }); ok {
		return ts[j]
	}
	return nil
}

// leavesOf lists the fields a policy sets (over all its blocks), sorted.
func (q *query) leavesOf(p *policykind.Policy) []string {
	l, ok := q.leaves[p]
	if !ok {
		l = effective.Leaves(p)
		q.leaves[p] = l
	}
	return l
}

// scoped is what an answer about a node covers for one kind.
type scoped struct {
	kind    int
	targets []scopedTarget
}

type scopedTarget struct {
	node     topology.NodeID
	contexts []*effective.Context
}

// own is a node and, for an object, its sections.
func (q *query) own(n topology.NodeID) []topology.NodeID {
	out := []topology.NodeID{n}
	for _, s := range q.g.Node(n).Sections {
		out = append(out, s.Node)
	}
	slices.Sort(out)
	return out
}

// owns reports whether n is in own, which is sorted, by binary search (issue 11, "No cliffs").
func owns(own []topology.NodeID, n topology.NodeID) bool {
	_, ok := slices.BinarySearch(own, n)
	return ok
}

// scope gathers, per kind, the targets and contexts a question about n covers.
func (q *query) scope(n topology.NodeID) []scoped {
	own := q.own(n)
	isNS := q.g.Node(n).Ref.GroupKind() == hierarchy.NamespaceKind
	var below []topology.NodeID // computed on first need
	belowDone := false
	through := func(ctx *effective.Context) bool {
		for _, p := range ctx.Path {
			if owns(own, p) {
				return true
			}
		}
		return false
	}
	var out []scoped
	for i := range q.res.Kinds {
		if q.res.SharedWith(i) != i {
			continue // a later rung of a value space: its first kind answers
		}
		sc := scoped{kind: i}
		for _, o := range own {
			if t := q.targetOf(i, o); t != nil {
				sc.targets = append(sc.targets, scopedTarget{node: o, contexts: t.Contexts})
			}
		}
		if len(sc.targets) == 0 {
			var candidates []*effective.Target
			if isNS {
				candidates = q.res.Kinds[i].Effective.Targets
			} else {
				if !belowDone {
					below, belowDone = q.descendants(own), true
				}
				for _, d := range below {
					if t := q.targetOf(i, d); t != nil {
						candidates = append(candidates, t)
					}
				}
			}
			for _, t := range candidates {
				var ctxs []*effective.Context
				for _, ctx := range t.Contexts {
					if through(ctx) {
						ctxs = append(ctxs, ctx)
					}
				}
				if len(ctxs) > 0 {
					sc.targets = append(sc.targets, scopedTarget{node: t.Node, contexts: ctxs})
				}
			}
		}
		if len(sc.targets) == 0 {
			continue
		}
		slices.SortFunc(sc.targets, func(a, b scopedTarget) int {
			return strings.Compare(q.g.Node(a.node).Ref.Key(), q.g.Node(b.node).Ref.Key())
		})
		for _, t := range sc.targets {
			q.sortContexts(t.contexts)
		}
		out = append(out, sc)
	}
	return out
}

// Scope lists the nodes whose effective policies Describe and Explain of n read.
func Scope(res *engine.Result, n topology.NodeID) []topology.NodeID {
	q := newQuery(res)
	if q.g.Node(n).Ref.GroupKind() == hierarchy.NamespaceKind {
		return ScopeOfAll(res, []topology.NodeID{n})
	}
	own := q.own(n)
	out := append(own, q.descendants(own)...)
	slices.Sort(out)
	return out
}

// ScopeOfAll is Scope for every node of nodes, found in one walk.
func ScopeOfAll(res *engine.Result, nodes []topology.NodeID) []topology.NodeID {
	return below(res.Graph, nodes).sorted()
}

// descendants lists the nodes below the given ones (not themselves).
func (q *query) descendants(from []topology.NodeID) []topology.NodeID {
	seen := map[topology.NodeID]bool{}
	for _, n := range from {
		seen[n] = true
	}
	stack := slices.Clone(from)
	var out []topology.NodeID
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, c := range q.g.Node(n).Children {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
				stack = append(stack, c)
			}
		}
	}
	slices.Sort(out)
	return out
}

// sortContexts orders contexts by path, in place.
func (q *query) sortContexts(ctxs []*effective.Context) {
	slices.SortStableFunc(ctxs, func(a, b *effective.Context) int { return q.comparePaths(a.Path, b.Path) })
}

// comparePaths compares two paths' keys without making them.
func (q *query) comparePaths(a, b []topology.NodeID) int {
	var sa, sb string // what is left of the current piece of a and of b
	i, j := 0, 0
	for {
		if sa == "" {
			if i == 2*len(a) {
				break
			}
			sa = q.piece(a, i)
			i++
		}
		if sb == "" {
			if j == 2*len(b) {
				break
			}
			sb = q.piece(b, j)
			j++
		}
		n := min(len(sa), len(sb))
		if c := strings.Compare(sa[:n], sb[:n]); c != 0 {
			return c
		}
		sa, sb = sa[n:], sb[n:]
	}
	restA := sa != "" || i < 2*len(a)
	restB := sb != "" || j < 2*len(b)
	switch {
	case restA:
		return 1
	case restB:
		return -1
	}
	return 0
}

// piece is the k-th piece of a path's key: a node's key, then ">".
func (q *query) piece(path []topology.NodeID, k int) string {
	if k%2 == 1 {
		return ">"
	}
	return q.nodeKey(path[k/2])
}

// nodeKey is the node's Ref.Key, made once per query.
func (q *query) nodeKey(n topology.NodeID) string {
	if q.keys == nil {
		q.keys = make([]string, len(q.g.Nodes))
	}
	if q.keys[n] == "" {
		q.keys[n] = q.g.Node(n).Ref.Key()
	}
	return q.keys[n]
}

// appendPathKey appends a path's pathKey to b.
func (q *query) appendPathKey(b []byte, path []topology.NodeID) []byte {
	for _, id := range path {
		b = append(append(b, q.nodeKey(id)...), '>')
	}
	return b
}

func (q *query) ref(n topology.NodeID) Ref { return q.g.Node(n).Ref.API() }

func (q *query) path(path []topology.NodeID) []Ref {
	out := make([]Ref, len(path))
	for i, n := range path {
		out[i] = q.ref(n)
	}
	return out
}

// targetValues reads the target's own values of a kind's targetFields.
func (q *query) targetValues(k *policykind.Kind, n topology.NodeID) map[string]any {
	if len(k.TargetFields) == 0 || q.g.Node(n).Object == nil {
		return nil
	}
	key := ownKey{k, n}
	if v, ok := q.values[key]; ok {
		return v
	}
	v := effective.TargetValues(q.g, k, n)
	q.values[key] = v
	return v
}

// PolicyRefOf names a policy as the documents do.
func PolicyRefOf(p *policykind.Policy) PolicyRef {
	return PolicyRef{Group: p.Kind.Group, Kind: p.Kind.Kind, Namespace: p.Namespace, Name: p.Name}
}

func groupKindOf(k *policykind.Kind) GroupKind { return GroupKind{Group: k.Group, Kind: k.Kind} }

// sourceName names who set a field: namespace/name, or `Kind namespace/name` in a value space.
func sourceName(p *policykind.Policy) string {
	if p == nil {
		return TargetSource
	}
	if p.Kind.Space() != "" {
		return p.Kind.Kind + " " + p.ID()
	}
	return p.ID()
}

// related reports whether two field pointers overlap: equal, or one below the other.
func related(a, b string) bool { return a == b || under(a, b) || under(b, a) }

// under reports whether pointer q lies strictly below p (merge.Below).
func under(q, p string) bool { return merge.Below(q, p) }

// ID is the policy's namespace/name.
func (p PolicyRef) ID() string { return id(p.Namespace, p.Name) }
