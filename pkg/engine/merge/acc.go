package merge

import (
	"maps"
	"slices"
	"strings"
)

// Acc is a Value being folded from a long stack of blocks (issue 11 "No
// cliffs"), changed in place so that each step costs the size of the block
// merged in, giving exactly what the immutable functions give:
//
//	acc.PatchDefaults(m, locks)  == Restore(Patch(acc, m), acc, locked)
//	acc.AtomicDefaults(m, locks) == Restore(Atomic(acc, m), acc, locked)
//
// It covers the built-in atomicities and values whose keys hold no "["
// (Plain). Every map of its Values is its own; an Acc belongs to one
// goroutine.
type Acc struct {
	vals map[string]any
	prov map[string]Source
	// normal says the value is in the form Of gives (see normal).
	normal bool
	// lk are the locks the free set is kept for (see track); free are
	// the sources' pointers that are not locked.
	lk   *Locks
	free map[string]struct{}
	// below indexes the keys of prov by each of their proper prefixes
	// ("/a" -> {"/a/b", "/a/b/c"}).
	below map[string]map[string]struct{}
}

// NewAcc copies v into a new accumulator.
func NewAcc(v Value) *Acc {
	a := &Acc{vals: deepCopy(v.Values), prov: make(map[string]Source, len(v.Prov)), below: map[string]map[string]struct{}{}}
	for p, s := range v.Prov {
		a.setProv(p, s)
	}
	a.normal = normal(v)
	return a
}

// normal reports whether v is in the form Of gives it: no null values,
// and exactly its leaves have sources.
func normal(v Value) bool { return form(v, false) }

// form is normal, allowing null values when nulls is true.
func form(v Value, nulls bool) bool {
	leaves, ok := 0, true
	var visit func(m map[string]any, prefix string)
	visit = func(m map[string]any, prefix string) {
		for k, x := range m {
			p := prefix + "/" + Escape(k)
			if x == nil && !nulls {
				ok = false
				return
			}
			if sub, isMap := x.(map[string]any); isMap && len(sub) > 0 {
				visit(sub, p)
				continue
			}
			if _, has := v.Prov[p]; !has {
				ok = false
			}
			leaves++
		}
	}
	visit(v.Values, "")
	return ok && leaves == len(v.Prov)
}

// Source is who set pointer p, if anyone.
func (a *Acc) Source(p string) (Source, bool) {
	s, ok := a.prov[p]
	return s, ok
}

// Value is the accumulated value, changed in place by later steps.
func (a *Acc) Value() Value { return Value{Values: a.vals, Prov: a.prov} }

// Plain reports whether no key of m, at any depth, holds "[" (see Acc).
func Plain(m map[string]any) bool {
	for k, v := range m {
		if strings.Contains(k, "[") {
			return false
		}
		if !plainAny(v) {
			return false
		}
	}
	return true
}

func plainAny(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return Plain(x)
	case []any:
		for _, it := range x {
			if !plainAny(it) {
				return false
			}
		}
	}
	return true
}

func deepCopy(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			v = deepCopy(sub)
		}
		out[k] = v
	}
	return out
}

// prefixes calls fn with every proper prefix of pointer p that is itself
// a pointer: "/a/b/c" gives "/a" and "/a/b".
func prefixes(p string, fn func(string)) {
	for i := 1; i < len(p); i++ {
		if p[i] == '/' {
			fn(p[:i])
		}
	}
}

// track keeps a's free set for locks l.
func (a *Acc) track(l *Locks) {
	if a.lk == l {
		return
	}
	a.lk, a.free = l, map[string]struct{}{}
	for p := range a.prov {
		if !l.set[p] {
			a.free[p] = struct{}{}
		}
	}
}

func (a *Acc) setProv(p string, s Source) {
	if a.lk != nil && !a.lk.set[p] {
		a.free[p] = struct{}{}
	}
	if _, ok := a.prov[p]; !ok {
		prefixes(p, func(q string) {
			set := a.below[q]
			if set == nil {
				set = map[string]struct{}{}
				a.below[q] = set
			}
			set[p] = struct{}{}
		})
	}
	a.prov[p] = s
}

func (a *Acc) delProv(p string) {
	if _, ok := a.prov[p]; !ok {
		return
	}
	delete(a.prov, p)
	delete(a.free, p)
	prefixes(p, func(q string) {
		if set := a.below[q]; set != nil {
			delete(set, p)
			if len(set) == 0 {
				delete(a.below, q)
			}
		}
	})
}

// drop forgets the sources of p and of everything below it, as drop does.
func (a *Acc) drop(p string) {
	a.delProv(p)
	for q := range a.below[p] {
		a.delProv(q)
	}
}

