package merge_test

import (
	"encoding/json"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/strata-dev/strata/pkg/engine/merge"
)

// source is a test's opaque merge.Source: merge only stores and compares
// sources, so any comparable value with an ID will do.
type source struct{ Name string }

func (s *source) ID() string { return s.Name }

// Sources, named for messages.
var (
	p1 = &source{Name: "p1"}
	p2 = &source{Name: "p2"}
	p3 = &source{Name: "p3"}
)

// obj parses a JSON object literal; tests write values as JSON.
func obj(t testing.TB, js string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(js), &m); err != nil {
		t.Fatalf("bad test JSON %s: %v", js, err)
	}
	return m
}

// provNames maps each pointer to the name of its source ("<object>" for
// nil, the target object's own value).
func provNames(prov map[string]merge.Source) map[string]string {
	out := make(map[string]string, len(prov))
	for p, s := range prov {
		if s == nil {
			out[p] = "<object>"
		} else {
			out[p] = s.ID()
		}
	}
	return out
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// check compares a Value with the expected JSON and provenance.
func check(t *testing.T, got merge.Value, wantJSON string, wantProv map[string]string) {
	t.Helper()
	if want := obj(t, wantJSON); !reflect.DeepEqual(got.Values, want) {
		t.Errorf("values:\n got %s\nwant %s", jsonOf(got.Values), jsonOf(want))
	}
	if gp := provNames(got.Prov); !maps.Equal(gp, wantProv) {
		t.Errorf("provenance:\n got %v\nwant %v", gp, wantProv)
	}
}

func TestOf(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want map[string]string
	}{
		{name: "scalars", in: `{"a": 1, "b": "x", "c": true, "d": null}`, want: map[string]string{"/a": "p1", "/b": "p1", "/c": "p1", "/d": "p1"}},
		{name: "nested objects are not leaves", in: `{"a": {"b": {"c": 1}, "d": 2}}`, want: map[string]string{"/a/b/c": "p1", "/a/d": "p1"}},
		{name: "lists and empty objects are leaves", in: `{"l": [1, {"x": 1}], "e": {}}`, want: map[string]string{"/l": "p1", "/e": "p1"}},
		{name: "keys escaped as RFC 6901", in: `{"a/b": 1, "c~d": {"e~1/f": 2}}`, want: map[string]string{"/a~1b": "p1", "/c~0d/e~01~1f": "p1"}},
		{name: "empty", in: `{}`, want: map[string]string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			check(t, merge.Of(obj(t, tc.in), p1), tc.in, tc.want)
		})
	}
}

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{"plain": "plain", "a/b": "a~1b", "a~b": "a~0b", "~/": "~0~1", "~1": "~01", "": ""} {
		if got := merge.Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPatch checks RFC 7386 semantics and the provenance of every leaf.
func TestPatch(t *testing.T) {
	tests := []struct {
		name          string
		lower, higher string
		want          string
		prov          map[string]string
	}{
		{name: "disjoint fields", lower: `{"a": 1}`, higher: `{"b": 2}`, want: `{"a": 1, "b": 2}`,
			prov: map[string]string{"/a": "p1", "/b": "p2"}},
		{name: "scalar replaced", lower: `{"a": 1, "b": 1}`, higher: `{"a": 2}`, want: `{"a": 2, "b": 1}`,
			prov: map[string]string{"/a": "p2", "/b": "p1"}},
		{name: "nested objects merged", lower: `{"a": {"b": 1, "c": 2}}`, higher: `{"a": {"c": 3, "d": {"e": 4}}}`,
			want: `{"a": {"b": 1, "c": 3, "d": {"e": 4}}}`,
			prov: map[string]string{"/a/b": "p1", "/a/c": "p2", "/a/d/e": "p2"}},
		{name: "lists replaced whole", lower: `{"l": [1, 2, 3], "m": [{"x": 1}]}`, higher: `{"l": [4], "m": [{"y": 2}]}`,
			want: `{"l": [4], "m": [{"y": 2}]}`, prov: map[string]string{"/l": "p2", "/m": "p2"}},
		{name: "list replaced by an empty list", lower: `{"l": [1]}`, higher: `{"l": []}`, want: `{"l": []}`,
			prov: map[string]string{"/l": "p2"}},
		{name: "null deletes a field", lower: `{"a": 1, "b": 2}`, higher: `{"a": null}`, want: `{"b": 2}`,
			prov: map[string]string{"/b": "p1"}},
		{name: "null deletes a subtree", lower: `{"a": {"b": 1, "c": {"d": 2, "e": 3}}}`, higher: `{"a": {"c": null}}`,
			want: `{"a": {"b": 1}}`, prov: map[string]string{"/a/b": "p1"}},
		{name: "null on an absent field", lower: `{"a": 1}`, higher: `{"z": null}`, want: `{"a": 1}`,
			prov: map[string]string{"/a": "p1"}},
		{name: "nulls in a new object are dropped", lower: `{}`, higher: `{"a": {"b": null, "c": 1}}`, want: `{"a": {"c": 1}}`,
			prov: map[string]string{"/a/c": "p2"}},
		{name: "nulls inside a list are values", lower: `{}`, higher: `{"l": [null, {"a": null}]}`, want: `{"l": [null, {"a": null}]}`,
			prov: map[string]string{"/l": "p2"}},
		{name: "object replaces a scalar", lower: `{"a": 1}`, higher: `{"a": {"b": 2}}`, want: `{"a": {"b": 2}}`,
			prov: map[string]string{"/a/b": "p2"}},
		{name: "object replaces a list", lower: `{"a": [1]}`, higher: `{"a": {"b": 2}}`, want: `{"a": {"b": 2}}`,
			prov: map[string]string{"/a/b": "p2"}},
		{name: "scalar replaces an object", lower: `{"a": {"b": 1, "c": {"d": 2}}}`, higher: `{"a": 3}`, want: `{"a": 3}`,
			prov: map[string]string{"/a": "p2"}},
		{name: "empty object keeps the lower fields", lower: `{"a": {"b": 1}}`, higher: `{"a": {}}`, want: `{"a": {"b": 1}}`,
			prov: map[string]string{"/a/b": "p1"}},
		{name: "empty object leaf kept", lower: `{"a": {}}`, higher: `{"b": 1}`, want: `{"a": {}, "b": 1}`,
			prov: map[string]string{"/a": "p1", "/b": "p2"}},
		{name: "empty object leaf set by higher", lower: `{"a": {}}`, higher: `{"a": {}}`, want: `{"a": {}}`,
			prov: map[string]string{"/a": "p2"}},
		{name: "empty object leaf gains fields", lower: `{"a": {}}`, higher: `{"a": {"b": 1}}`, want: `{"a": {"b": 1}}`,
			prov: map[string]string{"/a/b": "p2"}},
		// The empty object left when higher deletes the last field is
		// higher's doing: it is a leaf and must have a source.
		{name: "deleting the last field leaves an empty object", lower: `{"a": {"b": 1}}`, higher: `{"a": {"b": null}}`,
			want: `{"a": {}}`, prov: map[string]string{"/a": "p2"}},
		{name: "object of nulls over nothing", lower: `{}`, higher: `{"a": {"b": null}}`, want: `{"a": {}}`,
			prov: map[string]string{"/a": "p2"}},
		{name: "escaped keys", lower: `{"a/b": {"c~d": 1, "e": 1}}`, higher: `{"a/b": {"c~d": 2}, "x~1": null}`,
			want: `{"a/b": {"c~d": 2, "e": 1}}`, prov: map[string]string{"/a~1b/c~0d": "p2", "/a~1b/e": "p1"}},
		{name: "a key that prefixes another", lower: `{"a": {"x": 1}, "ab": 1}`, higher: `{"a": 2}`,
			want: `{"a": 2, "ab": 1}`, prov: map[string]string{"/a": "p2", "/ab": "p1"}},
		{name: "both empty", lower: `{}`, higher: `{}`, want: `{}`, prov: map[string]string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lower, higher := merge.Of(obj(t, tc.lower), p1), merge.Of(obj(t, tc.higher), p2)
			got := merge.Patch(lower, higher)
			check(t, got, tc.want, tc.prov)
			// Values are shared between contexts: inputs stay unchanged.
			if jsonOf(lower.Values) != jsonOf(obj(t, tc.lower)) || jsonOf(higher.Values) != jsonOf(obj(t, tc.higher)) {
				t.Errorf("inputs modified: lower %s, higher %s", jsonOf(lower.Values), jsonOf(higher.Values))
			}
			if len(lower.Prov) != len(merge.Of(obj(t, tc.lower), p1).Prov) {
				t.Errorf("lower provenance modified: %v", provNames(lower.Prov))
			}
		})
	}
}

