package query

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/attach"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/merge"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Without recomputes a run as if policy p were deleted.
func Without(res *engine.Result, p *policykind.Policy) (*engine.Result, error) {
	return res.Recompute(instances(res, p, nil), map[schema.GroupKind]bool{p.Kind.Key(): true})
}

// ImpactOf is what deleting p (u nil) or replacing it by u would change.
func ImpactOf(before *engine.Result, p *policykind.Policy, u *unstructured.Unstructured) (*Impact, *engine.Result, error) {
	change := ChangeDelete
	if u != nil {
		change = ChangeReplace
		var err error
		if u, err = replacement(p, u); err != nil {
			return nil, nil, err
		}
	}
	after, _, in, err := changed(before, p.Kind, p, u)
	if err != nil {
		return nil, nil, err
	}
	return compare(before, after, PolicyRefOf(p), change, in), after, nil
}

// ImpactOfDeleting is what deleting the policies ps together would change.
func ImpactOfDeleting(before *engine.Result, ps []*policykind.Policy) (*Impact, *engine.Result, error) {
	switch len(ps) {
	case 0:
		return nil, nil, fmt.Errorf("no policy to delete")
	case 1:
		return ImpactOf(before, ps[0], nil)
	}
	dirty := map[schema.GroupKind]bool{}
	gone := map[*policykind.Policy]bool{}
	var from []topology.NodeID
	for _, p := range ps {
		dirty[p.Kind.Key()], gone[p] = true, true
		for _, a := range before.Of(p.Kind.Key()).Attachments.ByPolicy[p] {
			from = append(from, a.Node)
		}
	}
	var objs []*unstructured.Unstructured
	for _, q := range before.Policies {
		if dirty[q.Kind.Key()] && !gone[q] {
			objs = append(objs, q.Object)
		}
	}
	in := below(before.Graph, from)
	scope := func(*engine.Result) []topology.NodeID { return in.scope() }
	after, err := before.RecomputeScoped(objs, dirty, scope)
	if err != nil {
		return nil, nil, err
	}
	im := compare(before, after, PolicyRefOf(ps[0]), ChangeDelete, in)
	for _, p := range ps[1:] {
		im.Also = append(im.Also, PolicyRefOf(p))
	}
	return im, after, nil
}

// DeletionScope is ImpactScope for ImpactOfDeleting.
func DeletionScope(find func(*engine.Result) []*policykind.Policy) func(*engine.Result) []topology.NodeID {
	return func(res *engine.Result) []topology.NodeID {
		ps := find(res)
		if len(ps) == 0 {
			return NoTargets(res)
		}
		return belowAttachments(res, ps)
	}
}

// replacement checks that u is a new version of p.
func replacement(p *policykind.Policy, u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	gvk := u.GroupVersionKind()
	what := fmt.Sprintf("%s %s", u.GetKind(), id(u.GetNamespace(), u.GetName()))
	if gvk.Group != p.Kind.Group || gvk.Kind != p.Kind.Kind {
		return nil, fmt.Errorf("replacement %s: want a %s (group %s)", what, p.Kind.Kind, p.Kind.Group)
	}
	if u.GetNamespace() == "" && p.Namespace != "" {
		u = u.DeepCopy()
		u.SetNamespace(p.Namespace)
	}
	if u.GetName() != p.Name || u.GetNamespace() != p.Namespace {
		return nil, fmt.Errorf("replacement %s: want the new version of %s %s (same namespace and name)", what, p.Kind.Kind, p.ID())
	}
	return u, nil
}

// newPolicyKind is the kind of u, a policy to be created that does not exist yet.
func newPolicyKind(res *engine.Result, u *unstructured.Unstructured) (*policykind.Kind, error) {
	gvk := u.GroupVersionKind()
	k := res.KindOf(gvk.Group, gvk.Kind)
	if k == nil {
		return nil, fmt.Errorf("new %s %s: not a policy kind of this run", u.GetKind(), id(u.GetNamespace(), u.GetName()))
	}
	for _, q := range res.Policies {
		if q.Kind.Key() == k.Key() && q.Namespace == u.GetNamespace() && q.Name == u.GetName() {
			return nil, fmt.Errorf("new %s %s: exists already", u.GetKind(), q.ID())
		}
	}
	return k, nil
}

// ImpactOfAdding is what creating the new policy u would change.
func ImpactOfAdding(before *engine.Result, u *unstructured.Unstructured) (*Impact, *engine.Result, error) {
	k, err := newPolicyKind(before, u)
	if err != nil {
		return nil, nil, err
	}
	after, _, in, err := changed(before, k, nil, u)
	if err != nil {
		return nil, nil, err
	}
	ref := PolicyRef{Group: k.Group, Kind: k.Kind, Namespace: u.GetNamespace(), Name: u.GetName()}
	return compare(before, after, ref, ChangeCreate, in), after, nil
}