// patch is the in-place patch: out belongs to a and is changed into the
// Patch of out by higher, the sources following as in patch.
func (a *Acc) patch(out, higher map[string]any, prefix string, hprov map[string]Source) {
	for k, v := range higher {
		p := prefix + "/" + Escape(k)
		if v == nil {
			delete(out, k)
			a.drop(p)
			continue
		}
		if hm, ok := v.(map[string]any); ok {
			lm, lok := out[k].(map[string]any)
			if !lok {
				a.drop(p)
				lm = map[string]any{}
			}
			a.patch(lm, hm, p, hprov)
			if len(lm) == 0 {
				a.setProv(p, sourceAt(Value{Prov: hprov}, p))
			} else {
				a.delProv(p)
			}
			out[k] = lm
			continue
		}
		a.drop(p)
		out[k] = v
		a.setProv(p, hprov[p])
	}
}

// Locks is the set of locked pointers of a fold (see Restore), with what
// lets a step restore only the locked pointers it can change.
type Locks struct {
	set map[string]bool
	// below indexes locked pointers by their proper prefixes.
	below map[string][]string
	// unsettled are locked pointers whose Restore would change the
	// accumulated value even where no merge touched it (see settled).
	unsettled map[string]bool
}

// NewLocks returns an empty set.
func NewLocks() *Locks {
	return &Locks{set: map[string]bool{}, below: map[string][]string{}, unsettled: map[string]bool{}}
}

// Map is the locked pointers as Restore takes them.
func (l *Locks) Map() map[string]bool { return l.set }

// Lock adds pointer p, locked in a's value.
func (l *Locks) Lock(a *Acc, p string) {
	if l.set[p] {
		return
	}
	l.set[p] = true
	if a.lk == l {
		delete(a.free, p)
	}
	prefixes(p, func(q string) { l.below[q] = append(l.below[q], p) })
	if !a.settled(p) {
		l.unsettled[p] = true
	}
}

// settled reports whether Restore of locked p from a into a itself is a
// no-op.
func (a *Acc) settled(p string) bool {
	steps, _, ok := walk(a.vals, p)
	if !ok || !settable(steps) {
		return true
	}
	if _, ok := a.prov[p]; !ok || len(a.below[p]) > 0 {
		return false
	}
	above := false
	prefixes(p, func(q string) {
		if _, ok := a.prov[q]; ok {
			above = true
		}
	})
	return !above
}

// resettle recomputes which locked pointers are unsettled, after a step
// that replaced the whole value.
func (l *Locks) resettle(a *Acc) {
	clear(l.unsettled)
	for p := range l.set {
		if !a.settled(p) {
			l.unsettled[p] = true
		}
	}
}

// saved is a locked pointer's place and value before a step, what Restore
// reads from its from argument.
type saved struct {
	steps []step
	val   any
	src   Source
	ok    bool
}

func (a *Acc) save(p string) saved {
	steps, val, ok := walk(a.vals, p)
	if !ok || !settable(steps) {
		return saved{}
	}
	if m, isMap := val.(map[string]any); isMap {
		val = deepCopy(m)
	}
	return saved{steps: steps, val: val, src: a.prov[p], ok: true}
}

// restore is Restore of one pointer, in place.
func (a *Acc) restore(p string, sv saved) {
	if !sv.ok {
		return
	}
	anc := ""
	for _, st := range sv.steps[:len(sv.steps)-1] {
		anc += "/" + Escape(st.key)
		a.delProv(anc)
	}
	a.drop(p)
	cur := a.vals
	if cur == nil {
		cur = map[string]any{}
		a.vals = cur
	}
	for _, st := range sv.steps[:len(sv.steps)-1] {
		sub, ok := cur[st.key].(map[string]any)
		if !ok {
			sub = map[string]any{}
			cur[st.key] = sub
		}
		cur = sub
	}
	v := sv.val
	if m, isMap := v.(map[string]any); isMap {
		v = deepCopy(m)
		if len(m) > 0 {
			a.normal = false // a source on an object that has fields
		}
	} else if v == nil {
		a.normal = false
	}
	cur[sv.steps[len(sv.steps)-1].key] = v
	a.setProv(p, sv.src)
}

// PatchDefaults sets a to Restore(Patch(a, m), a, locks), restoring only
// the locked pointers the patch can reach, those related to them and
// those still unsettled, in pointer order.
func (a *Acc) PatchDefaults(m Value, l *Locks) {
	a.track(l)
	if len(l.set) == 0 {
		a.patchIn(m)
		return
	}
	cand := maps.Clone(l.unsettled)
	// The locked pointers the patch reaches: those it visits, and those
	// below a place it replaces whole.
	var visit func(higher, lower map[string]any, prefix string)
	visit = func(higher, lower map[string]any, prefix string) {
		for k, v := range higher {
			p := prefix + "/" + Escape(k)
			if l.set[p] {
				cand[p] = true
			}
			hm, hok := v.(map[string]any)
			lm, lok := lower[k].(map[string]any)
			if hok && lok {
				visit(hm, lm, p)
				continue
			}
			for _, q := range l.below[p] {
				cand[q] = true
			}
			if hok {
				visit(hm, nil, p)
			}
		}
	}
	visit(m.Values, a.vals, "")
	l.close(cand)
	ptrs := slices.Sorted(maps.Keys(cand))
	from := make([]saved, len(ptrs))
	for i, p := range ptrs {
		from[i] = a.save(p)
	}
	a.patchIn(m)
	for i, p := range ptrs {
		a.restore(p, from[i])
	}
	for _, p := range ptrs {
		if a.settled(p) {
			delete(l.unsettled, p)
		} else {
			l.unsettled[p] = true
		}
	}
}