func TestPatchChain(t *testing.T) {
	a := merge.Of(obj(t, `{"a": 1, "o": {"x": 1, "y": 1}}`), p1)
	b := merge.Of(obj(t, `{"o": {"y": 2, "z": 2}}`), p2)
	c := merge.Of(obj(t, `{"a": 3, "o": {"x": null}}`), p3)
	check(t, merge.Patch(merge.Patch(a, b), c), `{"a": 3, "o": {"y": 2, "z": 2}}`,
		map[string]string{"/a": "p3", "/o/y": "p2", "/o/z": "p2"})
}

func TestAtomic(t *testing.T) {
	lower := merge.Of(obj(t, `{"a": 1, "b": {"c": 2}}`), p1)
	higher := merge.Of(obj(t, `{"b": {"d": 3}}`), p2)
	check(t, merge.Atomic(lower, higher), `{"b": {"d": 3}}`, map[string]string{"/b/d": "p2"})
}

func TestGet(t *testing.T) {
	m := obj(t, `{"a": {"b": [10, {"c": "x"}, [7]]}, "s/t": {"u~v": 1}, "n": null, "e": {},
		"r": [{"name": "a/b"}, {"name": 7}], "x[y": [{"name": "a"}]}`)
	tests := []struct {
		ptr  string
		want string // JSON of the value, "" when absent
	}{
		{ptr: "/a", want: `{"b":[10,{"c":"x"},[7]]}`},
		{ptr: "/a/b", want: `[10,{"c":"x"},[7]]`},
		{ptr: "/a/b/0", want: `10`},
		{ptr: "/a/b/1/c", want: `"x"`},
		{ptr: "/a/b/2/0", want: `7`},
		{ptr: "/a/b/3"},
		{ptr: "/a/b/-1"},
		{ptr: "/a/b/x"},
		{ptr: "/a/b/0/c"},
		{ptr: "/a/z"},
		{ptr: "/s~1t/u~0v", want: `1`},
		{ptr: "/s/t"},
		{ptr: "/n", want: `null`},
		{ptr: "/n/x"},
		{ptr: "/e", want: `{}`},
		// Items as MergeByKey names them in provenance.
		{ptr: "/a/b[c=x]", want: `{"c":"x"}`},
		{ptr: "/a/b[c=y]"},
		{ptr: "/a/b[c]"},
		{ptr: "/r[name=a~1b]", want: `{"name":"a/b"}`},
		{ptr: "/r[name=7]", want: `{"name":7}`},
		{ptr: "/x[y[name=a]", want: `{"name":"a"}`},
	}
	for _, tc := range tests {
		t.Run(tc.ptr, func(t *testing.T) {
			v, ok := merge.Get(m, tc.ptr)
			switch {
			case tc.want == "" && ok:
				t.Errorf("Get found %s, want nothing", jsonOf(v))
			case tc.want != "" && !ok:
				t.Errorf("Get found nothing, want %s", tc.want)
			case ok && jsonOf(v) != tc.want:
				t.Errorf("Get = %s, want %s", jsonOf(v), tc.want)
			}
		})
	}
}

