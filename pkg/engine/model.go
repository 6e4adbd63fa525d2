package engine

import (
	"cmp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/engine/attach"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/hierarchy/typed"
	"github.com/strata-dev/strata/pkg/engine/outcome"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Model is a Result that takes changes (docs/live-model.md): built once
// from a snapshot, then Apply of added, updated and deleted inputs gives
// the next Model, equal to a Run of the changed snapshot, and the Delta
// that says which statuses to compare again. A change to policies of
// declared kinds costs what it reaches: the attachments of the changed
// policies, the effective targets below them, the tallies of the policies
// in those targets' contexts. So does a route's or a Gateway's new
// version that changes only routes' edges: the effective targets below
// the routes. Any other change is a full Run.
//
// A Model is frozen: Apply does not change it, and the next Model shares
// what the change did not reach, so readers of one need no locks while
// the next is made.
type Model struct {
	res *Result
	// snap is the input but for the policy changes pending, applied to it
	// in order (Snapshot) when there are enough of them to pay for a pass
	// over its policies.
	snap    *snapshot.Snapshot
	pending []snapshot.Change
	// inNamespace lists the nodes of res.Graph in each Namespace node
	// (effective.Below).
	inNamespace map[topology.NodeID][]topology.NodeID
}

// Delta is what an Apply changed, for the sinks that write statuses: what
// to compare again. After a full run (Full) anything may have changed.
type Delta struct {
	Full bool
	// Policies are the policies whose status was rendered again, of the
	// new Result, in its order.
	Policies []*policykind.Policy
	// Removed are the policies deleted, of the old Result.
	Removed []*policykind.Policy
	// Targets are the effective targets computed again (before or after
	// the change), nodes of the new Result's graph, sorted.
	Targets []topology.NodeID
	// Objects are the object nodes of Targets: those whose
	// <Kind>Affected conditions may have changed, sorted.
	Objects []topology.NodeID
}

// NewModel runs the engine on s and keeps what Apply needs.
func NewModel(s *snapshot.Snapshot, opts Options) (*Model, error) {
	res, err := Run(s, opts)
	if err != nil {
		return nil, err
	}
	return newModel(res, s, nil), nil
}

// newModel is the model of res, a complete run of s; prev, when not nil,
// is a model whose graph's namespace index res's graph shares.
func newModel(res *Result, s *snapshot.Snapshot, prev *Model) *Model {
	m := &Model{res: res, snap: s}
	if prev != nil && prev.res.Graph == res.Graph {
		m.inNamespace = prev.inNamespace
		return m
	}
	m.inNamespace = map[topology.NodeID][]topology.NodeID{}
	for i := range res.Graph.Nodes {
		if ns := res.Graph.Nodes[i].Namespace; ns != topology.None {
			m.inNamespace[ns] = append(m.inNamespace[ns], topology.NodeID(i))
		}
	}
	return m
}

// Result is the model's result, frozen.
func (m *Model) Result() *Result { return m.res }

// Snapshot is the model's input, in a new Snapshot when policy changes
// are pending (its cost is then a pass over the policies).
func (m *Model) Snapshot() *snapshot.Snapshot {
	return m.snap.WithPolicies(m.pending)
}

// Apply returns the model after changes, applied in order, and what
// they changed. m is not changed.
func (m *Model) Apply(changes ...snapshot.Change) (*Model, *Delta, error) {
	declared := func(c snapshot.Change) bool {
		return snapshot.IsPolicy(c.Object) && m.res.Of(c.Object.GetObjectKind().GroupVersionKind().GroupKind()) != nil
	}
	if !slices.ContainsFunc(changes, func(c snapshot.Change) bool { return !declared(c) }) {
		next, delta, err := m.applyPolicies(changes)
		if next != nil || err != nil {
			return next, delta, err
		}
	}
	if next, delta, err := m.applyRoutes(changes); next != nil || err != nil {
		return next, delta, err
	}
	snap, err := m.Snapshot().WithAll(changes)
	if err != nil {
		return nil, nil, err
	}
	res, err := Run(snap, m.res.opts)
	if err != nil {
		return nil, nil, err
	}
	return newModel(res, snap, nil), &Delta{Full: true}, nil
}

// withPending is the input of a model after policy changes: m's pending
// ones and these, applied when they are many.
func (m *Model) withPending(changes []snapshot.Change) (*snapshot.Snapshot, []snapshot.Change) {
	pending := append(slices.Clip(m.pending), changes...)
	if len(pending) < max(64, len(m.snap.Policies)/16) {
		return m.snap, pending
	}
	return m.snap.WithPolicies(pending), nil
}

// policyKey names a policy across its versions.
type policyKey struct {
	gk              schema.GroupKind
	namespace, name string
}

// applyPolicies applies changes to instances of declared kinds; no model
// and no error when the change needs a full run: it deletes the last
// policy that made a node (an implicit namespace, a virtual target),
// which a fresh run would not have.
func (m *Model) applyPolicies(changes []snapshot.Change) (*Model, *Delta, error) {
	prev := m.res
	final := map[policyKey]*unstructured.Unstructured{} // nil: deleted
	var keys []policyKey
	for _, c := range changes {
		u := c.Object.(*unstructured.Unstructured)
		k := policyKey{u.GroupVersionKind().GroupKind(), u.GetNamespace(), u.GetName()}
		if _, seen := final[k]; !seen {
			keys = append(keys, k)
		}
		final[k] = u
		if c.Deleted {
			final[k] = nil
		}
	}
	next := &Result{
		opts: prev.opts, kindErrors: prev.kindErrors, schemas: prev.schemas, schemaWarnings: prev.schemaWarnings,
		undeclared: prev.undeclared, Errors: prev.Errors, Warnings: prev.Warnings,
	}
	index := make(map[*KindResult]int, len(prev.Kinds))
	for i, kr := range prev.Kinds {
		index[kr] = i
	}
	drops, adds := map[int][]*policykind.Policy{}, map[int][]*policykind.Policy{}
	var extra topology.Extra
	delta := &Delta{}
	for _, k := range keys {
		kr := prev.Of(k.gk)
		i := index[kr]
		old := find(kr.Policies, k.namespace, k.name)
		if old != nil {
			drops[i] = append(drops[i], old)
		}
		u := final[k]
		if u == nil {
			if old != nil {
				if m.madeNodes(changes, old) {
					return nil, nil, nil
				}
				delta.Removed = append(delta.Removed, old)
			}
			continue
		}
		p := next.read(kr.Kind, u)
		if old != nil && lostVirtual(prev.Graph.Grants(), old, p) {
			return nil, nil, nil
		}
		adds[i] = append(adds[i], p)
		extra.Namespaces = append(extra.Namespaces, u.GetNamespace())
	}
	for _, ps := range adds {
		extra.Virtual = append(extra.Virtual, attach.VirtualTargets(prev.Graph.Grants(), ps)...)
	}
	g := prev.Graph.Extend(extra)
	next.Graph = g
	m2 := newModel(next, nil, m) // its namespace index, for g
	m2.snap, m2.pending = m.withPending(changes)
	next.Kinds = slices.Clone(prev.Kinds)
	out := prev.Outcome
	var changed []changedGroup
	for _, members := range prev.folds() {
		if !slices.ContainsFunc(members, func(kr *KindResult) bool { return drops[index[kr]] != nil || adds[index[kr]] != nil }) {
			continue
		}
		ch, err := next.applyGroup(m2, members, index, drops, adds, nil)
		if err != nil {
			return nil, nil, err
		}
		changed = append(changed, ch)
		delta.Policies = append(delta.Policies, ch.rendered...)
		delta.Targets = append(delta.Targets, ch.targets...)
		delta.Objects = append(delta.Objects, ch.objects...)
	}
	for _, kr := range next.Kinds {
		next.Policies = append(next.Policies, kr.Policies...)
	}
	var statuses []outcome.PolicyStatus
	for _, kr := range next.Kinds {
		statuses = append(statuses, kr.outcome.Policies...)
	}
	for _, ch := range changed {
		out = out.Splice(statuses, ch.drop, ch.part)
	}
	next.Outcome = out
	delta.sort()
	return m2, delta, nil
}

// applyRoutes applies changes that are all new versions of routes and
// Gateways the graph holds, each changing only routes' edges
// (topology.Graph.Rerouted, Regated); no model and no error when one is
// not. The contexts that change are those of the nodes below the routes,
// in the old graph and in the new, and a Gateway's own targets, whose
// object changed: each group of kinds computes its targets there again,
// as a policy change does (applyGroup).
func (m *Model) applyRoutes(changes []snapshot.Change) (*Model, *Delta, error) {
	prev := m.res
	g := prev.Graph
	var routes, objects []topology.NodeID
	for _, c := range changes {
		obj, ok := c.Object.(typed.Object)
		if !ok || c.Deleted || m.referred(obj) {
			return nil, nil, nil
		}
		if gw, isGW := obj.(*gwv1.Gateway); isGW {
			next, id, moved, ok := g.Regated(gw)
			if !ok {
				return nil, nil, nil
			}
			g = next
			routes = append(routes, moved...)
			objects = append(objects, id)
			objects = append(objects, g.Node(id).Sections.Nodes()...)
			continue
		}
		next, id, ok := g.Rerouted(obj)
		if !ok {
			return nil, nil, nil
		}
		g = next
		routes = append(routes, id)
	}
	inNS := func(ns topology.NodeID) []topology.NodeID { return m.inNamespace[ns] }
	reach := append(effective.Below(prev.Graph, routes, inNS), effective.Below(g, routes, inNS)...)
	reach = append(reach, objects...)
	slices.Sort(reach)
	reach = slices.Compact(reach)
	snap := m.snap
	for _, c := range changes {
		var err error
		if snap, err = snap.With(c); err != nil {
			return nil, nil, err
		}
	}
	next := &Result{
		Graph: g, Policies: prev.Policies, Outcome: prev.Outcome,
		opts: prev.opts, kindErrors: prev.kindErrors, schemas: prev.schemas, schemaWarnings: prev.schemaWarnings,
		undeclared: prev.undeclared, Errors: prev.Errors, Warnings: prev.Warnings,
	}
	next.Kinds = slices.Clone(prev.Kinds)
	m2 := &Model{res: next, snap: snap, pending: m.pending, inNamespace: m.inNamespace}
	index := make(map[*KindResult]int, len(prev.Kinds))
	for i, kr := range prev.Kinds {
		index[kr] = i
	}
	delta := &Delta{}
	var changed []changedGroup
	for _, members := range prev.folds() {
		ch, err := next.applyGroup(m2, members, index, nil, nil, reach)
		if err != nil {
			return nil, nil, err
		}
		if ch.same {
			continue
		}
		changed = append(changed, ch)
		delta.Policies = append(delta.Policies, ch.rendered...)
		delta.Targets = append(delta.Targets, ch.targets...)
		delta.Objects = append(delta.Objects, ch.objects...)
	}
	if len(changed) > 0 {
		var statuses []outcome.PolicyStatus
		for _, kr := range next.Kinds {
			statuses = append(statuses, kr.outcome.Policies...)
		}
		for _, ch := range changed {
			next.Outcome = next.Outcome.Splice(statuses, ch.drop, ch.part)
		}
	}
	delta.sort()
	return m2, delta, nil
}

// referred reports whether obj is neither a route nor a Gateway, or a
// policy kind of the model is referred to from objects of its kind
// (policykind.ReferenceField): a new version may attach policies, which
// new edges do not tell.
func (m *Model) referred(obj typed.Object) bool {
	gk := hierarchy.GatewayKind
	if r, ok := typed.RouteOf(obj); ok {
		gk = r.GroupKind
	} else if _, ok := obj.(*gwv1.Gateway); !ok {
		return true
	}
	for _, kr := range m.res.Kinds {
		if slices.ContainsFunc(kr.Kind.ReferencedBy, func(f policykind.ReferenceField) bool { return f.Group == gk.Group && f.Kind == gk.Kind }) {
			return true
		}
	}
	return false
}

// sort sorts the delta's lists and drops repeats.
func (d *Delta) sort() {
	slices.Sort(d.Targets)
	d.Targets = slices.Compact(d.Targets)
	slices.Sort(d.Objects)
	d.Objects = slices.Compact(d.Objects)
	slices.SortFunc(d.Policies, func(a, b *policykind.Policy) int {
		return cmp.Or(strings.Compare(a.Kind.Group, b.Kind.Group), strings.Compare(a.Kind.Kind, b.Kind.Kind), strings.Compare(a.ID(), b.ID()))
	})
}

// lostVirtual reports whether now, the new version of old, no longer
// targets a virtual object old does: its node stays in the graph, and a
// fresh run would not make it.
func lostVirtual(grants topology.Grants, old, now *policykind.Policy) bool {
	had := attach.VirtualTargets(grants, []*policykind.Policy{old})
	if len(had) == 0 {
		return false
	}
	has := attach.VirtualTargets(grants, []*policykind.Policy{now})
	return slices.ContainsFunc(had, func(r topology.Ref) bool { return !slices.Contains(has, r) })
}

// madeNodes reports whether deleting p, one of changes, leaves the
// graph a node a fresh run would not make: its namespace, implicit and
// with no other policy or object in it, or a virtual object it targets.
func (m *Model) madeNodes(changes []snapshot.Change, p *policykind.Policy) bool {
	g := m.res.Graph
	if len(attach.VirtualTargets(g.Grants(), []*policykind.Policy{p})) > 0 {
		return true
	}
	ns := g.Lookup(topology.Ref{Group: "", Kind: "Namespace", Name: p.Namespace})
	if p.Namespace == "" || ns == topology.None || g.Node(ns).Object != nil {
		return false
	}
	if slices.ContainsFunc(m.inNamespace[ns], func(n topology.NodeID) bool { return !g.Node(n).Virtual }) {
		return false
	}
	snap := m.Snapshot().WithPolicies(changes)
	return !slices.ContainsFunc(snap.Policies, func(u *unstructured.Unstructured) bool {
		return u.GetNamespace() == p.Namespace && m.res.Of(u.GroupVersionKind().GroupKind()) != nil
	})
}

// changedGroup is what applyGroup changed of a group of kinds that fold
// together: for the Result's outcome, the target statuses at the keys
// drop, replaced by part's; for the Delta, the policies rendered again,
// the targets and their objects; same when nothing changed.
type changedGroup struct {
	same     bool
	drop     []string
	part     *outcome.Outcome
	rendered []*policykind.Policy
	targets  []topology.NodeID
	objects  []topology.NodeID
}

// applyGroup recomputes a group of kinds (members, of the previous
// result, with their indexes in it) after the policies drops are removed
// and adds added, by kind index, setting their results in res.Kinds.
//
// With no policy changed, reach are the nodes whose contexts changed (a
// route moved); the group's attachments stay, and a group with no target
// there before or after is left as it is (changedGroup.same).
func (res *Result) applyGroup(m *Model, members []*KindResult, index map[*KindResult]int, drops, adds map[int][]*policykind.Policy, reach []topology.NodeID) (changedGroup, error) {
	g, first := res.Graph, members[0]
	var ch changedGroup
	var dropped, added, order []*policykind.Policy
	made := make([]*KindResult, len(members))
	for j, kr := range members {
		i := index[kr]
		ps := slices.DeleteFunc(slices.Clone(kr.Policies), func(p *policykind.Policy) bool { return slices.Contains(drops[i], p) })
		for _, p := range adds[i] {
			at, _ := slices.BinarySearchFunc(ps, p.ID(), func(q *policykind.Policy, id string) int { return strings.Compare(q.ID(), id) })
			ps = slices.Insert(ps, at, p)
		}
		made[j] = &KindResult{Kind: kr.Kind, Policies: ps}
		order = append(order, ps...)
		dropped = append(dropped, drops[i]...)
		added = append(added, adds[i]...)
	}
	before, after, nodes := first.all, first.all, reach
	// The nodes the change is at, and those whose contexts it reaches.
	var seeds []topology.NodeID
	if len(dropped)+len(added) > 0 {
		after = before.With(g, dropped, added, order)
		for _, p := range dropped {
			for _, a := range before.ByPolicy[p] {
				seeds = append(seeds, a.Node)
			}
		}
		for _, p := range added {
			for _, a := range after.ByPolicy[p] {
				seeds = append(seeds, a.Node)
			}
		}
		nodes = effective.Below(g, seeds, func(ns topology.NodeID) []topology.NodeID { return m.inNamespace[ns] })
	}
	funcs, err := res.funcs(made)
	if err != nil {
		return ch, err
	}
	kinds := make([]*policykind.Kind, len(members))
	for j, kr := range members {
		kinds[j] = kr.Kind
	}
	place := func() {
		for j, kr := range made {
			res.Kinds[index[members[j]]] = kr
		}
	}
	if len(seeds) > 0 && float64(len(nodes)) > wide*float64(len(first.Effective.Targets)) {
		// A change that reaches most targets costs least as a group
		// computed anew.
		res.compute(made, order, funcs, nil)
		place()
		var all []topology.NodeID
		for _, eff := range []*effective.Result{first.Effective, made[0].Effective} {
			for _, t := range eff.Targets {
				all = append(all, t.Node)
			}
		}
		slices.Sort(all)
		ch.drop, ch.part, ch.rendered = outcome.TargetKeys(g, kinds, slices.Compact(all)), made[0].outcome, order
		ch.targets = all
		for _, n := range all {
			ch.objects = append(ch.objects, g.Lookup(g.Node(n).Ref.Object()))
		}
		return ch, nil
	}
	now := effective.ComputeAt(g, first.Kind, after, funcs, nodes).Targets
	old := targetsAt(first.Effective.Targets, nodes)
	if len(dropped)+len(added) == 0 && len(old)+len(now) == 0 {
		ch.same = true
		return ch, nil
	}
	eff := &effective.Result{Kind: first.Effective.Kind, Targets: splice(first.Effective.Targets, nodes, now)}
	st, part, touched := first.state.Update(g, before, after, old, now, dropped)
	// The policies to render again: those counted, the new ones, and
	// those attached where the change is, whose None conflicts it may
	// change.
	again := map[*policykind.Policy]bool{}
	for _, p := range added {
		again[p] = true
	}
	for _, n := range seeds {
		for _, at := range []*attach.Result{before, after} {
			for _, a := range at.At(n) {
				again[a.Policy] = true
			}
		}
	}
	// The statuses: the previous ones (order is the previous order less
	// dropped, plus added), rendered again where touched.
	policies := make([]outcome.PolicyStatus, len(order))
	var redo []outcome.Redo
	var at []int
	was := first.outcome.Policies
	j := 0
	for i, p := range order {
		for j < len(was) && was[j].Policy != p && slices.Contains(dropped, was[j].Policy) {
			j++
		}
		var prev *outcome.PolicyStatus
		if j < len(was) && was[j].Policy == p {
			prev = &was[j]
			j++
		}
		_, counted := touched[p]
		switch {
		case prev == nil || again[p]:
			redo = append(redo, outcome.Redo{Policy: p})
		case counted:
			redo = append(redo, outcome.Redo{Policy: p, Prev: prev, At: touched[p]})
		default:
			policies[i] = *prev
			continue
		}
		at = append(at, i)
		ch.rendered = append(ch.rendered, p)
	}
	for k, s := range st.Restatuses(g, first.Kind, after, redo) {
		policies[at[k]] = s
	}
	setMembers(made, after, eff)
	place()
	ch.drop, ch.part = outcome.TargetKeys(g, kinds, nodes), part
	made[0].outcome = first.outcome.Splice(policies, ch.drop, part)
	made[0].state = st
	for _, ts := range [][]*effective.Target{old, now} {
		for _, t := range ts {
			ch.targets = append(ch.targets, t.Node)
			ch.objects = append(ch.objects, g.Lookup(g.Node(t.Node).Ref.Object()))
		}
	}
	return ch, nil
}

// wide is the share of a group's targets above which a change's nodes
// make applyGroup compute the group anew.
const wide = 0.5

// find is the policy of namespace/name among ps, sorted by ID, or nil.
func find(ps []*policykind.Policy, namespace, name string) *policykind.Policy {
	id := id(namespace, name)
	if i, ok := slices.BinarySearchFunc(ps, id, func(p *policykind.Policy, id string) int { return strings.Compare(p.ID(), id) }); ok {
		return ps[i]
	}
	return nil
}

// targetsAt are the targets (sorted by node) at the nodes given, sorted.
func targetsAt(ts []*effective.Target, nodes []topology.NodeID) []*effective.Target {
	var out []*effective.Target
	for _, n := range nodes {
		if i, ok := slices.BinarySearchFunc(ts, n, func(t *effective.Target, n topology.NodeID) int { return int(t.Node) - int(n) }); ok {
			out = append(out, ts[i])
		}
	}
	return out
}

// splice is ts (sorted by node) without the targets at the nodes of
// drop (sorted), with now (sorted by node) in their place.
func splice(ts []*effective.Target, drop []topology.NodeID, now []*effective.Target) []*effective.Target {
	out := make([]*effective.Target, 0, len(ts)+len(now))
	j := 0
	for _, t := range ts {
		if _, gone := slices.BinarySearch(drop, t.Node); gone {
			continue
		}
		for j < len(now) && now[j].Node < t.Node {
			out = append(out, now[j])
			j++
		}
		out = append(out, t)
	}
	return append(out, now[j:]...)
}

// Reach lists, sorted, the object nodes whose targets policy p of the
// model's result may reach: the objects of the nodes at and below its
// attachments. A sink that ranks what it writes by the policies' standing
// (status room) compares them again when p's standing changes.
func (m *Model) Reach(p *policykind.Policy) []topology.NodeID {
	kr := m.res.Of(p.Kind.Key())
	if kr == nil {
		return nil
	}
	var seeds []topology.NodeID
	for _, a := range kr.Attachments.ByPolicy[p] {
		seeds = append(seeds, a.Node)
	}
	g := m.res.Graph
	var out []topology.NodeID
	for _, n := range effective.Below(g, seeds, func(ns topology.NodeID) []topology.NodeID { return m.inNamespace[ns] }) {
		if obj := g.Lookup(g.Node(n).Ref.Object()); obj != topology.None {
			out = append(out, obj)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
