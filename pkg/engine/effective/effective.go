package effective

import (
	"encoding/binary"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/strata-dev/strata/pkg/engine/attach"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/merge"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Entry is one block of one policy in a context's stack.
type Entry struct {
	Attachment *attach.Attachment
	// Rank is the rung of the policy's kind in its value space.
	Rank  int
	Level hierarchy.Level
	Block *policykind.Block
	Value merge.Value
}

// Policy of the entry.
func (e *Entry) Policy() *policykind.Policy { return e.Attachment.Policy }

// PolicyOf is the policy that set a value (the merge.Source the engine
// gives merge, opaque to it), or nil for the target object's own field.
func PolicyOf(s merge.Source) *policykind.Policy {
	p, _ := s.(*policykind.Policy)
	return p
}

// Folded is the merged result of one stack of entries, shared by the
// contexts with the same stack. It is complete when the computation
// returns it, standings included, so that goroutines may read a Result
// without locks (docs/layout.md, "Frozen once built").
type Folded struct {
	// Result is the effective spec proper and who set each leaf.
	Result merge.Value
	// Conflicted maps each policy rejected by the None strategy to the
	// policy that won (GEP-713 "None").
	Conflicted map[*policykind.Policy]*policykind.Policy

	// Merged maps each policy that chose, through its kind's
	// spec.childMerge, to merge into the less specific policies of this
	// stack, to those policies, least specific first; nil when none did.
	Merged map[*policykind.Policy][]*policykind.Policy

	// replaced maps each policy whose whole value another replaced to
	// that other policy.
	replaced map[*policykind.Policy]*policykind.Policy

	keys []string // Result.Prov's pointers, sorted
	// standings are the stack's policies' standings, in stack order;
	// byPolicy indexes them for a long stack (fewStandings).
	standings []standingResult
	byPolicy  map[*policykind.Policy]int
}

// Context is one path from a root of the DAG to an effective target, with
// the policies that act on it (GEP-713 "Abstract process for calculating
// Effective metaresources").
type Context struct {
	// Path lists the namespaces above the path, then the path.
	Path []topology.NodeID
	// Entries is the stack, least specific first.
	Entries []*Entry
	// ConsumerRoute marks the context of a mesh consumer route (Consumer).
	ConsumerRoute bool
	*Folded
}

// Policies yields each policy of the stack once, at its first block, in
// stack order; a long stack gets a set, not a quadratic scan (issue 11,
// "No cliffs").
func (c *Context) Policies(yield func(*policykind.Policy) bool) {
	var seen map[*policykind.Policy]bool
	if len(c.Entries) > 16 {
		seen = make(map[*policykind.Policy]bool, len(c.Entries))
	}
	for i, e := range c.Entries {
		p := e.Policy()
		if seen != nil {
			if seen[p] {
				continue
			}
			seen[p] = true
		} else if slices.ContainsFunc(c.Entries[:i], func(o *Entry) bool { return o.Policy() == p }) {
			continue
		}
		if !yield(p) {
			return
		}
	}
}

// Consumer is the namespace of the consumer route of a mesh context, ""
// for a producer route's context and an ingress one.
func (c *Context) Consumer(g *topology.Graph) string {
	if !c.ConsumerRoute {
		return ""
	}
	_, ns := g.Mesh(c.Path)
	return ns
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

// ComputeOnly calculates the effective policy of a kind in every context
// of the effective targets for which in is true (all of them when in is
// nil; funcs are the merge functions by atomicity). Each target it returns
// is the one a complete computation returns: a target's contexts are its
// own ancestor paths and the attachments along them.
func ComputeOnly(g *topology.Graph, k *policykind.Kind, att *attach.Result, funcs map[string]merge.Func, in func(topology.NodeID) bool) *Result {
	return newComputer(g, k, att, funcs).compute(in)
}

func (c *computer) compute(in func(topology.NodeID) bool) *Result {
	res := &Result{Kind: c.k}
	if len(c.att.ByNode) == 0 {
		return res
	}
	targets := c.targets()
	if in != nil {
		targets = slices.DeleteFunc(targets, func(t topology.NodeID) bool { return !in(t) })
	}
	for _, t := range targets {
		if tg := c.target(t); tg != nil {
			res.Targets = append(res.Targets, tg)
		}
	}
	return res
}

// target computes the contexts of one effective target; nil when no
// policy acts in any of them.
func (c *computer) target(t topology.NodeID) *Target {
	c.contexts = c.contexts[:0]
	c.g.Ancestors(t, func(path []topology.NodeID) {
		if ctx := c.context(t, path); ctx != nil {
			c.contexts = append(c.contexts, ctx)
		}
	})
	if len(c.contexts) == 0 {
		return nil
	}
	return &Target{Node: t, Contexts: slices.Clone(c.contexts)}
}

func newComputer(g *topology.Graph, k *policykind.Kind, att *attach.Result, funcs map[string]merge.Func) *computer {
	return &computer{
		g: g, k: k, att: att, funcs: funcs,
		memo: map[string]*Folded{}, values: map[*policykind.Block]merge.Value{}, leaves: map[*policykind.Policy][]string{},
		plain: map[*policykind.Block]bool{}, inPlaceFrom: inPlaceFrom,
	}
}

// inPlaceFrom is the stack size from which fold accumulates in place
// (merge.Acc).
const inPlaceFrom = 16

type computer struct {
	g      *topology.Graph
	k      *policykind.Kind
	att    *attach.Result
	funcs  map[string]merge.Func
	memo   map[string]*Folded
	values map[*policykind.Block]merge.Value
	ids    map[*policykind.Policy]uint32
	leaves map[*policykind.Policy][]string
	// sourcedBy and plain cache sourced and merge.Plain; objectOf is the
	// target whose own values object holds (objectValues).
	sourcedBy  map[*policykind.Policy][]string
	plain      map[*policykind.Block]bool
	objectOf   topology.NodeID
	objectRead bool
	object     *merge.Value
	// inPlaceFrom is a field so that tests can compare both folds.
	inPlaceFrom int
	keyBuf      []byte
	prefixes    map[prefixKey]*foldState // foldImmutable's
	// stacks are the stacks made, by attsKey (attIDs, attsBuf); allBuf
	// is context's scratch list.
	stacks  map[string]*stacked
	attIDs  map[*attach.Attachment]uint32
	attsBuf []byte
	allBuf  []*attach.Attachment
	// contexts are a target's contexts while they are made; paths and
	// made are slabs for the contexts' paths and the contexts.
	contexts []*Context
	paths    []topology.NodeID
	made     []Context
}

// slab is how many paths' node ids, or contexts, a computer allocates at
// a time.
const slab = 1024

// targets lists the effective targets reached by any attachment, in
// NodeID order. Without an effective kind the attached nodes are the
// targets. Otherwise they are the nodes of the effective kind below an
// attached node (or in an attached namespace), plus sections of that kind
// that are themselves attached.
func (c *computer) targets() []topology.NodeID {
	g, effs := c.g, c.k.EffectiveKinds()
	if len(effs) == 0 {
		return slices.Sorted(maps.Keys(c.att.ByNode))
	}
	var out []topology.NodeID
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
		if r && c.ofEffectiveKind(topology.NodeID(i)) {
			out = append(out, topology.NodeID(i))
		}
	}
	return out
}

// ofEffectiveKind reports whether node n, reached by an attachment, is an
// effective target of a kind that has effective kinds (targets).
func (c *computer) ofEffectiveKind(id topology.NodeID) bool {
	n := c.g.Node(id)
	if !slices.Contains(c.k.EffectiveKinds(), n.Ref.GroupKind()) {
		return false
	}
	if n.Ref.Section != "" && len(c.att.At(id)) == 0 {
		return false
	}
	// A Service's frontend is not a target of its own.
	return n.Ref.Role == hierarchy.RoleNone
}

// ComputeAt is ComputeOnly of the effective targets among nodes, sorted
// by NodeID and given because a change may have reached them (Below):
// what it returns for each is what a complete computation returns, and a
// node without a target there is not a target at all, so the change's
// cost is the nodes it reaches, not the kind's targets.
func ComputeAt(g *topology.Graph, k *policykind.Kind, att *attach.Result, funcs map[string]merge.Func, nodes []topology.NodeID) *Result {
	c := newComputer(g, k, att, funcs)
	res := &Result{Kind: k}
	effs := len(k.EffectiveKinds()) > 0
	for _, n := range nodes {
		if effs && !c.ofEffectiveKind(n) || !effs && len(att.At(n)) == 0 {
			continue
		}
		if tg := c.target(n); tg != nil {
			res.Targets = append(res.Targets, tg)
		}
	}
	return res
}

// Below lists, sorted by NodeID, the nodes whose contexts the attachments
// at the nodes seeds can reach: each seed, the nodes below it, and for a
// Namespace seed the nodes in the namespace (inNamespace) and below them,
// as targets finds them.
func Below(g *topology.Graph, seeds []topology.NodeID, inNamespace func(ns topology.NodeID) []topology.NodeID) []topology.NodeID {
	reached := map[topology.NodeID]bool{}
	var queue []topology.NodeID
	mark := func(n topology.NodeID) {
		if !reached[n] {
			reached[n] = true
			queue = append(queue, n)
		}
	}
	for _, n := range seeds {
		mark(n)
		if g.Node(n).Ref.GroupKind() == hierarchy.NamespaceKind {
			for _, m := range inNamespace(n) {
				mark(m)
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
	return slices.Sorted(maps.Keys(reached))
}

// context builds the stack of one path and folds it.
func (c *computer) context(target topology.NodeID, path []topology.NodeID) *Context {
	g := c.g
	// The namespaces above the path, then the path, in the room left in
	// the computer's slab (newContext).
	if room := 2 * len(path); cap(c.paths)-len(c.paths) < room {
		c.paths = make([]topology.NodeID, 0, max(slab, room))
	}
	full := append(g.AppendNamespaces(c.paths[len(c.paths):], path), path...)
	nodes := full
	if len(c.k.EffectiveKinds()) == 0 {
		nodes = []topology.NodeID{target}
	}
	gatewayNS := ""
	for _, n := range path {
		if g.Node(n).Ref.GroupKind() == hierarchy.GatewayKind {
			gatewayNS = g.Node(n).Ref.Namespace
			break
		}
	}
	if c.k.Contexts == policykind.ContextTarget && len(nodes) > 1 {
		// The target stands alone (policykind.ContextTarget).
		nodes, gatewayNS = c.ownScope(target, path), g.Node(target).Ref.Namespace
	}
	// Attachments along the path; a policy attached at several nodes
	// counts once, at its most specific (lastOfEach). On a mesh path, a
	// consumer policy acts only in the contexts of its own namespace's
	// consumer routes (topology.Graph.ConsumerPolicy).
	frontend, consumer := g.Mesh(path)
	all := c.allBuf[:0]
	for _, n := range nodes {
		for _, a := range c.att.At(n) {
			if a.Scope != "" && a.Scope != gatewayNS {
				continue
			}
			if frontend != topology.None && a.Policy.Namespace != consumer && g.ConsumerPolicy(a.Policy.Namespace, n) {
				continue
			}
			all = append(all, a)
		}
	}
	c.allBuf = all // kept, grown, for the next context
	if len(all) == 0 {
		return nil
	}
	atts := lastOfEach(all)
	// Contexts with the same attachments share one stack and, without
	// the target's own values, one fold.
	k := c.attsKey(atts)
	st, ok := c.stacks[string(k)] // no string made to look up
	if !ok {
		st = &stacked{entries: c.stack(atts)}
		c.stacks[string(k)] = st
	}
	entries := st.entries
	ctx := c.newContext(full)
	ctx.Entries, ctx.ConsumerRoute = entries, consumer != ""
	obj := c.objectValues(target)
	if obj == nil {
		if st.folded == nil {
			key := c.key(entries)
			if o, ok := c.memo[string(key)]; ok {
				st.folded = o
			} else {
				st.folded = c.freeze(c.fold(entries, nil), entries)
				c.memo[string(key)] = st.folded
			}
		}
		ctx.Folded = st.folded
		return ctx
	}
	ctx.Folded = c.freeze(c.fold(entries, obj), entries)
	return ctx
}

// newContext returns a new context of path full, made in the paths' slab,
// full's capacity cut so that an append to it writes over nothing.
func (c *computer) newContext(full []topology.NodeID) *Context {
	n := len(c.paths) + len(full)
	c.paths = c.paths[:n]
	if len(c.made) == cap(c.made) {
		c.made = make([]Context, 0, slab)
	}
	c.made = c.made[:len(c.made)+1]
	ctx := &c.made[len(c.made)-1]
	ctx.Path = full[:len(full):len(full)]
	return ctx
}

// stacked is the stack of a list of attachments and its fold without
// the target's own values (nil until a context needs it).
type stacked struct {
	entries []*Entry
	folded  *Folded
}

// attsKey identifies a list of attachments, in the computer's buffer.
func (c *computer) attsKey(atts []*attach.Attachment) []byte {
	if c.attIDs == nil {
		c.attIDs, c.stacks = map[*attach.Attachment]uint32{}, map[string]*stacked{}
	}
	b := c.attsBuf[:0]
	for _, a := range atts {
		id, ok := c.attIDs[a]
		if !ok {
			id = uint32(len(c.attIDs))
			c.attIDs[a] = id
		}
		b = binary.LittleEndian.AppendUint32(b, id)
	}
	c.attsBuf = b
	return b
}

// ownScope lists the nodes whose policies reach a target that stands
// alone: its Namespace, the cluster-scoped objects on its path (a
// GatewayClass) and the target with its object (for a section).
func (c *computer) ownScope(target topology.NodeID, path []topology.NodeID) []topology.NodeID {
	g := c.g
	t := g.Node(target)
	var out []topology.NodeID
	if t.Namespace != topology.None {
		out = append(out, t.Namespace)
	}
	for _, n := range path {
		node := g.Node(n)
		switch {
		case n == target:
		case node.Namespace == topology.None && node.Ref.GroupKind() != hierarchy.NamespaceKind:
			out = append(out, n)
		case t.Ref.Section != "" && node.Ref == t.Ref.Object():
			out = append(out, n)
		}
	}
	return append(out, target)
}

// stack orders the blocks of the attached policies from least to most
// specific. Levels come from the hierarchy (higher wins, GEP-713 "Conflict
// resolution rules"). Within a level the older policy (then the first by
// namespace/name) must win for defaults and overrides alike: overrides
// and None blocks are stacked oldest first (the less specific wins them),
// then defaults newest first (the more specific wins them), so a level's
// overrides also beat its defaults (001 "Conflict Resolution").
func (c *computer) stack(atts []*attach.Attachment) []*Entry {
	// The entries of a stack are allocated together.
	n := 0
	for _, a := range atts {
		n += len(a.Policy.Blocks)
	}
	backing := make([]Entry, 0, n)
	entries := make([]*Entry, 0, n)
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
			backing = append(backing, Entry{Attachment: a, Rank: a.Policy.Kind.Rank(), Level: lvl, Block: b, Value: v})
			entries = append(entries, &backing[len(backing)-1])
		}
	}
	Order(entries)
	return entries
}

// Order sorts a stack from least to most specific, as stack describes:
// by rank, level, overrides before defaults within a level, then
// conflict order.
func Order(entries []*Entry) {
	rank := func(e *Entry) int {
		if e.Block.Strategy.Base == policykind.Defaults {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(entries, func(a, b *Entry) int {
		if a.Rank != b.Rank {
			return a.Rank - b.Rank
		}
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
}

// Fold orders a stack built elsewhere and folds it as every context's
// stack is folded, for a caller that decides itself which policies apply
// (the blueprint renderer). funcs are the merge functions by atomicity.
func Fold(entries []*Entry, funcs map[string]merge.Func) *Folded {
	if len(entries) == 0 {
		return &Folded{}
	}
	Order(entries)
	c := newComputer(nil, nil, nil, funcs)
	return c.freeze(c.fold(entries, nil), entries)
}

// fold reduces a stack to one value, walking from the least specific entry
// down: each pair is combined with the strategy dictated by the less
// specific entry of the pair (the Memorandum's abstract process), or by the
// older one within a level. Leaves set by an overrides block are locked so
// that no more specific entry can change them, whatever strategy it
// dictates further down (001's expanded hierarchy: "A override > B
// override > C override > C default > B default > A default"). Long
// stacks accumulate in place (merge.Acc; issue 11, "No cliffs").
func (c *computer) fold(entries []*Entry, object *merge.Value) *Folded {
	var f *folding
	if len(entries) >= c.inPlaceFrom && c.builtin() && c.allPlain(entries) && !childMerges(entries) {
		f = c.start(&inPlace{c: c, acc: merge.NewAcc(entries[0].Value), locks: merge.NewLocks()}, entries[0])
		for _, m := range entries[1:] {
			f.step(m)
		}
	} else {
		f = c.foldImmutable(entries)
	}
	return f.finish(object)
}

// foldImmutable folds a stack on immutable values, resuming from the
// fold of its longest prefix already folded (stacks share their less
// specific entries), and remembering the fold of each longer prefix. The
// prefixes form a tree keyed by parent fold and entry (prefixKey); a
// remembered state is frozen (foldState).
func (c *computer) foldImmutable(entries []*Entry) *folding {
	if c.prefixes == nil {
		c.prefixes = map[prefixKey]*foldState{}
	}
	var parent *foldState // the fold of entries[:k]
	k := 0
	for ; k < len(entries); k++ {
		st, ok := c.prefixes[c.prefixKey(parent, entries[k])]
		if !ok {
			break
		}
		parent = st
	}
	var f *folding
	if parent != nil {
		f = parent.resume(c)
	} else {
		f = c.start(&immutable{c: c, acc: entries[0].Value}, entries[0])
		parent = f.frozen()
		c.prefixes[c.prefixKey(nil, entries[0])] = parent
		k = 1
	}
	for ; k < len(entries); k++ {
		f.step(entries[k])
		st := f.frozen()
		c.prefixes[c.prefixKey(parent, entries[k])] = st
		parent = st
	}
	return f
}

// prefixKey is a prefix of a stack: the fold of the prefix before its
// last entry (nil for the first) and that entry's part of key.
type prefixKey struct {
	parent             *foldState
	policy, node, base uint32
}

func (c *computer) prefixKey(parent *foldState, e *Entry) prefixKey {
	return prefixKey{parent: parent, policy: c.policyID(e.Policy()), node: uint32(e.Attachment.Node), base: uint32(e.Block.Strategy.Base[0])}
}

// folding is fold's state between steps: the value accumulated so far,
// who is in force, who replaced whom, and the entry in force.
type folding struct {
	c   *computer
	acc accumulator
	out *Folded
	// live are the policies whose value is still in acc.
	live     []*policykind.Policy
	replaced map[*policykind.Policy]*policykind.Policy
	prev     *Entry
	// shared: live and replaced are a frozen foldState's too, copied
	// before they are written.
	shared bool
}

// own copies live and replaced when they are shared, before a write.
func (f *folding) own() {
	if f.shared {
		f.live = append(make([]*policykind.Policy, 0, len(f.live)+4), f.live...)
		f.replaced = maps.Clone(f.replaced)
		f.shared = false
	}
}

// start is the state after the first entry of a stack.
func (c *computer) start(acc accumulator, first *Entry) *folding {
	f := &folding{c: c, acc: acc, out: &Folded{}, live: []*policykind.Policy{first.Policy()}, prev: first}
	acc.lock(first)
	return f
}

func (f *folding) replace(p, by *policykind.Policy) {
	if p == by {
		return
	}
	f.own()
	if f.replaced == nil {
		f.replaced = map[*policykind.Policy]*policykind.Policy{}
	}
	f.replaced[p] = by
}

func (f *folding) replaceAll(by *policykind.Policy) {
	f.own()
	for _, p := range f.live {
		f.replace(p, by)
	}
	f.live = f.live[:0]
}

// mergeInto records that m chose to merge into what is in force.
func (f *folding) mergeInto(m *policykind.Policy) {
	out := f.out
	if out.Merged == nil {
		out.Merged = map[*policykind.Policy][]*policykind.Policy{}
	}
	for _, p := range f.live {
		if p != m && !slices.Contains(out.Merged[m], p) {
			out.Merged[m] = append(out.Merged[m], p)
		}
	}
}

// step folds the next entry m into the state.
func (f *folding) step(m *Entry) {
	c, acc, out, prev := f.c, f.acc, f.out, f.prev
	dict := prev
	if m.Rank == prev.Rank && m.Level == prev.Level && m.Policy().Before(prev.Policy()) {
		dict = m
	}
	s := dict.Block.Strategy
	// The more specific policy's own choice of atomicity
	// (spec.childMerge), for None and Defaults; never for an override.
	child := m.Policy().ChildMerge
	if child != "" && c.funcs[child] == nil {
		child = ""
	}
	switch s.Base {
	case policykind.None:
		if m.Policy() == prev.Policy() {
			// One policy's blocks under None: its overrides beat its
			// defaults (001 "Conflict Resolution").
			acc.set(merge.Patch(m.Value, acc.value()))
			return
		}
		if m.Attachment.Node == prev.Attachment.Node {
			if out.Conflicted == nil {
				out.Conflicted = map[*policykind.Policy]*policykind.Policy{}
			}
			winner := prev.Policy()
			if w, lost := out.Conflicted[winner]; lost {
				winner = w
			}
			out.Conflicted[m.Policy()] = winner
			return // prev stays the entry in force
		}
		if child != "" && child != policykind.Atomic {
			// Envoy Gateway's mergeType: merged, not replacing.
			f.mergeInto(m.Policy())
			acc.defaults(child, m.Value)
			break
		}
		acc.set(m.Value) // a more specific target wins (001 sectionName rule)
		f.replaceAll(m.Policy())
	case policykind.Defaults:
		at := s.Atomicity
		if child != "" {
			at = child
			if at != policykind.Atomic {
				f.mergeInto(m.Policy())
			}
		}
		acc.defaults(at, m.Value)
		if at == policykind.Atomic {
			f.replaceAll(m.Policy()) // GEP-713 "Atomic spec": one spec wins
		}
	case policykind.Overrides:
		if s.Atomicity == policykind.Patch {
			// The overrides in acc are locked; the rest came from
			// less specific defaults, which m beats (001's expanded
			// hierarchy).
			acc.defaults(policykind.Patch, m.Value)
			break
		}
		acc.overrides(s.Atomicity, m.Value)
		if s.Atomicity == policykind.Atomic {
			f.replace(m.Policy(), dict.Policy())
			acc.lock(m)
			f.prev = m
			return
		}
	}
	f.own()
	f.live = append(f.live, m.Policy())
	acc.lock(m)
	f.prev = m
}

// finish ends the fold: the policies still in force are not replaced,
// and the target's own values, when it has some, are merged as the last
// entry dictates.
func (f *folding) finish(object *merge.Value) *Folded {
	if len(f.replaced) > 0 {
		f.own() // deleted from here, and from out.replaced by c.freeze
	}
	out, replaced := f.out, f.replaced
	for _, p := range f.live {
		delete(replaced, p) // another block of it is still in force
	}
	if len(replaced) > 0 {
		out.replaced = replaced
	}
	res := f.acc.value()
	if object != nil {
		switch s := f.prev.Block.Strategy; s.Base {
		case policykind.Defaults:
			res = merge.Restore(merge.Patch(res, *object), res, f.acc.locked())
		case policykind.Overrides:
			res = f.c.funcs[s.Atomicity](*object, res)
		}
	}
	out.Result = res
	return out
}

// foldState is a folding on immutable values frozen: nothing in it is
// written after frozen made it, so folds of longer stacks resume from
// it.
type foldState struct {
	acc        merge.Value
	locked     map[string]bool
	live       []*policykind.Policy
	replaced   map[*policykind.Policy]*policykind.Policy
	merged     map[*policykind.Policy][]*policykind.Policy
	conflicted map[*policykind.Policy]*policykind.Policy
	prev       *Entry
}

// frozen is f's state, frozen: the locked leaves, the live and the
// replaced policies are shared with f, which copies them before it writes
// them (own, lockLeaf); merges and conflicts are copied.
func (f *folding) frozen() *foldState {
	a := f.acc.(*immutable)
	a.shared, f.shared = true, true
	return &foldState{
		acc: a.acc, locked: a.lockedSet, live: f.live,
		replaced: f.replaced, merged: cloneMerged(f.out.Merged),
		conflicted: maps.Clone(f.out.Conflicted), prev: f.prev,
	}
}

// resume is a folding from st, sharing what its steps copy before they
// write it.
func (st *foldState) resume(c *computer) *folding {
	return &folding{
		c:        c,
		acc:      &immutable{c: c, acc: st.acc, lockedSet: st.locked, shared: true},
		out:      &Folded{Merged: cloneMerged(st.merged), Conflicted: maps.Clone(st.conflicted)},
		live:     st.live,
		replaced: st.replaced,
		prev:     st.prev,
		shared:   true,
	}
}

// cloneMerged copies Folded.Merged, its lists too (mergeInto appends).
func cloneMerged(m map[*policykind.Policy][]*policykind.Policy) map[*policykind.Policy][]*policykind.Policy {
	if m == nil {
		return nil
	}
	out := make(map[*policykind.Policy][]*policykind.Policy, len(m))
	for p, l := range m {
		out[p] = slices.Clone(l)
	}
	return out
}

// childMerges reports whether a policy of the stack chose its own merge
// (spec.childMerge), which merge.Acc does not carry out: the fold then
// works on immutable values.
func childMerges(entries []*Entry) bool {
	return slices.ContainsFunc(entries, func(e *Entry) bool { return e.Policy().ChildMerge != "" })
}

// accumulator carries out fold's steps on the value accumulated so far.
type accumulator interface {
	value() merge.Value
	set(v merge.Value)                         // the value replaced whole
	defaults(atomicity string, m merge.Value)  // m wins, but not on locked leaves
	overrides(atomicity string, m merge.Value) // the value wins
	lock(e *Entry)                             // an overrides entry's leaves
	locked() map[string]bool
}

// immutable folds with merge's functions on values.
type immutable struct {
	c         *computer
	acc       merge.Value
	lockedSet map[string]bool // nil until a leaf is locked
	// shared: lockedSet is a frozen foldState's too, copied before a write.
	shared bool
}

// lockLeaf locks pointer p.
func (a *immutable) lockLeaf(p string) {
	if a.lockedSet == nil || a.shared {
		a.lockedSet, a.shared = maps.Clone(a.lockedSet), false
		if a.lockedSet == nil {
			a.lockedSet = map[string]bool{}
		}
	}
	a.lockedSet[p] = true
}

func (a *immutable) value() merge.Value { return a.acc }
func (a *immutable) set(v merge.Value)  { a.acc = v }
func (a *immutable) defaults(at string, m merge.Value) {
	if at == policykind.Patch { // merge.Patch (Funcs)
		a.acc = merge.PatchDefaults(a.acc, m, a.lockedSet)
		return
	}
	a.acc = merge.Restore(a.c.funcs[at](a.acc, m), a.acc, a.lockedSet)
}
func (a *immutable) overrides(at string, m merge.Value) { a.acc = a.c.funcs[at](m, a.acc) }
func (a *immutable) locked() map[string]bool            { return a.lockedSet }
func (a *immutable) lock(e *Entry) {
	if e.Block.Strategy.Base != policykind.Overrides {
		return
	}
	if !a.c.builtin() {
		for p, s := range a.acc.Prov {
			if s == e.Policy() {
				a.lockLeaf(p)
			}
		}
		return
	}
	// Only the policy's own pointers can name it as their source
	// (issue 11: no scan of the accumulated value).
	for _, p := range a.c.sourced(e.Policy()) {
		if a.acc.Prov[p] == e.Policy() {
			a.lockLeaf(p)
		}
	}
}

// inPlace folds on a merge.Acc (Atomic and Patch only).
type inPlace struct {
	c     *computer
	acc   *merge.Acc
	locks *merge.Locks
}

func (a *inPlace) value() merge.Value { return a.acc.Value() }
func (a *inPlace) set(v merge.Value)  { a.acc.Replace(v, a.locks) }
func (a *inPlace) defaults(at string, m merge.Value) {
	if at == policykind.Atomic {
		a.acc.AtomicDefaults(m, a.locks)
	} else {
		a.acc.PatchDefaults(m, a.locks)
	}
}

// overrides under Atomic keeps the value whole, as merge.Atomic(m, acc)
// returns acc; Patch overrides never come here (fold merges them as
// defaults over the locked leaves).
func (a *inPlace) overrides(string, merge.Value) {}
func (a *inPlace) locked() map[string]bool       { return a.locks.Map() }
func (a *inPlace) lock(e *Entry) {
	if e.Block.Strategy.Base != policykind.Overrides {
		return
	}
	for _, p := range a.c.sourced(e.Policy()) {
		if s, ok := a.acc.Source(p); ok && s == e.Policy() {
			a.locks.Lock(a.acc, p)
		}
	}
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

// builtin reports whether the kind merges with Atomic and Patch only:
// custom merge functions may name provenance pointers no policy value
// spells (/list[key=value]).
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
	ptrs := slices.Collect(maps.Keys(set))
	if c.sourcedBy == nil {
		c.sourcedBy = map[*policykind.Policy][]string{}
	}
	c.sourcedBy[p] = ptrs
	return ptrs
}

// objectValues reads the target object's own values of the spec proper
// (Spec.TargetFields), or nil when it sets none; the last target's are
// kept, as a target's contexts are computed one after another.
func (c *computer) objectValues(target topology.NodeID) *merge.Value {
	if len(c.k.TargetFields) == 0 {
		return nil
	}
	if c.objectOf == target && c.objectRead {
		return c.object
	}
	c.objectOf, c.objectRead, c.object = target, true, nil
	if vals := TargetValues(c.g, c.k, target); vals != nil {
		v := merge.Of(vals, nil)
		c.object = &v
	}
	return c.object
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

// key identifies a stack for memoization (the same blocks attached at the
// same nodes fold alike), in a buffer valid until the next call.
func (c *computer) key(entries []*Entry) []byte {
	b := c.keyBuf[:0]
	for _, e := range entries {
		b = binary.LittleEndian.AppendUint32(b, c.policyID(e.Policy()))
		b = binary.LittleEndian.AppendUint32(b, uint32(e.Attachment.Node))
		b = binary.LittleEndian.AppendUint32(b, uint32(e.Block.Strategy.Base[0]))
	}
	c.keyBuf = b
	return b
}

// policyID numbers p within this computer, for keys.
func (c *computer) policyID(p *policykind.Policy) uint32 {
	if c.ids == nil {
		c.ids = map[*policykind.Policy]uint32{}
	}
	id, ok := c.ids[p]
	if !ok {
		id = uint32(len(c.ids))
		c.ids[p] = id
	}
	return id
}

// lastOfEach keeps, of attachments in path order, each policy's last
// (its most specific along the path), in order, in place; a long list is
// indexed (issue 11, "No cliffs").
func lastOfEach(all []*attach.Attachment) []*attach.Attachment {
	out := all[:0]
	if len(all) <= 16 {
		for i, a := range all {
			if !slices.ContainsFunc(all[i+1:], func(b *attach.Attachment) bool { return b.Policy == a.Policy }) {
				out = append(out, a)
			}
		}
		return out
	}
	last := make(map[*policykind.Policy]int, len(all))
	for i, a := range all {
		last[a.Policy] = i
	}
	for i, a := range all {
		if last[a.Policy] == i {
			out = append(out, a)
		}
	}
	return out
}