func TestRestore(t *testing.T) {
	tests := []struct {
		name     string
		v        merge.Value
		from     merge.Value
		locked   []string
		want     string
		wantProv map[string]string
	}{
		{
			name: "locked leaf changed back", v: merge.Of(obj(t, `{"a": 2, "b": 3}`), p2),
			from: merge.Of(obj(t, `{"a": 1}`), p1), locked: []string{"/a"},
			want: `{"a": 1, "b": 3}`, wantProv: map[string]string{"/a": "p1", "/b": "p2"},
		},
		{
			name: "locked leaf deleted is put back", v: merge.Of(obj(t, `{"b": 3}`), p2),
			from: merge.Of(obj(t, `{"a": [1, 2]}`), p1), locked: []string{"/a"},
			want: `{"a": [1, 2], "b": 3}`, wantProv: map[string]string{"/a": "p1", "/b": "p2"},
		},
		{
			name: "nested locked leaf under a replaced object", v: merge.Of(obj(t, `{"o": 5}`), p2),
			from: merge.Of(obj(t, `{"o": {"x": 1, "y": 2}}`), p1), locked: []string{"/o/x"},
			want: `{"o": {"x": 1}}`, wantProv: map[string]string{"/o/x": "p1"},
		},
		{
			name: "nested locked leaf under an empty object", v: merge.Of(obj(t, `{"o": {}}`), p2),
			from: merge.Of(obj(t, `{"o": {"x": 1}}`), p1), locked: []string{"/o/x"},
			want: `{"o": {"x": 1}}`, wantProv: map[string]string{"/o/x": "p1"},
		},
		{
			name: "locked object leaf replaces what v put below it", v: merge.Of(obj(t, `{"o": {"x": 1}}`), p2),
			from: merge.Of(obj(t, `{"o": {}}`), p1), locked: []string{"/o"},
			want: `{"o": {}}`, wantProv: map[string]string{"/o": "p1"},
		},
		{
			name: "unlocked leaves keep v's values", v: merge.Of(obj(t, `{"a": 2, "b": 2}`), p2),
			from: merge.Of(obj(t, `{"a": 1, "b": 1}`), p1), locked: []string{"/b"},
			want: `{"a": 2, "b": 1}`, wantProv: map[string]string{"/a": "p2", "/b": "p1"},
		},
		{
			name: "locked pointer absent from from", v: merge.Of(obj(t, `{"a": 2}`), p2),
			from: merge.Of(obj(t, `{}`), p1), locked: []string{"/a"},
			want: `{"a": 2}`, wantProv: map[string]string{"/a": "p2"},
		},
		{
			name: "escaped pointer", v: merge.Of(obj(t, `{"x/y": {"a~b": 2}}`), p2),
			from: merge.Of(obj(t, `{"x/y": {"a~b": 1}}`), p1), locked: []string{"/x~1y/a~0b"},
			want: `{"x/y": {"a~b": 1}}`, wantProv: map[string]string{"/x~1y/a~0b": "p1"},
		},
		{
			name: "nothing locked", v: merge.Of(obj(t, `{"a": 2}`), p2),
			from: merge.Of(obj(t, `{"a": 1}`), p1),
			want: `{"a": 2}`, wantProv: map[string]string{"/a": "p2"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			locked := map[string]bool{}
			for _, p := range tc.locked {
				locked[p] = true
			}
			before := jsonOf(tc.v.Values)
			got := merge.Restore(tc.v, tc.from, locked)
			check(t, got, tc.want, tc.wantProv)
			if jsonOf(tc.v.Values) != before {
				t.Errorf("v modified in place: %s", jsonOf(tc.v.Values))
			}
		})
	}
}

