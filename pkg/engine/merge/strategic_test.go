package merge_test

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/strata-dev/strata/pkg/engine/merge"
)

// spec is a test schema for strategic merge: rules are merged by name,
// codes as a set of scalars, hosts replaced whole.
type spec struct {
	Rules   []rule         `json:"rules,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	Codes   []int64        `json:"codes,omitempty" patchStrategy:"merge"`
	Hosts   []string       `json:"hosts,omitempty"`
	Timeout map[string]any `json:"timeout,omitempty"`
	Retry   map[string]any `json:"retry,omitempty"`
}

type rule struct {
	Name  string `json:"name"`
	Limit int64  `json:"limit,omitempty"`
}

// TestStrategicMerge pins the strategic merge of a more specific
// policy's spec (higher) into a less specific one (lower), and who set
// each leaf of the result.
func TestStrategicMerge(t *testing.T) {
	meta, err := strategicpatch.NewPatchMetaFromStruct(spec{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name          string
		meta          strategicpatch.LookupPatchMeta
		lower, higher string
		want          string
		wantProv      map[string]string
	}{
		{name: "objects merged field by field", meta: meta,
			lower:  `{"timeout": {"request": "10s", "idle": "5s"}}`,
			higher: `{"timeout": {"request": "3s"}, "retry": {"attempts": 3}}`,
			want:   `{"timeout": {"request": "3s", "idle": "5s"}, "retry": {"attempts": 3}}`,
			wantProv: map[string]string{
				"/timeout/request": "p2", "/timeout/idle": "p1", "/retry/attempts": "p2"}},
		{name: "lists merged by key, items tracked", meta: meta,
			lower:  `{"rules": [{"name": "api", "limit": 10}, {"name": "login", "limit": 5}]}`,
			higher: `{"rules": [{"name": "login", "limit": 1}, {"name": "admin", "limit": 2}]}`,
			want:   `{"rules": [{"name": "api", "limit": 10}, {"name": "login", "limit": 1}, {"name": "admin", "limit": 2}]}`,
			wantProv: map[string]string{
				"/rules[name=api]": "p1", "/rules[name=login]": "p2", "/rules[name=admin]": "p2"}},
		{name: "a set of scalars is the union, changed last by higher", meta: meta,
			lower:    `{"codes": [500, 502], "hosts": ["a"]}`,
			higher:   `{"codes": [503], "hosts": ["b"]}`,
			want:     `{"codes": [503, 500, 502], "hosts": ["b"]}`,
			wantProv: map[string]string{"/codes": "p2", "/hosts": "p2"}},
		{name: "directives: delete an item, null deletes a field", meta: meta,
			lower:    `{"rules": [{"name": "api", "limit": 10}, {"name": "login", "limit": 5}], "timeout": {"idle": "5s"}}`,
			higher:   `{"rules": [{"name": "api", "$patch": "delete"}], "timeout": null}`,
			want:     `{"rules": [{"name": "login", "limit": 5}]}`,
			wantProv: map[string]string{"/rules[name=login]": "p1"}},
		{name: "no schema: lists replaced whole, as RFC 7386", meta: nil,
			lower:    `{"rules": [{"name": "api"}], "timeout": {"idle": "5s"}}`,
			higher:   `{"rules": [{"name": "login"}], "timeout": {"request": "1s"}}`,
			want:     `{"rules": [{"name": "login"}], "timeout": {"idle": "5s", "request": "1s"}}`,
			wantProv: map[string]string{"/rules": "p2", "/timeout/idle": "p1", "/timeout/request": "p2"}},
		{name: "no schema, list keys declared: those lists merged by key", meta: merge.WithListKeys(nil, map[string]string{"rules": "name", "ext.contexts": "name"}),
			lower:  `{"rules": [{"name": "api"}], "ext": {"contexts": [{"name": "a", "v": 1}], "hosts": ["x"]}}`,
			higher: `{"rules": [{"name": "login"}], "ext": {"contexts": [{"name": "a", "v": 2}, {"name": "b"}], "hosts": ["y"]}}`,
			want:   `{"rules": [{"name": "login"}, {"name": "api"}], "ext": {"contexts": [{"name": "a", "v": 2}, {"name": "b"}], "hosts": ["y"]}}`,
			wantProv: map[string]string{"/rules[name=api]": "p1", "/rules[name=login]": "p2",
				"/ext/contexts[name=a]": "p2", "/ext/contexts[name=b]": "p2", "/ext/hosts": "p2"}},
		{name: "list keys beside a schema", meta: merge.WithListKeys(meta, map[string]string{"hosts": "name"}),
			lower:    `{"rules": [{"name": "api"}], "hosts": [{"name": "x"}]}`,
			higher:   `{"rules": [{"name": "login"}], "hosts": [{"name": "y"}]}`,
			want:     `{"rules": [{"name": "login"}, {"name": "api"}], "hosts": [{"name": "y"}, {"name": "x"}]}`,
			wantProv: map[string]string{"/rules[name=api]": "p1", "/rules[name=login]": "p2", "/hosts[name=x]": "p1", "/hosts[name=y]": "p2"}},
		{name: "a patch strategicpatch refuses is merged as RFC 7386", meta: meta,
			lower:    `{"rules": [{"name": "api"}]}`,
			higher:   `{"rules": [{"limit": 1}]}`,
			want:     `{"rules": [{"limit": 1}]}`,
			wantProv: map[string]string{"/rules": "p2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lower, higher := obj(t, tt.lower), obj(t, tt.higher)
			lowerJSON, higherJSON := jsonOf(lower), jsonOf(higher)
			got := merge.StrategicMerge(tt.meta)(merge.Of(lower, p1), merge.Of(higher, p2))
			check(t, got, tt.want, tt.wantProv)
			if jsonOf(lower) != lowerJSON || jsonOf(higher) != higherJSON {
				t.Errorf("the merge changed its inputs")
			}
		})
	}
}

// TestStrategicMergeKeepsItemSources merges a third policy into a value
// whose items two policies set: the items higher does not name keep
// their own sources.
func TestStrategicMergeKeepsItemSources(t *testing.T) {
	meta, err := strategicpatch.NewPatchMetaFromStruct(spec{})
	if err != nil {
		t.Fatal(err)
	}
	smp := merge.StrategicMerge(meta)
	v := smp(merge.Of(obj(t, `{"rules": [{"name": "api"}]}`), p1), merge.Of(obj(t, `{"rules": [{"name": "login"}]}`), p2))
	v = smp(v, merge.Of(obj(t, `{"retry": {"attempts": 2}}`), p3))
	check(t, v, `{"rules": [{"name": "login"}, {"name": "api"}], "retry": {"attempts": 2}}`,
		map[string]string{"/rules[name=api]": "p1", "/rules[name=login]": "p2", "/retry/attempts": "p3"})
}

// FuzzStrategicMerge checks that a strategic merge never changes its
// inputs and that its provenance names exactly the leaves of the result
// (a list merged by key through its items), each set by one of the two
// sources.
func FuzzStrategicMerge(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"rules": [{"name": "a", "limit": 1}]}`, `{"rules": [{"name": "b"}]}`},
		{`{"codes": [1, 2], "hosts": ["x"]}`, `{"codes": [3], "hosts": null}`},
		{`{"timeout": {"a": "1"}}`, `{"timeout": {"$patch": "replace", "b": "2"}}`},
		{`{"rules": [{"name": "a"}]}`, `{"rules": [{"name": "a", "$patch": "delete"}], "retry": {}}`},
		{`{"rules": 5}`, `{"rules": [{"limit": 1}]}`},
	} {
		f.Add([]byte(seed[0]), []byte(seed[1]))
	}
	meta, err := strategicpatch.NewPatchMetaFromStruct(spec{})
	if err != nil {
		f.Fatal(err)
	}
	smp := merge.StrategicMerge(meta)
	f.Fuzz(func(t *testing.T, docA, docB []byte) {
		var a, b map[string]any
		if json.Unmarshal(docA, &a) != nil || a == nil || json.Unmarshal(docB, &b) != nil || b == nil {
			return
		}
		aCopy, bCopy := jsonOf(a), jsonOf(b)
		got := smp(merge.Of(a, p1), merge.Of(b, p2))
		if jsonOf(a) != aCopy || jsonOf(b) != bCopy {
			t.Fatalf("StrategicMerge modified its inputs")
		}
		leaves := map[string]bool{}
		merge.Leaves(got.Values, "", func(ptr string) { leaves[ptr] = true })
		for ptr := range leaves {
			if _, ok := got.Prov[ptr]; ok {
				continue
			}
			covered := false
			for q := range got.Prov {
				covered = covered || merge.Below(q, ptr)
			}
			if !covered {
				t.Fatalf("StrategicMerge(%s, %s): leaf %s has no provenance", docA, docB, ptr)
			}
		}
		for ptr, src := range got.Prov {
			if src != p1 && src != p2 {
				t.Fatalf("StrategicMerge(%s, %s): %s set by %v", docA, docB, ptr, src)
			}
			if leaves[ptr] {
				continue
			}
			item := false
			for l := range leaves {
				item = item || merge.Below(ptr, l)
			}
			if !item {
				t.Fatalf("StrategicMerge(%s, %s): provenance for %s, which is not a leaf of %s", docA, docB, ptr, jsonOf(got.Values))
			}
		}
	})
}