func (a *Acc) patchIn(m Value) {
	if a.vals == nil {
		a.vals = map[string]any{}
	}
	a.patch(a.vals, m.Values, "", m.Prov)
}

// close adds to cand every locked pointer above or below one in it:
// restoring a pointer changes those too.
func (l *Locks) close(cand map[string]bool) {
	queue := slices.Collect(maps.Keys(cand))
	add := func(q string) {
		if !cand[q] {
			cand[q] = true
			queue = append(queue, q)
		}
	}
	for len(queue) > 0 {
		p := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		prefixes(p, func(q string) {
			if l.set[q] {
				add(q)
			}
		})
		for _, q := range l.below[p] {
			add(q)
		}
	}
}

// AtomicDefaults sets a to Restore(m, a, locks): m whole, with every
// locked pointer of the accumulated value put back.
func (a *Acc) AtomicDefaults(m Value, l *Locks) {
	if a.graft(m, l) {
		return
	}
	old := *a
	*a = *NewAcc(m)
	for _, p := range slices.Sorted(maps.Keys(l.set)) {
		a.restore(p, old.save(p))
	}
	l.resettle(a)
}

// Replace sets a to a copy of v, after a step the immutable functions
// computed.
func (a *Acc) Replace(v Value, l *Locks) {
	*a = *NewAcc(v)
	l.resettle(a)
}

// recheck updates which locked pointers are unsettled after a step that
// changed the value at the pointers changed only.
func (l *Locks) recheck(a *Acc, changed []string) {
	check := func(p string) {
		if !l.set[p] {
			return
		}
		if a.settled(p) {
			delete(l.unsettled, p)
		} else {
			l.unsettled[p] = true
		}
	}
	for _, p := range changed {
		check(p)
		prefixes(p, check)
		for _, q := range l.below[p] {
			check(q)
		}
	}
}

// graft is AtomicDefaults in a cost of m's size plus the pointers no lock
// protects: when a is in normal form and every lock settled, the locked
// pointers in a are unrelated leaves, and the result is m with those
// leaves put in. It reports false, changing nothing, otherwise.
func (a *Acc) graft(m Value, l *Locks) bool {
	a.track(l)
	if !a.normal || len(l.unsettled) > 0 || !form(m, true) {
		return false
	}
	// What is not locked goes, with the objects left empty by that.
	for p := range a.free {
		a.remove(p)
	}
	empty := len(a.vals) == 0
	if a.vals == nil {
		a.vals = map[string]any{}
	}
	var changed []string
	a.graftIn(a.vals, m.Values, "", m.Prov, &changed)
	if m.Values == nil && empty {
		a.vals = nil // Restore returns m's Values as they are
	}
	a.normal = !hasNull(m.Values)
	l.recheck(a, changed)
	return true
}

// remove deletes leaf p and its source, then the objects above it that
// it leaves empty.
func (a *Acc) remove(p string) {
	a.delProv(p)
	segs := splitPointer(p)
	objs := make([]map[string]any, 0, len(segs))
	cur := a.vals
	for _, k := range segs[:len(segs)-1] {
		objs = append(objs, cur)
		sub, ok := cur[k].(map[string]any)
		if !ok {
			return
		}
		cur = sub
	}
	delete(cur, segs[len(segs)-1])
	for i := len(objs) - 1; i >= 0 && len(cur) == 0; i-- {
		delete(objs[i], segs[i])
		cur = objs[i]
	}
}

// graftIn adds m's fields to the skeleton s of locked leaves: where s has
// a locked leaf, or m has no object where s has one, s stands.
func (a *Acc) graftIn(s, m map[string]any, prefix string, mprov map[string]Source, changed *[]string) {
	for k, mv := range m {
		p := prefix + "/" + Escape(k)
		sv, has := s[k]
		if !has {
			if sub, isMap := mv.(map[string]any); isMap {
				s[k] = deepCopy(sub)
				if len(sub) > 0 {
					Leaves(sub, p, func(q string) {
						if src, ok := mprov[q]; ok {
							a.setProv(q, src)
						}
					})
				} else if src, ok := mprov[p]; ok {
					a.setProv(p, src)
				}
			} else {
				s[k] = mv
				if src, ok := mprov[p]; ok {
					a.setProv(p, src)
				}
			}
			*changed = append(*changed, p)
			continue
		}
		if _, leaf := a.prov[p]; leaf {
			continue // a locked leaf
		}
		sm, _ := sv.(map[string]any)
		if mm, isMap := mv.(map[string]any); isMap {
			a.graftIn(sm, mm, p, mprov, changed)
		}
	}
}

func hasNull(m map[string]any) bool {
	for _, v := range m {
		if v == nil {
			return true
		}
		if sub, ok := v.(map[string]any); ok && hasNull(sub) {
			return true
		}
	}
	return false
}