func mustByKey(t *testing.T, key string) merge.Func {
	t.Helper()
	f, err := merge.MergeByKey(map[string]string{"key": key})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestMergeByKey(t *testing.T) {
	if _, err := merge.MergeByKey(nil); err == nil || !strings.Contains(err.Error(), "key") {
		t.Errorf("MergeByKey without key: err = %v", err)
	}
	tests := []struct {
		name          string
		lower, higher string
		want          string
		prov          map[string]string
	}{
		{
			name:   "items replaced by key, others kept, new appended",
			lower:  `{"rules": [{"name": "login", "limit": 1}, {"name": "api", "limit": 2}]}`,
			higher: `{"rules": [{"name": "new", "limit": 9}, {"name": "login", "limit": 5}]}`,
			want:   `{"rules": [{"name": "login", "limit": 5}, {"name": "api", "limit": 2}, {"name": "new", "limit": 9}]}`,
			prov:   map[string]string{"/rules[name=login]": "p2", "/rules[name=api]": "p1", "/rules[name=new]": "p2"},
		},
		{
			name:   "items replaced whole, not merged",
			lower:  `{"rules": [{"name": "login", "limit": 1, "burst": 3}]}`,
			higher: `{"rules": [{"name": "login", "limit": 5}]}`,
			want:   `{"rules": [{"name": "login", "limit": 5}]}`,
			prov:   map[string]string{"/rules[name=login]": "p2"},
		},
		{
			name:   "non-numeric and numeric keys",
			lower:  `{"ports": [{"port": 80, "x": 1}]}`,
			higher: `{"ports": [{"port": 80, "x": 2}, {"port": 443}]}`,
			want:   `{"ports": [{"port": 80, "x": 2}, {"port": 443}]}`,
			prov:   map[string]string{"/ports[port=80]": "p2", "/ports[port=443]": "p2"},
		},
		{
			name:   "keyed list over nothing",
			lower:  `{}`,
			higher: `{"rules": [{"name": "a"}]}`,
			want:   `{"rules": [{"name": "a"}]}`,
			prov:   map[string]string{"/rules[name=a]": "p2"},
		},
		{
			name:   "list without the key replaced whole",
			lower:  `{"l": [{"name": "a"}], "s": [1, 2]}`,
			higher: `{"l": [{"id": "b"}], "s": [3]}`,
			want:   `{"l": [{"id": "b"}], "s": [3]}`,
			prov:   map[string]string{"/l": "p2", "/s": "p2"},
		},
		{
			name:   "keyed list over an unkeyed one replaced whole",
			lower:  `{"l": [1, 2]}`,
			higher: `{"l": [{"name": "a"}]}`,
			want:   `{"l": [{"name": "a"}]}`,
			prov:   map[string]string{"/l": "p2"},
		},
		{
			name:   "keyed list over an object",
			lower:  `{"l": {"x": 1}}`,
			higher: `{"l": [{"name": "a"}]}`,
			want:   `{"l": [{"name": "a"}]}`,
			prov:   map[string]string{"/l[name=a]": "p2"},
		},
		{
			name:   "keyed list over a scalar",
			lower:  `{"l": 1}`,
			higher: `{"l": [{"name": "a"}]}`,
			want:   `{"l": [{"name": "a"}]}`,
			prov:   map[string]string{"/l[name=a]": "p2"},
		},
		{
			name:   "empty higher list replaces",
			lower:  `{"l": [{"name": "a"}]}`,
			higher: `{"l": []}`,
			want:   `{"l": []}`,
			prov:   map[string]string{"/l": "p2"},
		},
		{
			name:   "objects merged, scalars replaced, null deletes",
			lower:  `{"o": {"a": 1, "b": 2, "l": [{"name": "x"}]}, "s": 1}`,
			higher: `{"o": {"a": 3, "l": null}, "s": 2, "n": null}`,
			want:   `{"o": {"a": 3, "b": 2}, "s": 2}`,
			prov:   map[string]string{"/o/a": "p2", "/o/b": "p1", "/s": "p2"},
		},
		{
			name:   "nested keyed list",
			lower:  `{"spec": {"limits": [{"name": "a", "v": 1}, {"name": "b", "v": 1}]}}`,
			higher: `{"spec": {"limits": [{"name": "b", "v": 2}]}}`,
			want:   `{"spec": {"limits": [{"name": "a", "v": 1}, {"name": "b", "v": 2}]}}`,
			prov:   map[string]string{"/spec/limits[name=a]": "p1", "/spec/limits[name=b]": "p2"},
		},
		{
			name:   "empty object leaf gains fields",
			lower:  `{"o": {}}`,
			higher: `{"o": {"a": 1}}`,
			want:   `{"o": {"a": 1}}`,
			prov:   map[string]string{"/o/a": "p2"},
		},
		{
			name:   "empty object over nothing",
			lower:  `{}`,
			higher: `{"o": {}}`,
			want:   `{"o": {}}`,
			prov:   map[string]string{"/o": "p2"},
		},
		{
			name:   "deleting the last field leaves an empty object",
			lower:  `{"o": {"a": 1}}`,
			higher: `{"o": {"a": null}}`,
			want:   `{"o": {}}`,
			prov:   map[string]string{"/o": "p2"},
		},
		{
			name:   "item id escaped like a pointer segment",
			lower:  `{"routes": [{"name": "a/b~c", "v": 1}]}`,
			higher: `{"routes": [{"name": "a/b~c", "v": 2}]}`,
			want:   `{"routes": [{"name": "a/b~c", "v": 2}]}`,
			prov:   map[string]string{"/routes[name=a~1b~0c]": "p2"},
		},
		{
			name:   "escaped list key",
			lower:  `{"a/b": [{"name": "x", "v": 1}]}`,
			higher: `{"a/b": [{"name": "x", "v": 2}]}`,
			want:   `{"a/b": [{"name": "x", "v": 2}]}`,
			prov:   map[string]string{"/a~1b[name=x]": "p2"},
		},
	}
	f := mustByKey(t, "name")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key := "name"
			if strings.Contains(tc.lower+tc.higher, `"port"`) {
				key = "port"
			}
			fn := f
			if key != "name" {
				fn = mustByKey(t, key)
			}
			lower, higher := merge.Of(obj(t, tc.lower), p1), merge.Of(obj(t, tc.higher), p2)
			check(t, fn(lower, higher), tc.want, tc.prov)
			if jsonOf(lower.Values) != jsonOf(obj(t, tc.lower)) {
				t.Errorf("lower modified: %s", jsonOf(lower.Values))
			}
		})
	}
}

