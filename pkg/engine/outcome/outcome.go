package outcome

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/engine/attach"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Condition types and reasons on policies (GEP-713 "Metaresource status";
// 001 "Conditions: On Policy objects"); Accepted's are Gateway API's.
const (
	Accepted          = string(gwv1.PolicyConditionAccepted)
	Enforced          = "Enforced"
	PartiallyEnforced = "PartiallyEnforced"
	Overridden        = "Overridden"
	// Merged is True on a policy that chose, through its kind's
	// spec.childMerge, to merge into less specific policies, and on those
	// (Envoy Gateway's condition for mergeType; docs/merging.md).
	Merged = "Merged"

	ReasonAccepted       = string(gwv1.PolicyReasonAccepted)
	ReasonConflicted     = string(gwv1.PolicyReasonConflicted)
	ReasonInvalid        = attach.ReasonInvalid
	ReasonTargetNotFound = attach.ReasonTargetNotFound
	ReasonEnforced       = "Enforced"
	ReasonPartially      = "PartiallyEnforced"
	ReasonOverridden     = "Overridden"
	ReasonMerged         = "Merged"
	ReasonNotApplicable  = "NotApplicable"

	// Programmed and its reasons are the other vocabulary a PolicyKind may
	// choose (spec.status.vocabulary; vocabulary.go): Gateway API's later
	// PolicyConditionProgrammed, not yet in the pinned module.
	Programmed                = "Programmed"
	ReasonProgrammed          = "Programmed"
	ReasonPartiallyProgrammed = "PartiallyProgrammed"
	ReasonReconciling         = "Reconciling"
	// ReasonAffected is the reason of <Kind>Affected conditions on targets.
	ReasonAffected = "Affected"
)

// Ancestor is one PolicyAncestorStatus: the conditions of a policy at the
// Gateway (or listener, or target) through which it acts, without
// lastTransitionTime (sinks set it).
type Ancestor struct {
	Ref        topology.Ref
	Conditions []metav1.Condition
}

// PolicyStatus is what a policy's status.ancestors should say.
type PolicyStatus struct {
	Policy *policykind.Policy
	// Ancestors sorted by ref key.
	Ancestors []Ancestor
}

// TargetStatus says that an effective target is affected by policies of
// one kind (GEP-713 "Target object status").
type TargetStatus struct {
	Node topology.NodeID
	Kind *policykind.Kind
	// Policies affecting the target, as namespace/name, sorted.
	Policies []string
	// Via are the Gateways (or ListenerSets) of the contexts in which it
	// is affected, sorted by NodeID.
	Via []topology.NodeID
}

// Outcome is the status every object should carry: Policies, and the
// target statuses (Targets).
type Outcome struct {
	Policies []PolicyStatus
	// targets are sorted by targetKey.
	targets targetList
}

// ConditionType is the <Kind>Affected condition (and annotation) name of a
// kind: the controller's domain, "/", the kind, "Affected".
func ConditionType(k *policykind.Kind) string {
	domain, _, _ := strings.Cut(k.ControllerName, "/")
	return domain + "/" + k.Kind + "Affected"
}

// AffectedCondition is the condition a target carries.
func (t TargetStatus) AffectedCondition(generation int64) metav1.Condition {
	return metav1.Condition{
		Type:               ConditionType(t.Kind),
		Status:             metav1.ConditionTrue,
		Reason:             ReasonAffected,
		Message:            fmt.Sprintf("affected by %s %s", t.Kind.Kind, strings.Join(t.Policies, ", ")),
		ObservedGeneration: generation,
	}
}

type tally struct {
	ref                           topology.Ref
	total, full, none, conflicted int
	// winners, beaters and lost count, per policy or field, the times
	// they were added (a State subtracts what it added); nil until then.
	winners, beaters, lost counts
	rejectReason           string
	rejectMsgs             []string
	effectiveKind          string
	noTargets              bool

	// mergedInto and mergedBy count the policies this one merged into
	// and those that merged into it; nil until a merge is seen.
	mergedInto, mergedBy counts

	// lastWinners, lastBeaters and lastLost are for addNew, within the
	// target numbered lastSeq (pass.seq).
	lastWinners, lastBeaters, lastLost []string
	lastSeq                            int64
	// gen is the State generation that made this tally (State.gen).
	gen int64
}