// ImpactScope is the scope of an ImpactOf or ImpactOfAdding question.
func ImpactScope(find func(*engine.Result) *policykind.Policy, u *unstructured.Unstructured) func(*engine.Result) []topology.NodeID {
	return func(res *engine.Result) []topology.NodeID {
		var ps []*policykind.Policy
		old := find(res)
		if old != nil {
			ps = append(ps, old)
		}
		if u != nil {
			gvk := u.GroupVersionKind()
			if k := res.KindOf(gvk.Group, gvk.Kind); k != nil {
				if u.GetNamespace() == "" && old != nil {
					u = u.DeepCopy()
					u.SetNamespace(old.Namespace)
				}
				ps = append(ps, k.Read(u))
			}
		}
		if len(ps) == 0 {
			return NoTargets(res)
		}
		return belowAttachments(res, ps)
	}
}

// belowAttachments is the nodes at and below where ps attach, sorted.
func belowAttachments(res *engine.Result, ps []*policykind.Policy) []topology.NodeID {
	var nodes []topology.NodeID
	for _, as := range attach.Resolve(res.Graph, ps).ByPolicy {
		for _, a := range as {
			nodes = append(nodes, a.Node)
		}
	}
	return below(res.Graph, nodes).scope()
}

// instances lists the objects of p's kind with p left out, or replaced by u.
func instances(res *engine.Result, p *policykind.Policy, u *unstructured.Unstructured) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, q := range res.Policies {
		switch {
		case q.Kind.Key() != p.Kind.Key():
		case q == p && u != nil:
			out = append(out, u)
		case q != p:
			out = append(out, q.Object)
		}
	}
	return out
}

// Compare lists every target and context whose resultant spec differs between two runs.
func Compare(before, after *engine.Result, policy PolicyRef, change string) *Impact {
	return compare(before, after, policy, change, nil)
}

// compare is Compare over the targets in in (all when nil); after may be scoped.
func compare(before, after *engine.Result, policy PolicyRef, change string, in nodeSet) *Impact {
	im := &Impact{TypeMeta: TypeMeta{APIVersion: APIVersion, Kind: KindImpact}, Policy: policy, Change: change, Targets: []TargetChange{}}
	qb, qa := newQuery(before), newQuery(after)
	for i, kr := range before.Kinds {
		if before.SharedWith(i) != i {
			continue // a value space's result is compared at its first kind
		}
		k := kr.Kind
		var b, a *effective.Result
		b = kr.Effective
		if akr := after.Of(k.Key()); akr != nil {
			a = akr.Effective
		}
		if a == b {
			continue
		}
		if in != nil {
			b, a = within(b, in), within(a, in)
		}
		im.Targets = append(im.Targets, compareKind(qb, qa, k, b, a)...)
	}
	for _, t := range im.Targets {
		im.Changed.Contexts += len(t.Contexts)
	}
	im.Changed.Targets = len(im.Targets)
	return im
}

// within is r with only the targets in the set (r may be nil).
func within(r *effective.Result, in nodeSet) *effective.Result {
	if r == nil {
		return nil
	}
	out := &effective.Result{Kind: r.Kind}
	for _, t := range r.Targets {
		if in.has(t.Node) {
			out.Targets = append(out.Targets, t)
		}
	}
	return out
}

// ctxSide is a target and one of its contexts in one run.
type ctxSide struct {
	target *effective.Target
	ctx    *effective.Context
}

// ctxPair is one context in two runs (b before, a after); a side is zero where missing.
type ctxPair struct {
	tk   string
	b, a ctxSide
}

// pairContexts matches two results' contexts by target and path; present: bits 1, 2.
func pairContexts(qb, qa *query, b, a *effective.Result) ([]*ctxPair, map[string]int) {
	pairs := map[string]*ctxPair{}
	present := map[string]int{}
	var buf []byte
	add := func(q *query, res *effective.Result, first bool) {
		if res == nil {
			return
		}
		bit := 2
		if first {
			bit = 1
		}
		for _, t := range res.Targets {
			tk := q.nodeKey(t.Node)
			present[tk] |= bit
			for _, ctx := range t.Contexts {
				buf = q.appendPathKey(append(append(buf[:0], tk...), 0), ctx.Path)
				p := pairs[string(buf)]
				if p == nil {
					p = &ctxPair{tk: tk}
					pairs[string(buf)] = p
				}
				if first {
					p.b = ctxSide{t, ctx}
				} else {
					p.a = ctxSide{t, ctx}
				}
			}
		}
	}
	add(qb, b, true)
	add(qa, a, false)
	out := make([]*ctxPair, 0, len(pairs))
	for _, key := range slices.Sorted(maps.Keys(pairs)) {
		out = append(out, pairs[key])
	}
	return out, present
}

