package effective

import (
	"encoding/binary"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/strata-dev/strata/pkg/attach"
	"github.com/strata-dev/strata/pkg/hierarchy"
	"github.com/strata-dev/strata/pkg/merge"
	"github.com/strata-dev/strata/pkg/policykind"
	"github.com/strata-dev/strata/pkg/topology"
)

// Entry is one block of one policy in a context's stack.
type Entry struct {
	Attachment *attach.Attachment
	Level      hierarchy.Level
	Block      *policykind.Block
	Value      merge.Value
}

// Policy of the entry.
func (e *Entry) Policy() *policykind.Policy { return e.Attachment.Policy }

// Outcome is the merged result of one stack of entries. Contexts with the
// same stack share one Outcome. Its lazily filled caches make it unsafe
// for concurrent use; a Result belongs to one goroutine at a time.
type Outcome struct {
	// Result is the effective spec proper and who set each leaf.
	Result merge.Value
	// Conflicted maps each policy rejected by the None strategy to the
	// policy that won (GEP-713 "None: ... all the other metaresources
	// attached to the same target are rejected").
	Conflicted map[*policykind.Policy]*policykind.Policy

	owned     map[*policykind.Policy][]string // lazily, by Standing
	keys      []string                        // Result.Prov's pointers sorted, lazily, by Standing
	standings map[*policykind.Policy]standingResult
	leaves    map[*policykind.Policy][]string // shared by a computation's outcomes
}

// Context is one path from a root of the DAG to an effective target, with
// the policies that act on it (GEP-713 "Abstract process for calculating
// Effective metaresources").
type Context struct {
	// Path lists the namespaces above the path, then the path from root to
	// target.
	Path []topology.NodeID
	// Entries is the stack, least specific first.
	Entries []*Entry
	*Outcome
}

// Target is an effective target and its contexts. Contexts without any
// policy are left out.
type Target struct {
	Node     topology.NodeID
	Contexts []*Context
}

// Result is the effective policy of one kind everywhere.
type Result struct {
	Kind    *policykind.Kind
	Targets []*Target
}

// Compute calculates the effective policy of every effective target of a
// kind in every context. funcs are the merge functions by atomicity.
func Compute(g *topology.Graph, k *policykind.Kind, att *attach.Result, funcs map[string]merge.Func) *Result {
	return ComputeOnly(g, k, att, funcs, nil)
}

// ComputeOnly is Compute for the effective targets for which in is true
// (all of them when in is nil), for questions about a few nodes of a large
// graph: each target it returns is the one Compute returns, contexts and
// outcomes alike, because a target's contexts are its own ancestor paths
// and the attachments along them, whatever else the graph holds. Only the
// targets left out differ: they are missing.
func ComputeOnly(g *topology.Graph, k *policykind.Kind, att *attach.Result, funcs map[string]merge.Func, in func(topology.NodeID) bool) *Result {
	return newComputer(g, k, att, funcs).compute(in)
}

func (c *computer) compute(in func(topology.NodeID) bool) *Result {
	g, att := c.g, c.att
	res := &Result{Kind: c.k}
	if len(att.ByNode) == 0 {
		return res
	}
	for _, t := range c.targets() {
		if in != nil && !in(t) {
			continue
		}
		tg := &Target{Node: t}
		g.Ancestors(t, func(path []topology.NodeID) {
			if ctx := c.context(t, path); ctx != nil {
				tg.Contexts = append(tg.Contexts, ctx)
			}
		})
		if len(tg.Contexts) > 0 {
			res.Targets = append(res.Targets, tg)
		}
	}
	return res
}

func newComputer(g *topology.Graph, k *policykind.Kind, att *attach.Result, funcs map[string]merge.Func) *computer {
	return &computer{
		g: g, k: k, att: att, funcs: funcs,
		memo: map[string]*Outcome{}, values: map[*policykind.Block]merge.Value{}, leaves: map[*policykind.Policy][]string{},
		plain: map[*policykind.Block]bool{}, inPlaceFrom: inPlaceFrom,
	}
}

// inPlaceFrom is the stack size from which fold accumulates in place
// (merge.Acc): below it, copying the few fields of a short stack costs
// less than the accumulator's indexes.
const inPlaceFrom = 16

type computer struct {
	g      *topology.Graph
	k      *policykind.Kind
	att    *attach.Result
	funcs  map[string]merge.Func
	memo   map[string]*Outcome
	values map[*policykind.Block]merge.Value
	ids    map[*policykind.Policy]uint32
	leaves map[*policykind.Policy][]string
	// sourcedBy caches sourced per policy.
	sourcedBy map[*policykind.Policy][]string
	// plain caches merge.Plain per block.
	plain map[*policykind.Block]bool
	// inPlaceFrom is the stack size from which fold uses merge.Acc; a
	// field so that tests can compare both folds on every stack.
	inPlaceFrom int
}