// Input is what Compute reads of one kind (or of the kinds of one value
// space, which fold together): its attachments and effective policies.
type Input struct {
	Attachments *attach.Result
	Effective   *effective.Result
}

// Compute derives the status of every policy and affected target from the
// attachments and effective policies of one kind (or value space).
func Compute(g *topology.Graph, policies []*policykind.Policy, in Input) *Outcome {
	out, _ := Build(g, policies, in)
	return out
}

// Build is Compute that also returns the State it counted, for Update.
func Build(g *topology.Graph, policies []*policykind.Policy, in Input) (*Outcome, *State) {
	st := &State{policies: make(map[*policykind.Policy]*policyState, len(policies)), gen: 1}
	w := st.pass(g, in.Attachments, 1, nil)
	for _, t := range in.Effective.Targets {
		w.target(t)
	}
	st.seq = w.seq
	out := &Outcome{Policies: st.Statuses(g, in.Effective.Kind, in.Attachments, policies)}
	out.targets = newTargetList(w.targets, sortTargets(g, w.targets))
	return out, st
}

// manyAttachments is the number of attachments above which a policy's
// attachments on a path are looked up by node rather than scanned.
const manyAttachments = 16

// seenBefore reports whether the policy of entries[i] has an entry
// before i, asked for i in increasing order (before): a scan for a short
// stack, an index for a long one (issue 11, "No cliffs").
type seenBefore struct {
	entries []*effective.Entry
	done    map[*policykind.Policy]bool
}

func newSeenBefore(entries []*effective.Entry) seenBefore {
	s := seenBefore{entries: entries}
	if len(entries) > 16 {
		s.done = make(map[*policykind.Policy]bool, len(entries))
	}
	return s
}

func (s *seenBefore) before(i int) bool {
	p := s.entries[i].Policy()
	if s.done == nil {
		for _, e := range s.entries[:i] {
			if e.Policy() == p {
				return true
			}
		}
		return false
	}
	if s.done[p] {
		return true
	}
	s.done[p] = true
	return false
}

// pass counts targets into a State with a sign (+1 adds them, -1
// subtracts them): the tallies of the policies in their contexts, the
// attachments those contexts reach, and, when adding, the targets' own
// status.
type pass struct {
	st   *State
	g    *topology.Graph
	att  *attach.Result
	sign int
	// seq numbers the target being counted (tally.lastSeq).
	seq     int64
	targets []TargetStatus
	// byNodes finds the tally of a policy in a context by the nodes its
	// ancestor ref is made of, so that the ref is made once per tally.
	byNodes map[tallyNodes]counted
	// at indexes by node the attachments of a policy with more than
	// manyAttachments, made when first needed.
	at map[*policykind.Policy]map[topology.NodeID][]*attach.Attachment
	// touched gathers the policies counted and the ancestors they were
	// counted at, when not nil.
	touched map[*policykind.Policy]map[topology.Ref]bool
	// affecting is target's scratch space (affect).
	affecting []affecting
}

// counted is a policy's state and its tally at one ancestor.
type counted struct {
	ps *policyState
	t  *tally
}

// tallyNodes are what a tally's ancestor ref is made of: a policy, the
// ancestor node of a context and the node the policy is attached at
// (ancestorRef).
type tallyNodes struct {
	p                  *policykind.Policy
	ancestor, attached topology.NodeID
}