// pairByID is pairContexts for runs whose graphs share node ids.
func pairByID(q *query, b, a *effective.Result) []*ctxPair {
	type both struct {
		node topology.NodeID
		b, a *effective.Target
	}
	bt, at := byNode(b), byNode(a)
	ts := make([]both, 0, max(len(bt), len(at)))
	n := 0 // contexts of both, the most pairs there can be
	for i, j := 0, 0; i < len(bt) || j < len(at); {
		switch {
		case j == len(at) || i < len(bt) && bt[i].Node < at[j].Node:
			ts = append(ts, both{node: bt[i].Node, b: bt[i]})
			n += len(bt[i].Contexts)
			i++
		case i == len(bt) || at[j].Node < bt[i].Node:
			ts = append(ts, both{node: at[j].Node, a: at[j]})
			n += len(at[j].Contexts)
			j++
		default:
			ts = append(ts, both{node: bt[i].Node, b: bt[i], a: at[j]})
			n += len(bt[i].Contexts) + len(at[j].Contexts)
			i, j = i+1, j+1
		}
	}
	slices.SortFunc(ts, func(x, y both) int { return strings.Compare(q.nodeKey(x.node), q.nodeKey(y.node)) })
	slab := make([]ctxPair, 0, n)
	out := make([]*ctxPair, 0, n)
	for _, t := range ts {
		tk := q.nodeKey(t.node)
		start := len(slab)
		if t.b != nil {
			for _, ctx := range t.b.Contexts {
				slab = append(slab, ctxPair{tk: tk, b: ctxSide{t.b, ctx}})
			}
		}
		if t.a != nil {
			mine := slab[start:]
			// A target in many contexts has them indexed (issue 11, "No cliffs").
			var index map[string]int
			if len(mine) > fewContexts {
				index = make(map[string]int, len(mine))
				for i := range mine {
					index[idsKey(mine[i].b.ctx.Path)] = i
				}
			}
			for _, ctx := range t.a.Contexts {
				i := -1
				if index != nil {
					if j, ok := index[idsKey(ctx.Path)]; ok {
						i = j
					}
				} else {
					i = slices.IndexFunc(mine, func(p ctxPair) bool { return slices.Equal(p.b.ctx.Path, ctx.Path) })
				}
				if i >= 0 {
					mine[i].a = ctxSide{t.a, ctx}
					continue
				}
				slab = append(slab, ctxPair{tk: tk, a: ctxSide{t.a, ctx}})
			}
		}
		for i := range slab[start:] {
			out = append(out, &slab[start+i])
		}
		slices.SortFunc(out[start:], func(x, y *ctxPair) int {
			xp, yp := x.path(), y.path()
			i := 0
			for i < len(xp) && i < len(yp) && xp[i] == yp[i] {
				i++
			}
			return q.comparePaths(xp[i:], yp[i:])
		})
	}
	return out
}

// fewContexts is the most contexts pairByID scans rather than indexes.
const fewContexts = 16

// path is the pair's context path, on whichever side has it.
func (p *ctxPair) path() []topology.NodeID {
	if p.b.ctx != nil {
		return p.b.ctx.Path
	}
	return p.a.ctx.Path
}

// idsKey is a path's ids as a string, a map key.
func idsKey(path []topology.NodeID) string {
	b := make([]byte, 0, 4*len(path))
	for _, id := range path {
		b = binary.LittleEndian.AppendUint32(b, uint32(id))
	}
	return string(b)
}

// byNode is r's targets in NodeID order, as the engine lists them (effective.Result); r may be nil.
func byNode(r *effective.Result) []*effective.Target {
	if r == nil {
		return nil
	}
	less := func(x, y *effective.Target) int { return cmp.Compare(x.Node, y.Node) }
	if slices.IsSortedFunc(r.Targets, less) {
		return r.Targets
	}
	return slices.SortedFunc(slices.Values(r.Targets), less)
}