// targets lists the effective targets reached by any attachment, in
// NodeID order. Without an effective kind the attached nodes are the
// targets. Otherwise they are the nodes of the effective kind below an
// attached node (or in an attached namespace), plus sections of that kind
// that are themselves attached.
func (c *computer) targets() []topology.NodeID {
	g, eff := c.g, c.k.EffectiveTargetKind
	var out []topology.NodeID
	if eff == nil {
		for n := range c.att.ByNode {
			out = append(out, n)
		}
		slices.Sort(out)
		return out
	}
	effGK := eff.Schema()
	reached := make([]bool, len(g.Nodes))
	var queue []topology.NodeID
	mark := func(n topology.NodeID) {
		if !reached[n] {
			reached[n] = true
			queue = append(queue, n)
		}
	}
	attachedNS := map[topology.NodeID]bool{}
	for n := range c.att.ByNode {
		if g.Node(n).Ref.GroupKind() == hierarchy.NamespaceKind {
			attachedNS[n] = true
		}
		mark(n)
	}
	if len(attachedNS) > 0 {
		for i := range g.Nodes {
			if attachedNS[g.Nodes[i].Namespace] {
				mark(topology.NodeID(i))
			}
		}
	}
	for len(queue) > 0 {
		n := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, ch := range g.Node(n).Children {
			mark(ch)
		}
	}
	for i, r := range reached {
		if !r {
			continue
		}
		n := g.Node(topology.NodeID(i))
		if n.Ref.GroupKind() != effGK {
			continue
		}
		if n.Ref.Section != "" && len(c.att.ByNode[topology.NodeID(i)]) == 0 {
			continue
		}
		out = append(out, topology.NodeID(i))
	}
	return out
}

// context builds the stack of one path and folds it.
func (c *computer) context(target topology.NodeID, path []topology.NodeID) *Context {
	g := c.g
	nodes := append(g.Namespaces(path), path...)
	if c.k.EffectiveTargetKind == nil {
		nodes = []topology.NodeID{target}
	}
	gatewayNS := ""
	for _, n := range path {
		if g.Node(n).Ref.GroupKind() == hierarchy.GatewayKind {
			gatewayNS = g.Node(n).Ref.Namespace
			break
		}
	}
	// Attachments along the path; a policy attached at several nodes of
	// one path counts once, at its most specific node.
	// The stack keeps each policy's last attachment along the path, in
	// path order: found in two passes (the last index of each policy,
	// then the attachments at those indexes), linear in the attachments
	// where deleting earlier ones as later ones come was quadratic with
	// thousands of policies on one Gateway (issue 11, "No cliffs").
	var all []*attach.Attachment
	for _, n := range nodes {
		for _, a := range c.att.ByNode[n] {
			if a.Scope != "" && a.Scope != gatewayNS {
				continue
			}
			all = append(all, a)
		}
	}
	if len(all) == 0 {
		return nil
	}
	last := make(map[*policykind.Policy]int, len(all))
	for i, a := range all {
		last[a.Policy] = i
	}
	atts := all[:0]
	for i, a := range all {
		if last[a.Policy] == i {
			atts = append(atts, a)
		}
	}
	entries := c.stack(atts)
	ctx := &Context{Path: append(g.Namespaces(path), path...), Entries: entries}
	obj := c.objectValues(target)
	if obj == nil {
		key := c.key(entries)
		if o, ok := c.memo[key]; ok {
			ctx.Outcome = o
			return ctx
		}
		ctx.Outcome = c.fold(entries, nil)
		c.memo[key] = ctx.Outcome
		return ctx
	}
	ctx.Outcome = c.fold(entries, obj)
	return ctx
}