// tally is the state's tally of p at ancestorRef(g, ancestor, attached),
// which different nodes may make alike.
func (w *pass) tally(p *policykind.Policy, ancestor, attached topology.NodeID) counted {
	k := tallyNodes{p, ancestor, attached}
	if c, ok := w.byNodes[k]; ok {
		return c
	}
	ps := w.st.own(p)
	ref := ancestorRef(w.g, ancestor, attached)
	c := counted{ps, ps.tallies.get(ref, w.st.gen)}
	if w.byNodes == nil {
		w.byNodes = map[tallyNodes]counted{}
	}
	w.byNodes[k] = c
	if w.touched != nil {
		if w.touched[p] == nil {
			w.touched[p] = map[topology.Ref]bool{}
		}
		w.touched[p][ref] = true
	}
	return c
}

// reach counts that one more (or one less) context reaches a.
func (w *pass) reach(ps *policyState, a *attach.Attachment) {
	if ps.seen == nil {
		ps.seen = map[*attach.Attachment]int32{}
	}
	if n := ps.seen[a] + int32(w.sign); n != 0 {
		ps.seen[a] = n
	} else {
		delete(ps.seen, a)
	}
}

// nodesOf indexes by node the attachments of p.
func (w *pass) nodesOf(p *policykind.Policy) map[topology.NodeID][]*attach.Attachment {
	if idx, ok := w.at[p]; ok {
		return idx
	}
	idx := map[topology.NodeID][]*attach.Attachment{}
	for _, a := range w.att.ByPolicy[p] {
		idx[a.Node] = append(idx[a.Node], a)
	}
	if w.at == nil {
		w.at = map[*policykind.Policy]map[topology.NodeID][]*attach.Attachment{}
	}
	w.at[p] = idx
	return idx
}

// target counts every policy in every context of tg and, when adding,
// records which policies affect tg (GEP-713: a target is affected by the
// policies whose settings reach it in some context).
func (w *pass) target(tg *effective.Target) {
	g, sign := w.g, w.sign
	w.seq++
	// Per kind, the policies that contribute and the parents they do it
	// through.
	w.affecting = w.affecting[:0]
	for _, ctx := range tg.Contexts {
		gw, ls := gatewayOf(g, ctx.Path)
		seen := newSeenBefore(ctx.Entries)
		for i, e := range ctx.Entries {
			p := e.Policy()
			if seen.before(i) {
				continue // count each policy once per context
			}
			c := w.tally(p, ancestorOf(g, gw, ls, e.Attachment.Node), e.Attachment.Node)
			// Every attachment of p on this path reaches this
			// context: a policy's few attachments are scanned, the
			// path walked for one with many (issue 11, "No cliffs").
			if as := w.att.ByPolicy[p]; len(as) <= manyAttachments {
				for _, a := range as {
					if slices.Contains(ctx.Path, a.Node) {
						w.reach(c.ps, a)
					}
				}
			} else {
				idx := w.nodesOf(p)
				for _, n := range ctx.Path {
					for _, a := range idx[n] {
						w.reach(c.ps, a)
					}
				}
			}
			t := c.t
			if t.lastSeq != w.seq {
				t.lastSeq, t.lastWinners, t.lastBeaters, t.lastLost = w.seq, nil, nil, nil
			}
			t.total += sign
			for q, into := range ctx.Merged {
				t.merged(p, q, into, sign)
			}
			st, others, lost := ctx.Standing(p)
			switch st {
			case effective.Conflicted:
				t.conflicted += sign
				addNew(&t.winners, &t.lastWinners, others, sign)
				continue
			case effective.Enforced:
				t.full += sign
			case effective.Overridden:
				t.none += sign
			}
			addNew(&t.beaters, &t.lastBeaters, others, sign)
			addNew(&t.lost, &t.lastLost, lost, sign)
			if sign > 0 && ctx.Contributes(p) {
				// The route's parent: its ListenerSet (GEP-1713
				// "Route Attachment"), else the Gateway.
				parent := gw
				if ls != topology.None {
					parent = ls
				}
				w.affect(p, parent)
			}
		}
	}
	for i := range w.affecting {
		a := &w.affecting[i]
		slices.Sort(a.policies)
		slices.Sort(a.via)
		ts := TargetStatus{Node: tg.Node, Kind: a.kind, Policies: slices.Clone(slices.Compact(a.policies))}
		if via := slices.Compact(a.via); len(via) > 0 {
			ts.Via = slices.Clone(via)
		}
		w.targets = append(w.targets, ts)
	}
}

