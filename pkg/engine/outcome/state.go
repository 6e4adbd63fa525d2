package outcome

import (
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/strata-dev/strata/pkg/engine/attach"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// State is the outcome of one kind (or value space) kept as a sum over
// its effective targets: each policy's tally at each ancestor counts what
// the targets' contexts say of it, and each attachment how many contexts
// reach it. A policy's status is a function of its tallies, its
// attachments and its rejections (Statuses), so a change that reaches a
// few targets subtracts their old contexts, adds their new ones and
// renders the policies it counted again (Update), however many targets
// the other policies reach (docs/live-model.md).
//
// A State is frozen once made: Update returns a new State that shares
// every policy's and tally's part it did not change (copied on first
// write, told apart by generation), so the old one stays valid for its
// readers.
type State struct {
	policies map[*policykind.Policy]*policyState
	// gen is this state's generation: a part with a lower one belongs to
	// an earlier state and is copied before this one changes it.
	gen int64
	// seq is the last target number counted along the lineage (pass.seq).
	seq int64
}

// policyState is what the targets' contexts say of one policy.
type policyState struct {
	gen     int64
	tallies ancestorTallies
	// seen counts the contexts that reach each of the policy's
	// attachments; an attachment no context reaches is not held.
	seen map[*attach.Attachment]int32
}

// own returns p's state for changing in st, copied when it belongs to an
// earlier state.
func (st *State) own(p *policykind.Policy) *policyState {
	ps := st.policies[p]
	switch {
	case ps == nil:
		ps = &policyState{gen: st.gen}
	case ps.gen != st.gen:
		ps = &policyState{gen: st.gen, tallies: ps.tallies.clone(), seen: maps.Clone(ps.seen)}
	default:
		return ps
	}
	st.policies[p] = ps
	return ps
}

// pass counts targets into st with sign; touched, when not nil, gathers
// the policies counted.
func (st *State) pass(g *topology.Graph, att *attach.Result, sign int, touched map[*policykind.Policy]map[topology.Ref]bool) *pass {
	return &pass{st: st, g: g, att: att, sign: sign, seq: st.seq, touched: touched}
}

// Update is the state after a change that replaced the effective targets
// old, computed on the attachments before, with now, computed on after
// (the targets of the same nodes; a node may have one on either side
// only). gone are the policies that no longer exist. It returns the new
// state, the target statuses of now as an Outcome without policies (for
// Outcome.Splice), and the policies whose tallies changed with the
// ancestors they changed at, whose statuses must be rendered again
// (Restatuses).
func (st *State) Update(g *topology.Graph, before, after *attach.Result, old, now []*effective.Target, gone []*policykind.Policy) (*State, *Outcome, map[*policykind.Policy]map[topology.Ref]bool) {
	next := &State{policies: maps.Clone(st.policies), gen: st.gen + 1, seq: st.seq}
	touched := map[*policykind.Policy]map[topology.Ref]bool{}
	w := next.pass(g, before, -1, touched)
	for _, t := range old {
		w.target(t)
	}
	w2 := next.pass(g, after, 1, touched)
	w2.seq = w.seq
	for _, t := range now {
		w2.target(t)
	}
	next.seq = w2.seq
	// A tally no context counts any more is no ancestor: a fresh count
	// would not have made it.
	for p := range touched {
		ps := next.policies[p]
		if slices.ContainsFunc(ps.tallies.list, func(t *tally) bool { return t.total == 0 }) {
			ps.tallies.compact()
		}
	}
	for _, p := range gone {
		delete(next.policies, p)
	}
	keys := sortTargets(g, w2.targets)
	return next, &Outcome{targets: newTargetList(w2.targets, keys)}, touched
}

// Statuses renders the status of policies (of kind k, or of its value
// space) from st, the attachments att and their rejections.
func (st *State) Statuses(g *topology.Graph, k *policykind.Kind, att *attach.Result, policies []*policykind.Policy) []PolicyStatus {
	redo := make([]Redo, len(policies))
	for i, p := range policies {
		redo[i] = Redo{Policy: p}
	}
	return st.Restatuses(g, k, att, redo)
}

// Redo is a policy whose status to render again: from scratch, or, given
// its previous status and the ancestors its tallies changed at (Update),
// at those ancestors and where its attachments and rejections report.
type Redo struct {
	Policy *policykind.Policy
	Prev   *PolicyStatus
	At     map[topology.Ref]bool
}

// Restatuses is Statuses of the policies of redo, each rendered again
// only where it may have changed when it says so: a policy's cost is the
// ancestors that changed, not all it has (a GatewayClass-wide policy has
// one per Gateway).
func (st *State) Restatuses(g *topology.Graph, k *policykind.Kind, att *attach.Result, redo []Redo) []PolicyStatus {
	if len(redo) == 0 {
		return nil
	}
	r := renderer{g: g, att: att, k: k, conflicts: map[nodeScope]map[*policykind.Policy]*policykind.Policy{}}
	want := make(map[*policykind.Policy]bool, len(redo))
	for _, rd := range redo {
		want[rd.Policy] = true
	}
	rejected := map[*policykind.Policy][]attach.Rejection{}
	for _, rj := range att.Rejections {
		if want[rj.Policy] {
			rejected[rj.Policy] = append(rejected[rj.Policy], rj)
		}
	}
	// The name of the effective targets a policy waits for.
	r.effKind = "effective target"
	if effs := k.EffectiveKinds(); len(effs) > 0 {
		names := make([]string, len(effs))
		for i, e := range effs {
			names[i] = e.Kind
		}
		r.effKind = strings.Join(names, " or ")
	}
	out := make([]PolicyStatus, len(redo))
	for i, rd := range redo {
		ps := st.policies[rd.Policy]
		if rd.Prev != nil && rd.Prev.Policy == rd.Policy && ps != nil && ps.tallies.bad == 0 {
			if s, ok := r.restatus(ps, rd.Policy, rejected[rd.Policy], *rd.Prev, rd.At); ok {
				out[i] = s
				continue
			}
		}
		out[i] = r.status(ps, rd.Policy, rejected[rd.Policy], nil)
	}
	return out
}

// renderer renders policy statuses; conflicts caches effective.Conflicts
// by node and scope for the attachments no context reaches.
type renderer struct {
	g         *topology.Graph
	att       *attach.Result
	k         *policykind.Kind
	effKind   string
	conflicts map[nodeScope]map[*policykind.Policy]*policykind.Policy
}

// nodeScope keys renderer.conflicts.
type nodeScope struct {
	node  topology.NodeID
	scope string
}

// status is p's status: its tallies (ps, nil when no context counts it),
// with what its unreached attachments and its rejections add, on copies.
// With only, it is the ancestors at those refs and at the refs the
// attachments and rejections report against, which it adds to only.
func (r *renderer) status(ps *policyState, p *policykind.Policy, rejected []attach.Rejection, only map[topology.Ref]bool) PolicyStatus {
	var base ancestorTallies
	if ps != nil {
		base = ps.tallies
	}
	list := base.list
	if only != nil {
		list = nil
		for ref := range only {
			if t := base.find(ref); t != nil {
				list = append(list, t)
			}
		}
	}
	var mine map[topology.Ref]*tally // the tallies copied into list
	get := func(ref topology.Ref) *tally {
		if t := mine[ref]; t != nil {
			return t
		}
		if mine == nil {
			mine = map[topology.Ref]*tally{}
			list = slices.Clone(list)
		}
		t := base.find(ref)
		i := slices.Index(list, t)
		switch {
		case t == nil || i < 0:
			if t == nil {
				t = &tally{ref: ref}
			} else {
				t = t.clone(0)
			}
			list = append(list, t)
		default:
			t = t.clone(0)
			list[i] = t
		}
		if only != nil {
			only[ref] = true
		}
		mine[ref] = t
		return t
	}
	// Attached, accepted policies that reach no effective target yet;
	// None conflicts at such a node are rejections all the same.
	g := r.g
	for _, a := range r.att.ByPolicy[p] {
		if ps != nil && ps.seen[a] > 0 {
			continue
		}
		t := get(ancestorRef(g, g.Lookup(g.Node(a.Node).Ref.Object()), a.Node))
		key := nodeScope{a.Node, a.Scope}
		c, ok := r.conflicts[key]
		if !ok {
			c = effective.Conflicts(g, r.k, r.att, a.Node, a.Scope)
			r.conflicts[key] = c
		}
		if w, lost := c[p]; lost {
			t.total++
			t.conflicted++
			t.winners.add(w.ID(), 1)
			continue
		}
		t.noTargets = true
		t.effectiveKind = r.effKind
	}
	for _, rj := range rejected {
		t := get(rj.Target)
		if t.rejectReason == "" || rj.Reason == ReasonInvalid {
			t.rejectReason = rj.Reason
		}
		t.rejectMsgs = append(t.rejectMsgs, rj.Message)
	}
	out := PolicyStatus{Policy: p}
	m := reportable(p, list)
	// Sorted by key, each key made once.
	type keyed struct {
		key string
		t   *tally
	}
	refs := make([]keyed, 0, len(m))
	for _, t := range m {
		refs = append(refs, keyed{t.ref.Key(), t})
	}
	slices.SortFunc(refs, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	for _, kt := range refs {
		out.Ancestors = append(out.Ancestors, Ancestor{Ref: kt.t.ref, Conditions: kt.t.conditions(p)})
	}
	return out
}

// restatus is status at the ancestors that may have changed, at, put in
// place of prev's there; false when p has, or had, an ancestor the API
// server would refuse, whose tallies reportable moves to the policy
// itself.
func (r *renderer) restatus(ps *policyState, p *policykind.Policy, rejected []attach.Rejection, prev PolicyStatus, at map[topology.Ref]bool) (PolicyStatus, bool) {
	self := topology.Ref{Group: p.Kind.Group, Kind: p.Kind.Kind, Namespace: p.Namespace, Name: p.Name}
	if slices.ContainsFunc(prev.Ancestors, func(a Ancestor) bool { return a.Ref == self }) {
		return PolicyStatus{}, false // it may hold tallies reportable moved there
	}
	only := maps.Clone(at)
	if only == nil {
		only = map[topology.Ref]bool{}
	}
	now := r.status(ps, p, rejected, only)
	for ref := range only {
		if !validAncestorRef(ref) || ref == self {
			return PolicyStatus{}, false
		}
	}
	// prev without the ancestors at only, with now's, by key.
	type keyed struct {
		key string
		a   Ancestor
	}
	var redone []keyed
	for ref := range only {
		redone = append(redone, keyed{key: ref.Key()})
		redone[len(redone)-1].a.Ref = ref
	}
	slices.SortFunc(redone, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	fresh := map[topology.Ref]Ancestor{}
	for _, a := range now.Ancestors {
		fresh[a.Ref] = a
	}
	out := PolicyStatus{Policy: p, Ancestors: make([]Ancestor, 0, len(prev.Ancestors)+len(now.Ancestors))}
	from := 0
	for _, rd := range redone {
		i := from + sort.Search(len(prev.Ancestors)-from, func(i int) bool { return prev.Ancestors[from+i].Ref.Key() >= rd.key })
		out.Ancestors = append(out.Ancestors, prev.Ancestors[from:i]...)
		from = i
		if from < len(prev.Ancestors) && prev.Ancestors[from].Ref == rd.a.Ref {
			from++
		}
		if a, ok := fresh[rd.a.Ref]; ok {
			out.Ancestors = append(out.Ancestors, a)
		}
	}
	out.Ancestors = append(out.Ancestors, prev.Ancestors[from:]...)
	if len(out.Ancestors) == 0 {
		out.Ancestors = nil
	}
	return out, true
}

// ancestorTallies are one policy's tallies, one per ancestor, in the
// order they were first counted, found by a scan; a policy with many gets
// an index, not a quadratic scan (issue 11, "No cliffs").
type ancestorTallies struct {
	list  []*tally
	index map[topology.Ref]*tally // with more than fewAncestors
	// bad counts the tallies at refs the API server would refuse.
	bad int
}

// fewAncestors is the most ancestors a policy's tallies are scanned for.
const fewAncestors = 8

// find returns the tally at ref, or nil.
func (a *ancestorTallies) find(ref topology.Ref) *tally {
	if a.index != nil {
		return a.index[ref]
	}
	for _, t := range a.list {
		if t.ref == ref {
			return t
		}
	}
	return nil
}

// get returns the tally at ref for changing in generation gen: new and
// empty the first time, copied when an earlier generation made it.
func (a *ancestorTallies) get(ref topology.Ref, gen int64) *tally {
	t := a.find(ref)
	switch {
	case t == nil:
		t = &tally{ref: ref, gen: gen} // its sets are made when first added to
		a.list = append(a.list, t)
		if !validAncestorRef(ref) {
			a.bad++
		}
	case t.gen != gen:
		c := t.clone(gen)
		a.list[slices.Index(a.list, t)] = c
		if a.index != nil {
			a.index[ref] = c
		}
		return c
	default:
		return t
	}
	switch {
	case a.index != nil:
		a.index[ref] = t
	case len(a.list) > fewAncestors:
		a.reindex()
	}
	return t
}

// reindex makes the index of a list longer than fewAncestors.
func (a *ancestorTallies) reindex() {
	a.index = make(map[topology.Ref]*tally, 2*len(a.list))
	for _, t := range a.list {
		a.index[t.ref] = t
	}
}

// clone copies the list and index, sharing the tallies (get copies a
// tally before changing it).
func (a ancestorTallies) clone() ancestorTallies {
	return ancestorTallies{list: slices.Clone(a.list), index: maps.Clone(a.index), bad: a.bad}
}

// compact drops the tallies no context counts.
func (a *ancestorTallies) compact() {
	a.list = slices.DeleteFunc(a.list, func(t *tally) bool { return t.total == 0 })
	a.index, a.bad = nil, 0
	for _, t := range a.list {
		if !validAncestorRef(t.ref) {
			a.bad++
		}
	}
	if len(a.list) > fewAncestors {
		a.reindex()
	}
}

// all returns the tallies, nil for a policy without any.
func (a *ancestorTallies) all() []*tally {
	if a == nil {
		return nil
	}
	return a.list
}

// clone copies t for generation gen.
func (t *tally) clone(gen int64) *tally {
	c := *t
	c.gen = gen
	c.winners, c.beaters, c.lost = maps.Clone(t.winners), maps.Clone(t.beaters), maps.Clone(t.lost)
	c.mergedInto, c.mergedBy = maps.Clone(t.mergedInto), maps.Clone(t.mergedBy)
	c.rejectMsgs = slices.Clone(t.rejectMsgs)
	return &c
}