func TestMergeByKeyChain(t *testing.T) {
	f := mustByKey(t, "name")
	a := merge.Of(obj(t, `{"rules": [{"name": "a", "v": 1}, {"name": "b", "v": 1}, {"name": "c", "v": 1}]}`), p1)
	b := merge.Of(obj(t, `{"rules": [{"name": "b", "v": 2}]}`), p2)
	c := merge.Of(obj(t, `{"rules": [{"name": "c", "v": 3}, {"name": "d", "v": 3}]}`), p3)
	ab := f(a, b)
	check(t, f(ab, c), `{"rules": [{"name": "a", "v": 1}, {"name": "b", "v": 2}, {"name": "c", "v": 3}, {"name": "d", "v": 3}]}`,
		map[string]string{"/rules[name=a]": "p1", "/rules[name=b]": "p2", "/rules[name=c]": "p3", "/rules[name=d]": "p3"})
	// A merged value as the higher side keeps the sources of its items.
	check(t, f(merge.Of(obj(t, `{"rules": [{"name": "a", "v": 0}, {"name": "z"}]}`), p3), ab),
		`{"rules": [{"name": "a", "v": 1}, {"name": "z"}, {"name": "b", "v": 2}, {"name": "c", "v": 1}]}`,
		map[string]string{"/rules[name=a]": "p1", "/rules[name=z]": "p3", "/rules[name=b]": "p2", "/rules[name=c]": "p1"})
	// Patch over item sources replaces the list whole.
	check(t, merge.Patch(ab, merge.Of(obj(t, `{"rules": [{"name": "x"}]}`), p3)), `{"rules": [{"name": "x"}]}`,
		map[string]string{"/rules": "p3"})
}