// stack orders the blocks of the attached policies from least to most
// specific. Levels come from the hierarchy (higher wins, GEP-713 "Conflict
// resolution rules"). Within a level the older policy (then the first by
// namespace/name) must win for defaults and overrides alike: overrides
// and None blocks are stacked oldest first (the less specific wins them),
// then defaults newest first (the more specific wins them), so a level's
// overrides also beat its defaults (001 "Conflict Resolution").
func (c *computer) stack(atts []*attach.Attachment) []*Entry {
	var entries []*Entry
	for _, a := range atts {
		lvl := c.g.Node(a.Node).Level
		if a.Global {
			lvl = hierarchy.LevelNamespace - 1 // 002: global policies come first
		}
		for i := range a.Policy.Blocks {
			b := &a.Policy.Blocks[i]
			v, ok := c.values[b]
			if !ok {
				v = merge.Of(b.Values, a.Policy)
				c.values[b] = v
			}
			entries = append(entries, &Entry{Attachment: a, Level: lvl, Block: b, Value: v})
		}
	}
	rank := func(e *Entry) int {
		if e.Block.Strategy.Base == policykind.Defaults {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(entries, func(a, b *Entry) int {
		if a.Level != b.Level {
			return int(a.Level) - int(b.Level)
		}
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		older := a.Policy().Before(b.Policy())
		if a.Policy() == b.Policy() {
			return 0
		}
		if rank(a) == 1 {
			older = !older // defaults: oldest last, so it wins
		}
		if older {
			return -1
		}
		return 1
	})
	return entries
}

// fold reduces a stack to one value, walking from the least specific entry
// down: each pair is combined with the strategy dictated by the less
// specific entry of the pair (the Memorandum's abstract process), or by the
// older one within a level. Leaves set by an overrides block are locked so
// that no more specific entry can change them, whatever strategy it
// dictates further down (001's expanded hierarchy: "A override > B
// override > C override > C default > B default > A default").
func (c *computer) fold(entries []*Entry, object *merge.Value) *Outcome {
	if len(entries) >= c.inPlaceFrom && c.builtin() && c.allPlain(entries) {
		return c.foldInPlace(entries, object)
	}
	out := &Outcome{leaves: c.leaves}
	first := entries[0]
	acc := first.Value
	locked := map[string]bool{}
	lock := func(e *Entry) {
		if e.Block.Strategy.Base != policykind.Overrides {
			return
		}
		if !c.builtin() {
			for p, s := range acc.Prov {
				if s == e.Policy() {
					locked[p] = true
				}
			}
			return
		}
		// Only the policy's own pointers can name it as their source, so
		// they are looked up instead of scanning the accumulated value,
		// which grows with every policy of the stack (issue 11).
		for _, p := range c.sourced(e.Policy()) {
			if acc.Prov[p] == e.Policy() {
				locked[p] = true
			}
		}
	}
	lock(first)
	prev := first
	for _, m := range entries[1:] {
		dict := prev
		if m.Level == prev.Level && m.Policy().Before(prev.Policy()) {
			dict = m
		}
		s := dict.Block.Strategy
		switch s.Base {
		case policykind.None:
			if m.Attachment.Node == prev.Attachment.Node {
				if out.Conflicted == nil {
					out.Conflicted = map[*policykind.Policy]*policykind.Policy{}
				}
				winner := prev.Policy()
				if w, lost := out.Conflicted[winner]; lost {
					winner = w
				}
				out.Conflicted[m.Policy()] = winner
				continue // prev stays the entry in force
			}
			acc = m.Value // a more specific target wins (001 sectionName rule)
		case policykind.Defaults:
			acc = merge.Restore(c.funcs[s.Atomicity](acc, m.Value), acc, locked)
		case policykind.Overrides:
			acc = c.funcs[s.Atomicity](m.Value, acc)
		}
		lock(m)
		prev = m
	}
	if object != nil {
		switch s := prev.Block.Strategy; s.Base {
		case policykind.Defaults:
			acc = merge.Restore(merge.Patch(acc, *object), acc, locked)
		case policykind.Overrides:
			acc = c.funcs[s.Atomicity](*object, acc)
		}
	}
	out.Result = acc
	return out
}

// foldInPlace is fold on a merge.Acc: the same steps, the same result,
// but each step costs the size of the entry it merges rather than the
// size of the value accumulated so far, so that a stack of thousands of
// policies (all on one Gateway) folds in linear time, not quadratic or
// worse (issue 11, "No cliffs"). Steps the accumulator has no in-place
// form for (None, Patch overrides, the target's own values) run the
// immutable functions, as fold does.
func (c *computer) foldInPlace(entries []*Entry, object *merge.Value) *Outcome {
	out := &Outcome{leaves: c.leaves}
	first := entries[0]
	acc := merge.NewAcc(first.Value)
	locks := merge.NewLocks()
	lock := func(e *Entry) {
		if e.Block.Strategy.Base != policykind.Overrides {
			return
		}
		for _, p := range c.sourced(e.Policy()) {
			if s, ok := acc.Source(p); ok && s == e.Policy() {
				locks.Lock(acc, p)
			}
		}
	}
	lock(first)
	prev := first
	for _, m := range entries[1:] {
		dict := prev
		if m.Level == prev.Level && m.Policy().Before(prev.Policy()) {
			dict = m
		}
		s := dict.Block.Strategy
		switch s.Base {
		case policykind.None:
			if m.Attachment.Node == prev.Attachment.Node {
				if out.Conflicted == nil {
					out.Conflicted = map[*policykind.Policy]*policykind.Policy{}
				}
				winner := prev.Policy()
				if w, lost := out.Conflicted[winner]; lost {
					winner = w
				}
				out.Conflicted[m.Policy()] = winner
				continue // prev stays the entry in force
			}
			acc.Replace(m.Value, locks)
		case policykind.Defaults:
			if s.Atomicity == policykind.Atomic {
				acc.AtomicDefaults(m.Value, locks)
			} else {
				acc.PatchDefaults(m.Value, locks)
			}
		case policykind.Overrides:
			if s.Atomicity == policykind.Patch && !acc.OverridesPatch(m.Value, locks) {
				acc.Replace(merge.Patch(m.Value, acc.Value()), locks)
			} // Atomic: the accumulated value stays whole
		}
		lock(m)
		prev = m
	}
	res := acc.Value()
	if object != nil {
		switch s := prev.Block.Strategy; s.Base {
		case policykind.Defaults:
			res = merge.Restore(merge.Patch(res, *object), res, locks.Map())
		case policykind.Overrides:
			res = c.funcs[s.Atomicity](*object, res)
		}
	}
	out.Result = res
	return out
}

// allPlain reports whether no value of the stack has a key with "[", the
// values merge.Acc takes.
func (c *computer) allPlain(entries []*Entry) bool {
	for _, e := range entries {
		p, ok := c.plain[e.Block]
		if !ok {
			p = merge.Plain(e.Value.Values)
			c.plain[e.Block] = p
		}
		if !p {
			return false
		}
	}
	return true
}

// builtin reports whether the kind merges with Atomic and Patch only.
// Custom merge functions may name list items in provenance
// (/list[key=value]), pointers no policy value spells, so the pointers a
// policy can be the source of are then unknown in advance.
func (c *computer) builtin() bool {
	for name := range c.funcs {
		if name != policykind.Atomic && name != policykind.Patch {
			return false
		}
	}
	return true
}

// sourced lists every pointer that Atomic and Patch can attribute to p:
// the leaves of its blocks (merge.Of) and the objects above them (Patch
// gives an object emptied by nulls the source of a leaf below it, see
// merge.sourceAt). Cached per policy for the computation.
func (c *computer) sourced(p *policykind.Policy) []string {
	if ptrs, ok := c.sourcedBy[p]; ok {
		return ptrs
	}
	set := map[string]bool{}
	for _, b := range p.Blocks {
		merge.Leaves(b.Values, "", func(ptr string) {
			set[ptr] = true
			for i := 0; i < len(ptr); i++ {
				if ptr[i] == '/' || ptr[i] == '[' {
					set[ptr[:i]] = true
				}
			}
		})
	}
	ptrs := make([]string, 0, len(set))
	for ptr := range set {
		ptrs = append(ptrs, ptr)
	}
	if c.sourcedBy == nil {
		c.sourcedBy = map[*policykind.Policy][]string{}
	}
	c.sourcedBy[p] = ptrs
	return ptrs
}

// objectValues reads the target object's own values of the spec proper
// (Spec.TargetFields), or nil when it sets none.
func (c *computer) objectValues(target topology.NodeID) *merge.Value {
	vals := TargetValues(c.g, c.k, target)
	if vals == nil {
		return nil
	}
	v := merge.Of(vals, nil)
	return &v
}

// TargetValues reads a target object's own values of a kind's
// targetFields, the most specific default the fold takes last; nil when
// the kind declares none or the object sets none (empty counts as unset,
// 001: "a default will only ever replace an empty or unset value").
func TargetValues(g *topology.Graph, k *policykind.Kind, target topology.NodeID) map[string]any {
	if len(k.TargetFields) == 0 {
		return nil
	}
	n := g.Node(target)
	if n.Object == nil {
		return nil
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(n.Object)
	if err != nil {
		return nil
	}
	vals := map[string]any{}
	for field, path := range k.TargetFields {
		v, ok := merge.Get(obj, "/"+strings.ReplaceAll(path, ".", "/"))
		if !ok || isEmpty(v) {
			continue
		}
		vals[field] = v
	}
	if len(vals) == 0 {
		return nil
	}
	return vals
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	case string:
		return x == ""
	}
	return false
}

// key identifies a stack for memoization: the same blocks attached at the
// same nodes fold to the same outcome.
func (c *computer) key(entries []*Entry) string {
	if c.ids == nil {
		c.ids = map[*policykind.Policy]uint32{}
	}
	b := make([]byte, 0, len(entries)*12)
	for _, e := range entries {
		id, ok := c.ids[e.Policy()]
		if !ok {
			id = uint32(len(c.ids))
			c.ids[e.Policy()] = id
		}
		b = binary.LittleEndian.AppendUint32(b, id)
		b = binary.LittleEndian.AppendUint32(b, uint32(e.Attachment.Node))
		b = binary.LittleEndian.AppendUint32(b, uint32(e.Block.Strategy.Base[0]))
	}
	return string(b)
}
