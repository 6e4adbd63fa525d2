package merge

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/strata-dev/strata/pkg/policykind"
)

// Source is who set a value: a policy, or nil for the target object's own
// field (the most specific default, 001 "Interactions between defaults,
// overrides, and field values").
type Source = *policykind.Policy

// Value is a spec proper with the source of every leaf. Leaves are scalars,
// lists and empty objects (001 "Merging into existing spec fields": lists
// and maps of strings are replaced whole, objects merged field by field),
// keyed by RFC 6901 JSON pointer. Values are never modified in place:
// every operation returns new maps along the paths it changes, so one Value
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

// Funcs resolves the merge function of every atomicity a kind supports.
func (r Registry) Funcs(k *policykind.Kind) (map[string]Func, error) {
	out := map[string]Func{policykind.Atomic: Atomic, policykind.Patch: Patch}
	names := make([]string, 0, len(k.Custom))
	for n := range k.Custom {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := k.Custom[n]
		f, ok := r[c.Function]
		if !ok {
			return nil, fmt.Errorf("kind %s: custom strategy %s: merge function %q is not registered", k.Kind, n, c.Function)
		}
		fn, err := f(c.Parameters)
		if err != nil {
			return nil, fmt.Errorf("kind %s: custom strategy %s: %w", k.Kind, n, err)
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
	for p, s := range lower.Prov {
		prov[p] = s
	}
	vals := patch(lower.Values, higher.Values, "", prov, higher.Prov)
	return Value{Values: vals, Prov: prov}
}

func patch(lower, higher map[string]any, prefix string, prov, hprov map[string]Source) map[string]any {
	out := make(map[string]any, len(lower)+len(higher))
	for k, v := range lower {
		out[k] = v
	}
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
				prov[p] = hprov[p]
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
		if strings.HasPrefix(q, p+"/") || strings.HasPrefix(q, p+"[") {
			delete(prov, q)
		}
	}
}

// Restore puts back into v the leaves of from that are locked, so that an
// override stays in force under later merges (Overrides: "less specific
// beats more specific", 001's expanded hierarchy).
func Restore(v, from Value, locked map[string]bool) Value {
	if len(locked) == 0 {
		return v
	}
	out := Value{Values: v.Values, Prov: make(map[string]Source, len(v.Prov))}
	for p, s := range v.Prov {
		out.Prov[p] = s
	}
	ptrs := make([]string, 0, len(locked))
	for p := range locked {
		ptrs = append(ptrs, p)
	}
	sort.Strings(ptrs)
	for _, p := range ptrs {
		val, ok := Get(from.Values, p)
		if !ok {
			continue
		}
		drop(out.Prov, p)
		out.Values = set(out.Values, splitPointer(p), val)
		out.Prov[p] = from.Prov[p]
	}
	return out
}

// Get reads the value at a JSON pointer; numeric segments index lists.
func Get(m map[string]any, ptr string) (any, bool) {
	var cur any = m
	for _, k := range splitPointer(ptr) {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[k]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

func set(m map[string]any, path []string, v any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, x := range m {
		out[k] = x
	}
	if len(path) == 1 {
		out[path[0]] = v
		return out
	}
	sub, _ := out[path[0]].(map[string]any)
	out[path[0]] = set(sub, path[1:], v)
	return out
}

func splitPointer(p string) []string {
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range parts {
		if strings.Contains(s, "~") {
			parts[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(s)
		}
	}
	return parts
}