// TestRestoreItems checks that an item locked by an override under
// MergeByKey is restored like any other leaf: its provenance pointer
// (/rules[name=login]) names the item, not a map key.
func TestRestoreItems(t *testing.T) {
	f := mustByKey(t, "name")
	// acc: the gateway's override set login; api came from a default.
	acc := f(merge.Of(obj(t, `{"rules": [{"name": "api", "v": 0}]}`), p3), merge.Of(obj(t, `{"rules": [{"name": "login", "v": 1}]}`), p1))
	tests := []struct {
		name   string
		v      merge.Value
		from   merge.Value // acc when unset
		want   string
		prov   map[string]string
		locked []string
	}{
		{
			name:   "item replaced by a more specific default is put back",
			v:      f(acc, merge.Of(obj(t, `{"rules": [{"name": "login", "v": 2}, {"name": "new", "v": 2}]}`), p2)),
			locked: []string{"/rules[name=login]"},
			want:   `{"rules": [{"name": "api", "v": 0}, {"name": "login", "v": 1}, {"name": "new", "v": 2}]}`,
			prov:   map[string]string{"/rules[name=api]": "p3", "/rules[name=login]": "p1", "/rules[name=new]": "p2"},
		},
		{
			name:   "item of a list deleted is put back",
			v:      f(acc, merge.Of(obj(t, `{"rules": null, "x": 1}`), p2)),
			locked: []string{"/rules[name=login]"},
			want:   `{"rules": [{"name": "login", "v": 1}], "x": 1}`,
			prov:   map[string]string{"/rules[name=login]": "p1", "/x": "p2"},
		},
		{
			name:   "item under an escaped id",
			v:      f(merge.Of(obj(t, `{"rules": [{"name": "a/b", "v": 1}]}`), p1), merge.Of(obj(t, `{"rules": [{"name": "a/b", "v": 2}]}`), p2)),
			locked: []string{"/rules[name=a~1b]"},
			from:   f(merge.Of(obj(t, `{}`), p3), merge.Of(obj(t, `{"rules": [{"name": "a/b", "v": 1}]}`), p1)),
			want:   `{"rules": [{"name": "a/b", "v": 1}]}`,
			prov:   map[string]string{"/rules[name=a~1b]": "p1"},
		},
		{
			name:   "item of a list replaced whole is put back",
			v:      merge.Atomic(acc, merge.Of(obj(t, `{"rules": [{"name": "login", "v": 2}, {"name": "b"}]}`), p2)),
			locked: []string{"/rules[name=login]"},
			want:   `{"rules": [{"name": "login", "v": 1}, {"name": "b"}]}`,
			prov:   map[string]string{"/rules[name=login]": "p1", "/rules[name=b]": "p2"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			locked := map[string]bool{}
			for _, p := range tc.locked {
				locked[p] = true
			}
			from := tc.from
			if from.Values == nil {
				from = acc
			}
			check(t, merge.Restore(tc.v, from, locked), tc.want, tc.prov)
		})
	}
}

