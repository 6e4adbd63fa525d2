package merge

import (
	"errors"
	"fmt"
)

// MergeByKey is a custom atomicity (GEP-713 "<Custom>"): like Patch, but a
// list whose items all carry the key field is merged item by item, a
// higher item replacing the lower one of its key (Kuadrant's rule-level
// merge); items' provenance is /list[key=value]. Parameters: key.
func MergeByKey(params map[string]string) (Func, error) {
	key := params["key"]
	if key == "" {
		return nil, errors.New("mergeByKey: parameter key is required")
	}
	return func(lower, higher Value) Value {
		prov := map[string]Source{}
		for p, s := range lower.Prov {
			prov[p] = s
		}
		return Value{Values: byKey(lower.Values, higher.Values, "", key, prov, higher), Prov: prov}
	}, nil
}

func byKey(lower, higher map[string]any, prefix, key string, prov map[string]Source, h Value) map[string]any {
	out := make(map[string]any, len(lower)+len(higher))
	for k, v := range lower {
		out[k] = v
	}
	for k, v := range higher {
		p := prefix + "/" + Escape(k)
		switch hv := v.(type) {
		case nil:
			delete(out, k)
			drop(prov, p)
		case map[string]any:
			lm, ok := out[k].(map[string]any)
			if !ok {
				drop(prov, p)
				lm = map[string]any{}
			}
			merged := byKey(lm, hv, p, key, prov, h)
			if len(merged) == 0 {
				prov[p] = sourceAt(h, p) // an empty object is a leaf
			} else {
				delete(prov, p) // an empty object leaf that now has fields
			}
			out[k] = merged
		case []any:
			lower, lok := out[k].([]any)
			if !keyed(hv, key) || lok && !keyed(lower, key) {
				drop(prov, p)
				out[k] = hv
				prov[p] = sourceAt(h, p)
				continue
			}
			if !lok {
				drop(prov, p) // a scalar or object becomes a keyed list
			}
			out[k] = mergeItems(lower, hv, p, key, prov, h)
		default:
			drop(prov, p)
			out[k] = v
			prov[p] = sourceAt(h, p)
		}
	}
	return out
}

func mergeItems(lower, higher []any, p, key string, prov map[string]Source, h Value) []any {
	// A list that was a single leaf now gets per-item sources.
	if s, ok := prov[p]; ok {
		delete(prov, p)
		for _, it := range lower {
			prov[itemPtr(p, key, it)] = s
		}
	}
	out := make([]any, 0, len(lower)+len(higher))
	pos := map[string]int{}
	for _, it := range lower {
		pos[fmt.Sprint(it.(map[string]any)[key])] = len(out)
		out = append(out, it)
	}
	for _, it := range higher {
		id := fmt.Sprint(it.(map[string]any)[key])
		ip := itemPtr(p, key, it)
		if i, ok := pos[id]; ok {
			out[i] = it
		} else {
			pos[id] = len(out)
			out = append(out, it)
		}
		if s := sourceAt(h, ip); s != nil {
			prov[ip] = s
		} else {
			prov[ip] = sourceAt(h, p)
		}
	}
	return out
}

// itemPtr is the provenance pointer of a list item: the list's pointer
// then [key=value], the value escaped like a pointer segment.
func itemPtr(p, key string, item any) string {
	return fmt.Sprintf("%s[%s=%s]", p, Escape(key), Escape(fmt.Sprint(item.(map[string]any)[key])))
}

// sourceAt finds who set a pointer in v: the pointer's source, else the
// first in pointer order of those below it.
func sourceAt(v Value, p string) Source {
	if s, ok := v.Prov[p]; ok {
		return s
	}
	var best string
	var src Source
	for q, s := range v.Prov {
		if Below(q, p) && (best == "" || q < best) {
			best, src = q, s
		}
	}
	return src
}

func keyed(items []any, key string) bool {
	if len(items) == 0 {
		return false
	}
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return false
		}
		if _, ok := m[key]; !ok {
			return false
		}
	}
	return true
}
