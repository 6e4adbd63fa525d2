package merge

import (
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// StrategicMerge is Kubernetes' strategic merge patch of higher over
// lower, with provenance (Envoy Gateway's `mergeType: StrategicMerge`).
// meta says which lists are merged by a key and which lists of scalars as
// sets; nil means every list is replaced whole. A leaf equal to higher's
// is higher's, one equal to lower's is lower's, any other higher's; the
// items of a list merged by key are tracked as MergeByKey tracks them. A
// patch strategicpatch refuses is merged as Patch merges it.
func StrategicMerge(meta strategicpatch.LookupPatchMeta) Func {
	if meta == nil {
		meta = noMeta{}
	}
	return func(lower, higher Value) Value {
		// strategicpatch edits both maps in place; Values are shared.
		vals, err := strategicpatch.StrategicMergeMapPatchUsingLookupPatchMeta(copyJSON(lower.Values), copyJSON(higher.Values), meta)
		if err != nil {
			return Patch(lower, higher)
		}
		a := attribution{lower: lower, higher: higher, prov: make(map[string]Source, len(lower.Prov)+len(higher.Prov))}
		a.walk(vals, lower.Values, higher.Values, "", meta)
		return Value{Values: vals, Prov: a.prov}
	}
}

// attribution gives each leaf of a strategic merge's result its source.
type attribution struct {
	lower, higher Value
	prov          map[string]Source
	// keys of lower's and higher's provenance, sorted on first use.
	lowerKeys, higherKeys []string
}

func (a *attribution) walk(r, l, h map[string]any, prefix string, meta strategicpatch.LookupPatchMeta) {
	for k, v := range r {
		p := prefix + "/" + Escape(k)
		lv, inL := l[k]
		hv, inH := h[k]
		if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
			lm, _ := lv.(map[string]any)
			hm, _ := hv.(map[string]any)
			var next strategicpatch.LookupPatchMeta
			if meta != nil {
				next, _, _ = meta.LookupPatchMetadataForStruct(k)
			}
			a.walk(sub, lm, hm, p, next)
			continue
		}
		if list, ok := v.([]any); ok && meta != nil {
			if _, pm, err := meta.LookupPatchMetadataForSlice(k); err == nil && pm.GetPatchMergeKey() != "" && slices.Contains(pm.GetPatchStrategies(), "merge") {
				if key := pm.GetPatchMergeKey(); keyed(list, key) {
					a.items(list, lv, hv, p, key)
					continue
				}
			}
		}
		switch {
		case inH && reflect.DeepEqual(v, hv):
			a.take(&a.higher, &a.higherKeys, p)
		case inL && reflect.DeepEqual(v, lv):
			a.take(&a.lower, &a.lowerKeys, p)
		case inH:
			a.prov[p] = sourceAt(a.higher, p)
		default:
			a.prov[p] = sourceAt(a.lower, p)
		}
	}
}

// items attributes the items of a list merged by key: higher's items
// are higher's, the others keep lower's source (the item's, or the
// list's when lower held the list as one leaf).
func (a *attribution) items(list []any, lv, hv any, p, key string) {
	hl, _ := hv.([]any)
	hIDs := map[string]bool{}
	for _, it := range hl {
		if m, ok := it.(map[string]any); ok {
			hIDs[itemPtr(p, key, m)] = true
		}
	}
	for _, it := range list {
		ip := itemPtr(p, key, it)
		src := a.lower
		if hIDs[ip] {
			src = a.higher
		}
		if s, ok := src.Prov[ip]; ok {
			a.prov[ip] = s
		} else {
			a.prov[ip] = sourceAt(src, p)
		}
	}
}

// take copies v's sources at p and below it (the items of a list that
// an earlier merge tracked one by one).
func (a *attribution) take(v *Value, keys *[]string, p string) {
	if s, ok := v.Prov[p]; ok {
		a.prov[p] = s
		return
	}
	if *keys == nil {
		*keys = slices.Sorted(maps.Keys(v.Prov))
	}
	found := false
	for _, prefix := range [2]string{p + "/", p + "["} {
		i, _ := slices.BinarySearch(*keys, prefix)
		for ; i < len(*keys) && strings.HasPrefix((*keys)[i], prefix); i++ {
			if q := (*keys)[i]; Below(q, p) {
				a.prov[q] = v.Prov[q]
				found = true
			}
		}
	}
	if !found {
		a.prov[p] = sourceAt(*v, p)
	}
}

// WithListKeys returns meta with the lists at the given dotted paths
// (from the spec proper) merged item by item by their key field; every
// other lookup is meta's (nil: nothing known).
func WithListKeys(meta strategicpatch.LookupPatchMeta, keys map[string]string) strategicpatch.LookupPatchMeta {
	if len(keys) == 0 {
		return meta
	}
	if meta == nil {
		meta = noMeta{}
	}
	return listKeys{inner: meta, keys: keys}
}

// listKeys is WithListKeys's meta at path.
type listKeys struct {
	inner strategicpatch.LookupPatchMeta
	keys  map[string]string
	path  string
}

func (l listKeys) sub(key string) string {
	if l.path == "" {
		return key
	}
	return l.path + "." + key
}

func (l listKeys) LookupPatchMetadataForStruct(key string) (strategicpatch.LookupPatchMeta, strategicpatch.PatchMeta, error) {
	in, pm, err := l.inner.LookupPatchMetadataForStruct(key)
	if err != nil || in == nil {
		in, pm = noMeta{}, strategicpatch.PatchMeta{}
	}
	return listKeys{in, l.keys, l.sub(key)}, pm, nil
}

func (l listKeys) LookupPatchMetadataForSlice(key string) (strategicpatch.LookupPatchMeta, strategicpatch.PatchMeta, error) {
	in, pm, err := l.inner.LookupPatchMetadataForSlice(key)
	if err != nil || in == nil {
		in, pm = noMeta{}, strategicpatch.PatchMeta{}
	}
	p := l.sub(key)
	if k := l.keys[p]; k != "" {
		pm.SetPatchStrategies([]string{"merge"})
		pm.SetPatchMergeKey(k)
	}
	return listKeys{in, l.keys, p}, pm, nil
}

func (l listKeys) Name() string { return l.inner.Name() }

// noMeta knows nothing of a spec's lists: every list is replaced whole.
type noMeta struct{}

func (noMeta) LookupPatchMetadataForStruct(string) (strategicpatch.LookupPatchMeta, strategicpatch.PatchMeta, error) {
	return noMeta{}, strategicpatch.PatchMeta{}, nil
}

func (noMeta) LookupPatchMetadataForSlice(string) (strategicpatch.LookupPatchMeta, strategicpatch.PatchMeta, error) {
	return noMeta{}, strategicpatch.PatchMeta{}, nil
}

func (noMeta) Name() string { return "no schema" }

// copyJSON copies the maps and lists of a JSON value; scalars are shared.
func copyJSON(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = copyValue(v)
	}
	return out
}

func copyValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		return copyJSON(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = copyValue(e)
		}
		return out
	}
	return v
}
