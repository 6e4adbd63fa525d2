package merge_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/strata-dev/strata/pkg/engine/merge"
)

// FuzzPatch checks merge.Patch against an independent RFC 7386
// implementation (evanphx/json-patch MergePatch) on two JSON objects, and
// that provenance names exactly the leaves of the result, each with the
// source that set it.
func FuzzPatch(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"a": 1}`, `{"b": 2}`},
		{`{"a": {"b": 1, "c": [1, 2]}}`, `{"a": {"c": [3], "d": null}}`},
		{`{"a": {"b": 1}}`, `{"a": {"b": null}}`},
		{`{"a": 1}`, `{"a": {"b": {"c": null, "d": {}}}}`},
		{`{"a": {"x": {}}, "b": [1]}`, `{"a": 5, "b": {"c": "d"}}`},
		{`{"a/b": {"~": 1}}`, `{"a/b": {"~": null, "~1": true}}`},
		{`{}`, `{}`},
		{`{"l": [{"a": 1}]}`, `{"l": [{"a": 2}], "m": {}}`},
		{`{"":{"0": 1, "1": [1, 1]}}`, `{"0":{"":[0],"":null}}`}, // duplicate names: skipped
		{`{"a": 1}`, `{"l": [{"a": null}]}`},                     // null in a list's object: skipped
	} {
		f.Add([]byte(seed[0]), []byte(seed[1]))
	}
	f.Fuzz(func(t *testing.T, docA, docB []byte) {
		var a, b map[string]any
		if json.Unmarshal(docA, &a) != nil || a == nil || json.Unmarshal(docB, &b) != nil || b == nil {
			return // both inputs must be JSON objects
		}
		if duplicateKeys(docA) || duplicateKeys(docB) {
			// RFC 8259 leaves objects with duplicate names
			// unpredictable: encoding/json keeps the last, the
			// reference keeps both names and one value.
			return
		}
		if nullInListObject(b) {
			// RFC 7386 replaces a list whole, nulls in its objects
			// included; evanphx/json-patch prunes those nulls when the
			// list is new in the target. The two disagree there by
			// design, so such patches are left to TestPatch.
			return
		}
		// The reference gets its own copies: Patch must not need them.
		wantJSON, err := jsonpatch.MergePatch(docA, docB)
		if err != nil {
			return // inputs the reference refuses (e.g. duplicate keys it reads differently)
		}
		var want map[string]any
		if err := json.Unmarshal(wantJSON, &want); err != nil {
			t.Fatalf("reference output %s: %v", wantJSON, err)
		}

		aCopy, bCopy := jsonOf(a), jsonOf(b)
		got := merge.Patch(merge.Of(a, p1), merge.Of(b, p2))
		if !reflect.DeepEqual(got.Values, want) {
			t.Fatalf("Patch(%s, %s):\n got %s\nwant %s", docA, docB, jsonOf(got.Values), wantJSON)
		}
		if jsonOf(a) != aCopy || jsonOf(b) != bCopy {
			t.Fatalf("Patch modified its inputs")
		}

		leaves := map[string]bool{}
		merge.Leaves(got.Values, "", func(ptr string) { leaves[ptr] = true })
		for ptr := range leaves {
			src, ok := got.Prov[ptr]
			if !ok {
				t.Fatalf("Patch(%s, %s): leaf %s has no provenance", docA, docB, ptr)
			}
			if want := expectedSource(b, ptr); src != want {
				t.Fatalf("Patch(%s, %s): leaf %s set by %s, want %s", docA, docB, ptr, nameOf(src), nameOf(want))
			}
		}
		for ptr := range got.Prov {
			if !leaves[ptr] {
				t.Fatalf("Patch(%s, %s): provenance for %s, which is not a leaf of %s", docA, docB, ptr, jsonOf(got.Values))
			}
		}
	})
}

// expectedSource says who set a leaf of Patch(a, b): b when b reaches it
// (b holds a non-object on its way there, or an object at the leaf, which
// then is an empty object b made), a otherwise.
func expectedSource(b map[string]any, ptr string) merge.Source {
	var cur any = b
	for _, seg := range strings.Split(ptr[1:], "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return p2
		}
		seg = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
		if cur, ok = m[seg]; !ok {
			return p1
		}
	}
	return p2
}

// nullInListObject reports whether some list in v holds, at any depth, an
// object with a null member.
func nullInListObject(v any) bool {
	var walk func(v any, inList bool) bool
	walk = func(v any, inList bool) bool {
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				if e == nil && inList || walk(e, inList) {
					return true
				}
			}
		case []any:
			for _, e := range x {
				if walk(e, true) {
					return true
				}
			}
		}
		return false
	}
	return walk(v, false)
}

func nameOf(s merge.Source) string {
	if s == nil {
		return "<object>"
	}
	return s.ID()
}

// duplicateKeys reports whether some object in a JSON document names a
// member twice.
func duplicateKeys(doc []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(doc))
	type frame struct {
		object bool
		seen   map[string]bool
		key    bool // the next string token is a member name
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if s, ok := tok.(string); ok && top != nil && top.object && top.key {
			if top.seen[s] {
				return true
			}
			top.seen[s] = true
			top.key = false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, seen: map[string]bool{}, key: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value ended: in an object, a name comes next.
		if len(stack) > 0 && stack[len(stack)-1].object {
			stack[len(stack)-1].key = true
		}
	}
}
