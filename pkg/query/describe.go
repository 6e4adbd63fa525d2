package query

import (
	"maps"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/merge"
	"github.com/strata-dev/strata/pkg/engine/outcome"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Describe describes a node: the policies affecting it and what is in force.
func Describe(res *engine.Result, n topology.NodeID) *Description {
	return newQuery(res).describe(n)
}

// Describer is Describe for many nodes of one run, sharing what their descriptions look up.
func Describer(res *engine.Result) func(n topology.NodeID) *Description {
	return newQuery(res).describe
}

func (q *query) describe(n topology.NodeID) *Description {
	d := &Description{TypeMeta: TypeMeta{APIVersion: APIVersion, Kind: KindDescription}, Object: q.ref(n)}
	node := q.g.Node(n)
	own := q.own(n)
	for _, s := range node.Sections { // sorted by name
		d.Sections = append(d.Sections, s.Name)
	}
	d.Parents, d.Children = q.neighbours(own)

	type affecting struct {
		a     *Affecting
		nodes map[topology.NodeID]bool
	}
	byPolicy := map[*policykind.Policy]*affecting{}
	relRank := map[string]int{Attached: 0, Inherited: 1, Below: 2}
	note := func(p *policykind.Policy, at topology.NodeID, rel string) *affecting {
		a := byPolicy[p]
		if a == nil {
			a = &affecting{a: &Affecting{Policy: PolicyRefOf(p), Relation: rel}, nodes: map[topology.NodeID]bool{}}
			byPolicy[p] = a
		}
		if relRank[rel] < relRank[a.a.Relation] {
			a.a.Relation = rel
		}
		a.nodes[at] = true
		return a
	}

	for _, sc := range q.scope(n) {
		k := q.res.Kinds[sc.kind].Kind
		ke := KindEffect{GroupKind: groupKindOf(k), Class: string(k.Class), ValueSpace: q.valueSpace(sc.kind)}
		for _, t := range sc.targets {
			te := TargetEffect{Target: q.ref(t.node)}
			for _, ctx := range t.contexts {
				first := slices.IndexFunc(ctx.Path, func(p topology.NodeID) bool { return owns(own, p) })
				done := map[*policykind.Policy]bool{}
				for _, e := range ctx.Entries {
					p := e.Policy()
					rel := Inherited
					switch at := slices.Index(ctx.Path, e.Attachment.Node); {
					case owns(own, e.Attachment.Node):
						rel = Attached
					case first >= 0 && at > first:
						rel = Below
					case first >= 0 && !q.namespaceAbove(ctx.Path, first, e.Attachment.Node):
						// A Namespace on the path because of an object below this one.
						rel = Below
					}
					a := note(p, e.Attachment.Node, rel)
					if !done[p] {
						done[p] = true
						st, _, _ := ctx.Standing(p)
						if a.a.Results == nil {
							a.a.Results = map[string]int{}
						}
						a.a.Results[outcome.Term(p.Kind.Vocabulary(), st)]++
					}
				}
				te.Contexts = append(te.Contexts, q.contextEffect(k, t.node, ctx))
			}
			ke.Targets = append(ke.Targets, te)
		}
		d.Effective = append(d.Effective, ke)
	}

	for _, kr := range q.res.Kinds {
		for _, o := range own {
			for _, at := range kr.Attachments.ByNode[o] {
				note(at.Policy, o, Attached)
			}
		}
		for _, r := range kr.Attachments.Rejections {
			if r.Target.Object() == node.Ref.Object() && (node.Ref.Section == "" || r.Target.Section == node.Ref.Section) {
				d.Rejected = append(d.Rejected, Rejection{Policy: PolicyRefOf(r.Policy), Field: r.Field, Reason: r.Reason, Message: r.Message})
			}
		}
	}
	d.NotWritten = q.notWritten(node)
	ps := slices.Collect(maps.Keys(byPolicy))
	slices.SortFunc(ps, comparePolicies)
	d.Policies = []Affecting{}
	for _, p := range ps {
		a := byPolicy[p]
		for at := range a.nodes {
			a.a.AttachedTo = append(a.a.AttachedTo, q.ref(at))
		}
		sortRefs(a.a.AttachedTo)
		d.Policies = append(d.Policies, *a.a)
	}
	if d.Effective == nil {
		d.Effective = []KindEffect{}
	}
	return d
}

// notWritten is what the object's strata.dev/omitted-conditions annotation records.
func (q *query) notWritten(node *topology.Node) []NotWritten {
	max := hierarchy.Kinds[node.Ref.GroupKind()].MaxConditions
	if max == 0 {
		return nil
	}
	if node.Ref.Section != "" {
		id := q.g.Lookup(node.Ref.Object())
		if id == topology.None {
			return nil
		}
		node = q.g.Node(id)
	}
	obj, err := meta.Accessor(node.Object)
	if err != nil {
		return nil
	}
	var out []NotWritten
	for _, o := range hierarchy.ParseOmissions(obj.GetAnnotations()[hierarchy.OmittedAnnotation], max) {
		out = append(out, NotWritten{Place: o.Place, MaxItems: o.MaxItems, Types: o.Types})
	}
	return out
}

// namespaceAbove reports whether node n of a path is above or at path[first] (InheritsNamespace).
func (q *query) namespaceAbove(path []topology.NodeID, first int, n topology.NodeID) bool {
	ref := q.g.Node(n).Ref
	if ref.GroupKind() != hierarchy.NamespaceKind {
		return true
	}
	return InheritsNamespace(path, first, ref.Name, func(p topology.NodeID) (string, bool) {
		r := q.g.Node(p).Ref
		return r.Namespace, r.GroupKind() == hierarchy.NamespaceKind
	})
}

// InheritsNamespace reports whether path[first], the described object,
// inherits a policy attached to Namespace ns on that path: whether it or
// an object above it is in ns. A path puts its objects' Namespaces first,
// so a Namespace may be there for an object below path[first] (GEP-713: a
// policy on a Namespace acts on the objects in it); seen from above, it is Below.
func InheritsNamespace[T any](path []T, first int, ns string, namespaceOf func(T) (string, bool)) bool {
	if _, isNS := namespaceOf(path[first]); isNS {
		return true
	}
	for _, p := range path[:first+1] {
		if in, _ := namespaceOf(p); in == ns {
			return true
		}
	}
	return false
}

// contextEffect renders one context: stack, spec, and each field's sources.
func (q *query) contextEffect(k *policykind.Kind, target topology.NodeID, ctx *effective.Context) ContextEffect {
	ce := ContextEffect{Path: q.path(ctx.Path), Consumer: ctx.Consumer(q.g), Spec: ctx.Result.Values, Stack: make([]StackEntry, 0, len(ctx.Entries))}
	if ce.Spec == nil {
		ce.Spec = map[string]any{}
	}
	var stack []*policykind.Policy // distinct, in stack order
	inStack := map[*policykind.Policy]bool{}
	for _, e := range ctx.Entries {
		st, _, _ := ctx.Standing(e.Policy())
		ce.Stack = append(ce.Stack, StackEntry{
			Policy:     q.names(e.Policy()).id,
			AttachedTo: q.ref(e.Attachment.Node),
			Level:      int(e.Level),
			Block:      e.Block.Field,
			Strategy:   q.strategy(e.Block.Strategy),
			Result:     outcome.Term(e.Policy().Kind.Vocabulary(), st),
		})
		if !inStack[e.Policy()] {
			inStack[e.Policy()] = true
			stack = append(stack, e.Policy())
		}
	}
	type source struct {
		name   string
		p      *policykind.Policy
		leaves []string
	}
	var sources []source
	for _, p := range stack {
		sources = append(sources, source{name: q.names(p).source, p: p, leaves: q.leavesOf(p)})
	}
	if own := q.targetValues(k, target); own != nil {
		var leaves []string
		merge.Leaves(own, "", func(ptr string) { leaves = append(leaves, ptr) })
		sources = append(sources, source{name: TargetSource, leaves: leaves})
	}
	ptrs := slices.Sorted(maps.Keys(ctx.Result.Prov))
	// The sources' leaves, sorted, for binary search rather than a scan per field (issue 11, "No cliffs").
	var all []leafOf
	for i, s := range sources {
		for _, l := range s.leaves {
			all = append(all, leafOf{l, i})
		}
	}
	slices.SortFunc(all, func(a, b leafOf) int { return strings.Compare(a.leaf, b.leaf) })
	leaves := make([]string, len(all))
	for i, l := range all {
		leaves[i] = l.leaf
	}
	ce.Fields = make([]FieldEffect, 0, len(ptrs))
	for _, ptr := range ptrs {
		src := ctx.Result.Prov[ptr]
		v, _ := merge.Get(ctx.Result.Values, ptr)
		fe := FieldEffect{Field: ptr, Value: v, SetBy: q.sourceName(effective.PolicyOf(src))}
		hit := map[int]bool{}
		relatedIn(leaves, ptr, func(i int) { hit[all[i].source] = true })
		for i, s := range sources {
			if hit[i] && s.name != fe.SetBy {
				fe.Beaten = append(fe.Beaten, s.name)
			}
		}
		sort.Strings(fe.Beaten)
		ce.Fields = append(ce.Fields, fe)
	}
	dropped := map[string][]string{}
	for _, s := range sources {
		for _, l := range s.leaves {
			inForce := false
			relatedIn(ptrs, l, func(int) { inForce = true })
			if !inForce {
				dropped[l] = append(dropped[l], s.name)
			}
		}
	}
	for _, l := range slices.Sorted(maps.Keys(dropped)) {
		b := dropped[l]
		sort.Strings(b)
		ce.Fields = append(ce.Fields, FieldEffect{Field: l, Beaten: slices.Compact(b)})
	}
	slices.SortStableFunc(ce.Fields, func(a, b FieldEffect) int { return strings.Compare(a.Field, b.Field) })
	if ce.Fields == nil {
		ce.Fields = []FieldEffect{}
	}
	return ce
}

// neighbours lists the nodes directly above and below a set of nodes, sorted.
func (q *query) neighbours(own []topology.NodeID) (parents, children []Ref) {
	seenP, seenC := map[topology.NodeID]bool{}, map[topology.NodeID]bool{}
	for _, o := range own {
		n := q.g.Node(o)
		for _, p := range n.Parents {
			if !owns(own, p) && !seenP[p] {
				seenP[p] = true
				parents = append(parents, q.ref(p))
			}
		}
		for _, c := range n.Children {
			if !owns(own, c) && !seenC[c] {
				seenC[c] = true
				children = append(children, q.ref(c))
			}
		}
	}
	sortRefs(parents)
	sortRefs(children)
	return parents, children
}

func sortRefs(rs []Ref) {
	slices.SortFunc(rs, func(a, b Ref) int { return strings.Compare(a.Key(), b.Key()) })
}

// comparePolicies orders policies by kind (group, kind), then namespace/name.
func comparePolicies(a, b *policykind.Policy) int {
	if c := strings.Compare(a.Kind.Group+"/"+a.Kind.Kind, b.Kind.Group+"/"+b.Kind.Kind); c != 0 {
		return c
	}
	return strings.Compare(a.ID(), b.ID())
}

// valueSpace describes the value space kind i folds in, or nil.
func (q *query) valueSpace(i int) *ValueSpace {
	k := q.res.Kinds[i].Kind
	if k.Space() == "" {
		return nil
	}
	vs := &ValueSpace{Name: k.Space()}
	for j, o := range q.res.Kinds {
		if q.res.SharedWith(j) == i {
			vs.Kinds = append(vs.Kinds, groupKindOf(o.Kind))
		}
	}
	return vs
}

// leafOf is a leaf of the source at index source of contextEffect.
type leafOf struct {
	leaf   string
	source int
}

// relatedIn calls fn with the index of every pointer of sorted ptrs related to p.
func relatedIn(ptrs []string, p string, fn func(int)) {
	equal := func(q string) {
		for i, _ := slices.BinarySearch(ptrs, q); i < len(ptrs) && ptrs[i] == q; i++ {
			fn(i)
		}
	}
	equal(p)
	for _, prefix := range [2]string{p + "/", p + "["} {
		for i, _ := slices.BinarySearch(ptrs, prefix); i < len(ptrs) && strings.HasPrefix(ptrs[i], prefix); i++ {
			if merge.Below(ptrs[i], p) { // not a key that merely contains "["
				fn(i)
			}
		}
	}
	for i := 0; i < len(p); i++ {
		if (p[i] == '/' || p[i] == '[') && merge.Below(p, p[:i]) {
			equal(p[:i])
		}
	}
}