func TestRegistryFuncs(t *testing.T) {
	r := merge.DefaultRegistry()
	funcs, err := r.Funcs(map[string]merge.Custom{"RuleMerge": {Function: "mergeByKey", Parameters: map[string]string{"key": "name"}}})
	if err != nil {
		t.Fatal(err)
	}
	if funcs["RuleMerge"] == nil {
		t.Errorf("no func for RuleMerge")
	}
	if _, err := r.Funcs(map[string]merge.Custom{"RuleMerge": {Function: "nope"}}); err == nil || !strings.Contains(err.Error(), `"nope" is not registered`) {
		t.Errorf("unregistered function: err = %v", err)
	}
	if _, err := r.Funcs(map[string]merge.Custom{"RuleMerge": {Function: "mergeByKey"}}); err == nil || !strings.Contains(err.Error(), "key is required") {
		t.Errorf("missing parameter: err = %v", err)
	}
}

// TestBelow: a pointer is below another when it names a field of it or an
// item of the list there as MergeByKey writes them; a sibling key that
// merely contains "[" (RFC 6901 gives it no meaning) is not (issue 11,
// spec corners: keys with "[", "/", "~" or "." keep their provenance).
func TestBelow(t *testing.T) {
	for _, c := range []struct {
		q, p string
		want bool
	}{
		{"/a/b", "/a", true},
		{"/a", "/a", false},
		{"/ab", "/a", false},
		{"/rules[name=login]", "/rules", true},
		{"/rules[name=login]/rate", "/rules", true},
		{"/rules[name=a~1b]", "/rules", true},
		{"/l[0]", "/l", false},
		{"/l[]", "/l", false},
		{"/l[=x]", "/l", false},
		{"/l[0]/x", "/l", false},
		{"/a~1b/c", "/a~1b", true},
		{"/a~1b", "/a", false},
	} {
		if got := merge.Below(c.q, c.p); got != c.want {
			t.Errorf("Below(%q, %q) = %v, want %v", c.q, c.p, got, c.want)
		}
	}
}

// TestPatchKeepsKeysWithBrackets: replacing list /l leaves the source of
// sibling key "l[0]" alone.
func TestPatchKeepsKeysWithBrackets(t *testing.T) {
	gw, route := &source{Name: "gw"}, &source{Name: "route"}
	got := merge.Patch(merge.Of(map[string]any{"l": "gw", "l[0]": "gw", "x.y": "gw"}, gw), merge.Of(map[string]any{"l": "route"}, route))
	want := map[string]merge.Source{"/l": route, "/l[0]": gw, "/x.y": gw}
	if len(got.Prov) != len(want) {
		t.Errorf("provenance %v, want %v", got.Prov, want)
	}
	for p, s := range want {
		if got.Prov[p] != s {
			t.Errorf("%s set by %v, want %v", p, got.Prov[p], s)
		}
	}
}