// affecting is what pass.target gathers of one kind at a target: the
// policies that contribute in some context and the parents of those
// contexts, each as often as met, sorted and compacted when the target is
// done (issue 11, "No cliffs").
type affecting struct {
	kind     *policykind.Kind
	policies []string
	via      []topology.NodeID
}

// affect records that p contributes at the current target through
// parent (topology.None outside any Gateway's context).
func (w *pass) affect(p *policykind.Policy, parent topology.NodeID) {
	i := 0
	for i < len(w.affecting) && w.affecting[i].kind != p.Kind {
		i++ // one kind, or the few of a value space
	}
	if i == len(w.affecting) {
		if i < cap(w.affecting) {
			w.affecting = w.affecting[:i+1] // its lists kept to reuse
			w.affecting[i].kind = p.Kind
			w.affecting[i].policies = w.affecting[i].policies[:0]
			w.affecting[i].via = w.affecting[i].via[:0]
		} else {
			w.affecting = append(w.affecting, affecting{kind: p.Kind})
		}
	}
	a := &w.affecting[i]
	a.policies = append(a.policies, p.ID())
	if parent != topology.None {
		a.via = append(a.via, parent)
	}
}

// Merge joins the outcomes of separate kinds (in kind order), as Compute
// over all of them would give; each part's targets, sorted by Compute,
// are merged by their keys.
func Merge(parts ...*Outcome) *Outcome {
	out := &Outcome{}
	type run struct {
		ts   []TargetStatus
		keys []string
	}
	var runs []run
	n := 0
	for _, p := range parts {
		out.Policies = append(out.Policies, p.Policies...)
		if p.targets.n > 0 {
			ts, keys := p.targets.all()
			runs = append(runs, run{ts, keys})
			n += len(ts)
		}
	}
	if n == 0 {
		return out
	}
	ts, keys := make([]TargetStatus, 0, n), make([]string, 0, n)
	for len(runs) > 0 {
		next := 0
		for i := 1; i < len(runs); i++ {
			if runs[i].keys[0] < runs[next].keys[0] {
				next = i
			}
		}
		r := &runs[next]
		ts, keys = append(ts, r.ts[0]), append(keys, r.keys[0])
		if r.ts, r.keys = r.ts[1:], r.keys[1:]; len(r.ts) == 0 {
			runs = slices.Delete(runs, next, next+1)
		}
	}
	out.targets = newTargetList(ts, keys)
	return out
}

// targetKey orders target statuses: by node locator, then kind.
func targetKey(g *topology.Graph, t TargetStatus) string {
	return g.Node(t.Node).Ref.Key() + "\x00" + t.Kind.Group + "/" + t.Kind.Kind
}

