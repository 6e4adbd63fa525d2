package merge

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Source is who set a value, opaque to merge (the engine's are its
// policies); nil is the target object's own field (001 "Interactions
// between defaults, overrides, and field values").
type Source interface{ ID() string }

// Value is a spec proper with the source of every leaf (scalars, lists
// and empty objects; 001 "Merging into existing spec fields"), keyed by
// RFC 6901 JSON pointer. Values are never modified in place, so one Value
// can be shared by many contexts.
type Value struct {
	Values map[string]any
	Prov   map[string]Source
}

// Of makes the Value of one source: every leaf set by src.
func Of(values map[string]any, src Source) Value {
	v := Value{Values: values, Prov: map[string]Source{}}
	Leaves(values, "", func(ptr string) { v.Prov[ptr] = src })
	return v
}

// Leaves calls fn with the JSON pointer of every leaf of m under prefix.
func Leaves(m map[string]any, prefix string, fn func(ptr string)) {
	for k, v := range m {
		p := prefix + "/" + Escape(k)
		if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
			Leaves(sub, p, fn)
			continue
		}
		fn(p)
	}
}

// Escape escapes a key for a JSON pointer (RFC 6901): ~ and / .
func Escape(k string) string {
	if !strings.ContainsAny(k, "~/") {
		return k
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}

// Func combines two values: higher takes precedence over lower. Which one
// is higher is decided by the base strategy (Defaults: the more specific;
// Overrides: the less specific); the Func only decides how they mix.
type Func func(lower, higher Value) Value

// Factory makes a Func from the parameters of a kind's declaration.
type Factory func(params map[string]string) (Func, error)

// Registry holds custom atomicities by function name. Atomic and Patch are
// built in and need no entry.
type Registry map[string]Factory

// DefaultRegistry returns the custom merge functions Strata ships.
func DefaultRegistry() Registry {
	return Registry{"mergeByKey": MergeByKey}
}

// Custom is a custom atomicity: the name of a registered merge function
// and its parameters (a PolicyKind's spec.strategies.custom entry).
type Custom struct {
	Function   string
	Parameters map[string]string
}

// Funcs resolves custom atomicities, by name, to their merge functions.
// Atomic and Patch are built in and not among them.
func (r Registry) Funcs(custom map[string]Custom) (map[string]Func, error) {
	out := make(map[string]Func, len(custom))
	for _, n := range slices.Sorted(maps.Keys(custom)) {
		c := custom[n]
		f, ok := r[c.Function]
		if !ok {
			return nil, fmt.Errorf("custom strategy %s: merge function %q is not registered", n, c.Function)
		}
		fn, err := f(c.Parameters)
		if err != nil {
			return nil, fmt.Errorf("custom strategy %s: %w", n, err)
		}
		out[n] = fn
	}
	return out, nil
}

// Atomic keeps the higher value whole (GEP-713 "Atomic spec").
func Atomic(_, higher Value) Value { return higher }

// Patch applies higher over lower as an RFC 7386 JSON merge patch, so
// scalars are merged field by field, lists and maps of scalars replaced,
// and null deletes (GEP-713 "Scalar values (Patch)").
func Patch(lower, higher Value) Value {
	prov := make(map[string]Source, len(lower.Prov)+len(higher.Prov))
	maps.Copy(prov, lower.Prov)
	vals := patch(lower.Values, higher.Values, "", prov, higher.Prov)
	return Value{Values: vals, Prov: prov}
}

func patch(lower, higher map[string]any, prefix string, prov, hprov map[string]Source) map[string]any {
	out := make(map[string]any, len(lower)+len(higher))
	maps.Copy(out, lower)
	for k, v := range higher {
		p := prefix + "/" + Escape(k)
		if v == nil {
			delete(out, k)
			drop(prov, p)
			continue
		}
		if hm, ok := v.(map[string]any); ok {
			lm, lok := out[k].(map[string]any)
			if !lok {
				drop(prov, p)
				lm = map[string]any{}
			}
			merged := patch(lm, hm, p, prov, hprov)
			if len(merged) == 0 {
				// An empty object is a leaf. higher set it, or emptied
				// it with nulls (whose sources are below p).
				prov[p] = sourceAt(Value{Prov: hprov}, p)
			} else {
				delete(prov, p) // an empty object leaf that now has fields
			}
			out[k] = merged
			continue
		}
		drop(prov, p)
		out[k] = v
		prov[p] = hprov[p]
	}
	return out
}

// drop forgets the sources of a pointer and everything below it.
func drop(prov map[string]Source, p string) {
	delete(prov, p)
	for q := range prov {
		if Below(q, p) {
			delete(prov, q)
		}
	}
}

// dropItems forgets the item sources of the list at p.
func dropItems(prov map[string]Source, p string) {
	for q := range prov {
		if len(q) > len(p) && q[:len(p)] == p && isItem(q[len(p):]) {
			delete(prov, q)
		}
	}
}

// Below reports whether pointer q lies strictly below pointer p: a field
// of it (p/...) or an item of the list at p as MergeByKey names them
// (p[field=value]...); /l[0] is not below /l.
func Below(q, p string) bool {
	if len(q) <= len(p) || q[:len(p)] != p {
		return false
	}
	return q[len(p)] == '/' || isItem(q[len(p):])
}

// isItem reports whether a pointer's rest starts with a whole item
// segment, [field=value] up to the end or the next "/" (itemPtr escapes
// "/" in both).
func isItem(rest string) bool {
	seg, _, _ := strings.Cut(rest, "/")
	if len(seg) < 4 || seg[0] != '[' || seg[len(seg)-1] != ']' {
		return false
	}
	field, _, ok := strings.Cut(seg[1:len(seg)-1], "=")
	return ok && field != "" && !strings.ContainsAny(field, "[]")
}

// Restore puts back into v the leaves of from that are locked (provenance
// keys), so that an override stays in force under later merges (001's
// expanded hierarchy).
func Restore(v, from Value, locked map[string]bool) Value {
	if len(locked) == 0 || restored(v, from, locked) {
		return v
	}
	return restore(v, from, locked, nil, false)
}

// PatchDefaults is Restore(Patch(lower, higher), lower, locked), the step
// of a fold under an override. Patch's result is new where it is not
// lower's, so the locked pointers are put back into it in place, not into
// copies.
func PatchDefaults(lower, higher Value, locked map[string]bool) Value {
	v := Patch(lower, higher)
	if len(locked) == 0 || restored(v, lower, locked) {
		return v
	}
	return restore(v, lower, locked, higher.Values, true)
}

// restore puts back the locked pointers of from into v, in pointer order
// (Restore without its shortcut). When own is true, v is Patch's result
// over patched, and what Patch made new is written in place.
func restore(v, from Value, locked map[string]bool, patched map[string]any, own bool) Value {
	out := Value{Values: v.Values, Prov: v.Prov}
	if !own {
		out.Prov = make(map[string]Source, len(v.Prov))
		maps.Copy(out.Prov, v.Prov)
	}
	ptrs := slices.Sorted(maps.Keys(locked))
	// Values are set at the end, all at once (setAll), when batchable.
	var pending []pendingSet
	batch := batchable(ptrs, locked)
	for _, p := range ptrs {
		steps, val, ok := walk(from.Values, p)
		if !ok || !settable(steps) {
			continue
		}
		// What stood above p in v no longer names a leaf.
		anc := ""
		for _, st := range steps[:len(steps)-1] {
			anc += "/" + Escape(st.key)
			delete(out.Prov, anc)
			dropItems(out.Prov, anc)
		}
		if last := steps[len(steps)-1]; last.item {
			list := anc + "/" + Escape(last.key)
			if s, whole := out.Prov[list]; whole {
				delete(out.Prov, list)
				if items, ok := getSteps(out.Values, steps[:len(steps)-1]); ok {
					if l, ok := items.(map[string]any)[last.key].([]any); ok {
						for _, it := range l {
							if _, ok := it.(map[string]any); ok {
								out.Prov[itemPtr(list, last.field, it)] = s
							}
						}
					}
				}
			}
		}
		drop(out.Prov, p)
		if batch {
			pending = append(pending, pendingSet{steps, val})
		} else {
			out.Values = set(out.Values, steps, val)
		}
		out.Prov[p] = from.Prov[p]
	}
	if len(pending) > 0 {
		out.Values = setAll(out.Values, pending, 0, patched, own)
	}
	return out
}

// pendingSet is a value restore puts at steps.
type pendingSet struct {
	steps []step
	val   any
}

// batchable reports whether restore may set the values of ptrs (sorted)
// at once: none names a list item, and none lies below another.
func batchable(ptrs []string, locked map[string]bool) bool {
	for _, p := range ptrs {
		if strings.IndexByte(p, '[') >= 0 {
			return false
		}
		below := false
		prefixes(p, func(q string) {
			if locked[q] {
				below = true
			}
		})
		if below {
			return false
		}
	}
	return true
}

// setAll returns m with every set's value at its steps (map keys from
// depth on), as set applied to each in turn returns it, copying each map
// it changes once (none that own says are the caller's). sets are in
// pointer order and none lies below another (batchable).
func setAll(m map[string]any, sets []pendingSet, depth int, patched map[string]any, own bool) map[string]any {
	out := m
	if !own || m == nil {
		out = make(map[string]any, len(m)+len(sets))
		maps.Copy(out, m)
	}
	for i := 0; i < len(sets); {
		key := sets[i].steps[depth].key
		j := i + 1
		for j < len(sets) && sets[j].steps[depth].key == key {
			j++
		}
		if len(sets[i].steps) == depth+1 {
			out[key] = sets[j-1].val // one set ends here: none lies below another
		} else {
			sub, _ := out[key].(map[string]any)
			hsub, isMap := patched[key].(map[string]any)
			out[key] = setAll(sub, sets[i:j], depth+1, hsub, own && isMap)
		}
		i = j
	}
	return out
}

// restored reports exactly whether v already holds every locked pointer
// as Restore would put it back from from (a default that touches no
// overridden field), so that Restore may return v as it is.
func restored(v, from Value, locked map[string]bool) bool {
	for p := range locked {
		if strings.IndexByte(p, '[') >= 0 {
			return false
		}
		fsteps, fval, ok := walk(from.Values, p)
		if !ok || !settable(fsteps) {
			continue // Restore skips it too
		}
		if s, ok := v.Prov[p]; !ok || s != from.Prov[p] {
			return false
		}
		vsteps, vval, ok := walk(v.Values, p)
		if !ok || !settable(vsteps) || !sameLeaf(vval, fval) {
			return false
		}
		above := false
		prefixes(p, func(q string) {
			if _, ok := v.Prov[q]; ok {
				above = true
			}
		})
		if above {
			return false
		}
	}
	for q := range v.Prov {
		if strings.IndexByte(q, '[') >= 0 {
			return false
		}
		below := false
		prefixes(q, func(r string) {
			if locked[r] {
				below = true
			}
		})
		if below {
			return false
		}
	}
	return true
}

// sameLeaf reports whether two leaf values are equal: JSON scalars by
// ==, anything else (objects, lists) by content.
func sameLeaf(a, b any) bool {
	switch a.(type) {
	case string, float64, int64, int, bool, nil:
		return a == b
	}
	return reflect.DeepEqual(a, b)
}

// Get reads the value at a JSON pointer; numeric segments index lists,
// and a segment list[field=value] picks the item of a list that MergeByKey
// names so in provenance.
func Get(m map[string]any, ptr string) (any, bool) {
	_, v, ok := walk(m, ptr)
	return v, ok
}

// step is one segment of a resolved pointer: a map key, a list index, or
// the item of the list at key whose field prints as id.
type step struct {
	key       string
	index     int
	isIndex   bool
	item      bool
	field, id string
}

// walk follows a pointer, returning the steps taken and the value found.
func walk(m map[string]any, ptr string) ([]step, any, bool) {
	// One allocation for the steps, none for the segments.
	steps := make([]step, 0, strings.Count(ptr, "/"))
	var cur any = m
	rest := strings.TrimPrefix(ptr, "/")
	for more := true; more; {
		var seg string
		seg, rest, more = strings.Cut(rest, "/")
		if strings.Contains(seg, "~") {
			seg = unescape(seg)
		}
		switch c := cur.(type) {
		case map[string]any:
			if v, ok := c[seg]; ok {
				steps = append(steps, step{key: seg})
				cur = v
				continue
			}
			st, v, ok := itemOf(c, seg)
			if !ok {
				return nil, nil, false
			}
			steps = append(steps, st)
			cur = v
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(c) {
				return nil, nil, false
			}
			steps = append(steps, step{index: i, isIndex: true})
			cur = c[i]
		default:
			return nil, nil, false
		}
	}
	return steps, cur, true
}

// itemOf resolves a segment list[field=id] in m. The list's own key may
// contain "[", so every split is tried.
func itemOf(m map[string]any, seg string) (step, any, bool) {
	if !strings.HasSuffix(seg, "]") {
		return step{}, nil, false
	}
	for i := strings.IndexByte(seg, '['); i >= 0; {
		list, isList := m[seg[:i]].([]any)
		field, id, hasEq := strings.Cut(seg[i+1:len(seg)-1], "=")
		if isList && hasEq {
			for _, it := range list {
				if im, ok := it.(map[string]any); ok {
					if fv, ok := im[field]; ok && fmt.Sprint(fv) == id {
						return step{key: seg[:i], item: true, field: field, id: id}, it, true
					}
				}
			}
		}
		j := strings.IndexByte(seg[i+1:], '[')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return step{}, nil, false
}

// getSteps follows steps made of map keys.
func getSteps(m map[string]any, steps []step) (any, bool) {
	var cur any = m
	for _, st := range steps {
		c, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = c[st.key]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// settable reports whether set can write at steps: map keys, then
// possibly one list item. (Provenance never names list indexes.)
func settable(steps []step) bool {
	for i, st := range steps {
		if st.isIndex || st.item && i != len(steps)-1 {
			return false
		}
	}
	return len(steps) > 0
}

// set returns m with v at steps, copying the maps and the list it changes.
func set(m map[string]any, steps []step, v any) map[string]any {
	out := make(map[string]any, len(m)+1)
	maps.Copy(out, m)
	st := steps[0]
	switch {
	case len(steps) > 1:
		sub, _ := out[st.key].(map[string]any)
		out[st.key] = set(sub, steps[1:], v)
	case st.item:
		old, _ := out[st.key].([]any)
		list := append(make([]any, 0, len(old)+1), old...)
		i := slices.IndexFunc(list, func(it any) bool {
			im, ok := it.(map[string]any)
			fv, has := im[st.field]
			return ok && has && fmt.Sprint(fv) == st.id
		})
		if i >= 0 {
			list[i] = v
		} else {
			list = append(list, v)
		}
		out[st.key] = list
	default:
		out[st.key] = v
	}
	return out
}

func splitPointer(p string) []string {
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range parts {
		if strings.Contains(s, "~") {
			parts[i] = unescape(s)
		}
	}
	return parts
}

// unescape is RFC 6901's reading of a reference token: ~1 is "/", ~0 "~".
func unescape(seg string) string {
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
}