// compareKind diffs the effective results of one kind (a may be nil: the kind is gone).
func compareKind(qb, qa *query, k *policykind.Kind, b, a *effective.Result) []TargetChange {
	var pairs []*ctxPair
	if qa.g.Holds(qb.g) {
		pairs = pairByID(qa, b, a)
	} else {
		pairs, _ = pairContexts(qb, qa, b, a)
	}
	type folds struct{ b, a *effective.Folded }
	memo := map[folds][]FieldChange{}
	var out []TargetChange
	last := "" // the key of out's last target
	for _, p := range pairs {
		var fields []FieldChange
		if p.b.ctx != nil && p.a.ctx != nil {
			key := folds{p.b.ctx.Folded, p.a.ctx.Folded}
			f, ok := memo[key]
			if !ok {
				f = slices.Clip(diff(p.b.ctx.Result, p.a.ctx.Result))
				memo[key] = f
			}
			fields = f
		} else {
			fields = diff(sideValue(qb, qa, k, p.b, p.a), sideValue(qa, qb, k, p.a, p.b))
		}
		if len(fields) == 0 {
			continue
		}
		side, q := p.b, qb
		if side.ctx == nil {
			side, q = p.a, qa
		}
		if len(out) == 0 || last != p.tk {
			out = append(out, TargetChange{PolicyKind: groupKindOf(k), Target: q.ref(side.target.Node)})
			last = p.tk
		}
		tc := &out[len(out)-1]
		tc.Contexts = append(tc.Contexts, ContextChange{Path: q.path(side.ctx.Path), Fields: fields})
	}
	return out
}

// sideValue is the resultant spec of a context on side self (of run q):
// a context without policies still has its target's own values (GEP-713's
// most specific default), read from q's object for the target.
func sideValue(q, o *query, k *policykind.Kind, self, other ctxSide) merge.Value {
	if self.ctx != nil {
		return self.ctx.Result
	}
	if other.target == nil {
		return merge.Value{}
	}
	n := q.g.Lookup(o.g.Node(other.target.Node).Ref)
	if kr := q.res.Of(k.Key()); kr != nil {
		k = kr.Kind // this run's declaration of the kind
	}
	if n == topology.None {
		return merge.Value{}
	}
	vals := q.targetValues(k, n)
	if vals == nil {
		return merge.Value{}
	}
	return merge.Of(vals, nil)
}

// diff compares two resultant specs of one context leaf by leaf (the zero Value: nothing in force).
func diff(bv, av merge.Value) []FieldChange {
	set := map[string]bool{}
	for p := range bv.Prov {
		set[p] = true
	}
	for p := range av.Prov {
		set[p] = true
	}
	ptrs := leafPointers(slices.Sorted(maps.Keys(set)))
	var out []FieldChange
	for _, ptr := range ptrs {
		bx, bok := merge.Get(bv.Values, ptr)
		ax, aok := merge.Get(av.Values, ptr)
		if bok == aok && reflect.DeepEqual(bx, ax) {
			continue
		}
		fc := FieldChange{Field: ptr}
		if bok {
			fc.Before, fc.BeforeSetBy = bx, setBy(bv, ptr)
		}
		if aok {
			fc.After, fc.AfterSetBy = ax, setBy(av, ptr)
		}
		out = append(out, fc)
	}
	return out
}

// leafPointers keeps, of sorted pointers, those with none below them (under).
func leafPointers(sorted []string) []string {
	leaves := make([]string, 0, len(sorted))
	for i, p := range sorted {
		inner := false
		for _, o := range sorted[i+1:] {
			if !strings.HasPrefix(o, p) {
				break
			}
			if under(o, p) {
				inner = true
				break
			}
		}
		if !inner {
			leaves = append(leaves, p)
		}
	}
	return leaves
}

// setBy names the source of the leaf at ptr, or of the leaf above it.
func setBy(v merge.Value, ptr string) string {
	if s, ok := v.Prov[ptr]; ok {
		return sourceName(effective.PolicyOf(s))
	}
	var names []string
	for p, s := range v.Prov {
		if related(p, ptr) {
			names = append(names, sourceName(effective.PolicyOf(s)))
		}
	}
	slices.Sort(names)
	return strings.Join(slices.Compact(names), ", ")
}

// ImpactRequest is what `strata impact` asks: its arguments, the change
// (Delete, Replace FILE or Add FILE) and whether -l or --field-selector chose
// the policies (Selected).
type ImpactRequest struct {
	Args         []string
	Delete       bool
	Replace, Add string
	Selected     bool
}

// Check rejects the combinations of --add and the selectors impact cannot
// answer: --add names the new policy itself, and selectors choose several
// policies of one kind, which only deleting them together answers.
func (r ImpactRequest) Check() error {
	switch {
	case r.Add != "":
		if len(r.Args) > 0 || r.Delete || r.Replace != "" || r.Selected {
			return errors.New("--add FILE names the new policy itself: give no POLICY-KIND/NAME, --delete or --replace with it")
		}
	case r.Selected:
		if !r.Delete || r.Replace != "" {
			return errors.New("-l and --field-selector choose policies to --delete together; --replace FILE is one policy's new version: name it (POLICY-KIND/NAME)")
		}
		if len(r.Args) != 1 || strings.Contains(r.Args[0], "/") {
			return errors.New("-l and --field-selector choose among the policies of a kind: give POLICY-KIND alone (strata impact retrypolicy -l team=baker --delete)")
		}
	}
	return nil
}