// sortTargets orders targets by targetKey, made once per target, and
// returns the keys in that order.
func sortTargets(g *topology.Graph, ts []TargetStatus) []string {
	type keyed struct {
		key string
		at  int
	}
	ks := make([]keyed, len(ts))
	for i := range len(ts) {
		ks[i] = keyed{targetKey(g, ts[i]), i}
	}
	slices.SortFunc(ks, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	sorted := make([]TargetStatus, len(ts))
	keys := make([]string, len(ks))
	for i, k := range ks {
		sorted[i], keys[i] = ts[k.at], k.key
	}
	copy(ts, sorted)
	return keys
}

func (t *tally) conditions(p *policykind.Policy) []metav1.Condition {
	gen := max(p.Object.GetGeneration(), 0) // the schema's minimum; files may say anything
	cond := func(typ string, ok bool, reason, msg string) metav1.Condition {
		s := metav1.ConditionFalse
		if ok {
			s = metav1.ConditionTrue
		}
		return metav1.Condition{Type: typ, Status: s, Reason: reason, Message: Clip(msg, MaxMessage), ObservedGeneration: gen}
	}
	if t.rejectReason != "" {
		msgs := slices.Compact(slices.Sorted(slices.Values(t.rejectMsgs)))
		return []metav1.Condition{cond(Accepted, false, t.rejectReason, strings.Join(msgs, "; "))}
	}
	if t.total > 0 && t.conflicted == t.total {
		return []metav1.Condition{cond(Accepted, false, ReasonConflicted,
			fmt.Sprintf("conflicts with %s, which wins under the None merge strategy (older, then first by namespace/name)", strings.Join(sortedSet(t.winners), ", ")))}
	}
	accepted := cond(Accepted, true, ReasonAccepted, "accepted")
	v := vocabularyOf(p.Kind)
	nonConflicted := t.total - t.conflicted
	var which effective.Standing
	var msg string
	switch {
	case t.total == 0:
		which, msg = effective.Enforced, fmt.Sprintf("no %s is reached through %s yet; nothing is superseded", t.effectiveKind, t.ref)
	case t.full == nonConflicted && t.conflicted == 0:
		which, msg = effective.Enforced, fmt.Sprintf("fully %s in %s", v.verb, plural(t.total, "context"))
	case t.full == 0 && t.none == nonConflicted:
		which, msg = effective.Overridden, fmt.Sprintf("overridden by %s in all %s", t.beatersText(), plural(t.total, "context"))
		if t.total == 1 {
			msg = fmt.Sprintf("overridden by %s in its only context", t.beatersText())
		}
		if t.conflicted > 0 {
			msg = fmt.Sprintf("overridden by %s in %d of %s; conflicts with %s in %d", t.beatersText(), t.none, plural(t.total, "context"), strings.Join(sortedSet(t.winners), ", "), t.conflicted)
		}
	default:
		var parts []string
		if superseded := nonConflicted - t.full; superseded > 0 {
			parts = append(parts, fmt.Sprintf("superseded by %s in %d of %s (%s)", t.beatersText(), superseded, plural(t.total, "context"), t.lostText()))
		}
		if t.conflicted > 0 {
			parts = append(parts, fmt.Sprintf("conflicts with %s in %d of %s", strings.Join(sortedSet(t.winners), ", "), t.conflicted, plural(t.total, "context")))
		}
		which, msg = effective.PartiallyEnforced, strings.Join(parts, "; ")
	}
	w := v.words[which]
	conds := make([]metav1.Condition, 1, 2+len(v.types)) // not grown a condition at a time
	conds[0] = accepted
	if m := t.mergedText(p); m != "" {
		conds = append(conds, cond(Merged, true, ReasonMerged, m))
	}
	for _, typ := range v.types {
		if typ == w.typ {
			conds = append(conds, cond(typ, w.status, w.reason, msg))
		} else {
			conds = append(conds, cond(typ, false, ReasonNotApplicable, "the policy is "+w.reason))
		}
	}
	return conds
}

// merged counts (with sign), for policy p of a context, that q merged
// into the policies into.
func (t *tally) merged(p, q *policykind.Policy, into []*policykind.Policy, sign int) {
	if q == p {
		for _, r := range into {
			t.mergedInto.add(r.ID(), sign)
		}
	} else if slices.Contains(into, p) {
		t.mergedBy.add(q.ID(), sign)
	}
}

// mergedText is the Merged condition's message, "" when p neither
// merged nor was merged into.
func (t *tally) mergedText(p *policykind.Policy) string {
	var parts []string
	field := "its kind's childMerge field"
	if cm := p.Kind.ChildMerge; cm != nil {
		field = cm.Field
	}
	if len(t.mergedInto) > 0 {
		parts = append(parts, fmt.Sprintf("merged into %s, as its %s chooses", strings.Join(sortedSet(t.mergedInto), ", "), field))
	}
	if len(t.mergedBy) > 0 {
		parts = append(parts, fmt.Sprintf("%s merged into it, as their %s chooses", strings.Join(sortedSet(t.mergedBy), ", "), field))
	}
	return strings.Join(parts, "; ")
}

// beatersText names the policies that superseded this one, or says why
// none can be named.
func (t *tally) beatersText() string {
	if len(t.beaters) == 0 {
		return "the target's own values or a policy that sets no field"
	}
	return strings.Join(sortedSet(t.beaters), ", ")
}

// lostText lists the fields lost; a policy that sets no field loses its
// spec as a whole.
func (t *tally) lostText() string {
	if len(t.lost) == 0 {
		return "its whole spec, which sets no field"
	}
	return "fields " + strings.Join(sortedSet(t.lost), ", ")
}

// ancestorRef is the ref a policy's status is reported against for one
// context: the Gateway or ListenerSet of the path (with the listener when
// the policy targets a listener), else the node the policy is attached to
// (GEP-1897: a target is also a valid ancestor).
func ancestorRef(g *topology.Graph, gw, attached topology.NodeID) topology.Ref {
	if gw == topology.None || hierarchy.Kinds[g.Node(gw).Ref.GroupKind()].Section != "listener" {
		// A Service's frontend and the Service are one ancestor.
		r := g.Node(attached).Ref
		r.Role = hierarchy.RoleNone
		return r
	}
	r := g.Node(gw).Ref
	if a := g.Node(attached).Ref; a.Object() == r && a.Section != "" {
		r.Section = a.Section
	}
	return r
}

// ancestorOf is the parent a policy attached at node attached reports
// against on a path through Gateway gw and ListenerSet ls (or None): the
// ListenerSet for a policy attached to it or below it (GEP-1713 "Route
// Attachment"), else the Gateway.
func ancestorOf(g *topology.Graph, gw, ls, attached topology.NodeID) topology.NodeID {
	if ls == topology.None {
		return gw
	}
	a := g.Node(attached)
	if a.Ref.Object() == g.Node(ls).Ref || a.Level > hierarchy.LevelGateway {
		return ls
	}
	return gw
}

// gatewayOf finds the Gateway and the ListenerSet object nodes on a path.
func gatewayOf(g *topology.Graph, path []topology.NodeID) (gw, ls topology.NodeID) {
	gw, ls = topology.None, topology.None
	for _, n := range path {
		if n == topology.None {
			continue
		}
		// The levels first: an int, cheaper than the kind.
		node := g.Node(n)
		if (node.Level != hierarchy.LevelGateway && node.Level != hierarchy.LevelListenerSet) || node.Ref.Section != "" {
			continue
		}
		switch node.Ref.GroupKind() {
		case hierarchy.GatewayKind:
			if gw == topology.None {
				gw = n
			}
		case hierarchy.ListenerSetKind:
			if ls == topology.None {
				ls = n
			}
		}
	}
	return gw, ls
}

// counts is a multiset of names: how often each was added, less how
// often it was taken away; a name at zero is not held.
type counts map[string]int32

// add adds n to the count of name (n < 0 takes away).
func (c *counts) add(name string, n int) {
	if *c == nil {
		*c = counts{}
	}
	if v := (*c)[name] + int32(n); v != 0 {
		(*c)[name] = v
	} else {
		delete(*c, name)
	}
}

// addAll adds each of items n times to *set.
func addAll(set *counts, items []string, n int) {
	for _, i := range items {
		set.add(i, n)
	}
}

// addNew is addAll of items unless they are the items added last
// (*last), which it then remembers: a tally meets the same lists context
// after context.
func addNew(set *counts, last *[]string, items []string, n int) {
	if len(items) == 0 || slices.Equal(*last, items) {
		return
	}
	*last = items
	addAll(set, items, n)
}

// union adds the counts of from to *set.
func union(set *counts, from counts) {
	for name, n := range from {
		set.add(name, int(n))
	}
}

// sortedSet is the names a multiset holds, sorted.
func sortedSet(c counts) []string { return slices.Sorted(maps.Keys(c)) }

func plural(n int, s string) string {
	if n == 1 {
		return "1 " + s
	}
	return fmt.Sprintf("%d %ss", n, s)
}
