package files

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// readCareful reads an input as Read did before its quick paths: JSON
// streams validated as they are split, Lists through one generic map.
func readCareful(in []byte) (*Result, error) {
	items, err, _ := readItems([]input{{file: "-", b: in}}, false)
	if err != nil {
		return nil, err
	}
	return assemble(items, "")
}

// readQuick reads an input as Read does, and says whether the quick read
// sufficed (ok) or the input was read again the careful way.
func readQuick(in []byte) (res *Result, err error, ok bool) {
	items, err, ok := readItems([]input{{file: "-", b: in}}, true)
	if !ok || err != nil {
		return nil, err, ok
	}
	res, err = assemble(items, "")
	return res, err, ok
}

// quickLists are Lists and JSON streams of every shape the quick paths
// meet, good and bad; quick says whether the quick path is expected to
// take it: for JSON, whether the quick read suffices (false: it hands the
// input to the careful read); for YAML, whether parseListQuick takes the
// List (false: parse reads it the careful way).
var quickLists = []struct {
	name, doc string
	quick     bool
}{
	// JSON.
	{"json: one object", `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "namespace": "app"}, "spec": {"ports": [{"port": 80, "targetPort": "http"}]}}`, true},
	{"json: objects one after the other", `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "namespace": "app"}}{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "app"}}` + "\n" + `{"apiVersion": "policies.example.com/v1", "kind": "ColorPolicy", "metadata": {"name": "p", "namespace": "app"}, "spec": {"targetRef": {"kind": "Namespace", "name": "app"}, "ratio": 0.5}}`, true},
	{"json: List, typed items, policies, ignored kinds", `{"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": [
		{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway", "metadata": {"name": "gw", "namespace": "infra", "creationTimestamp": "2024-01-02T03:04:05Z"}, "spec": {"gatewayClassName": "gc", "listeners": [{"name": "http", "port": 80, "protocol": "HTTP"}]}},
		{"apiVersion": "policies.example.com/v1", "kind": "ColorPolicy", "metadata": {"name": "p", "namespace": "infra"}, "spec": {"targetRef": {"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "gw"}, "weight": 1e2, "big": 123456789012345678901234, "neg": -0}},
		{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "infra"}},
		{"apiVersion": "strata.dev/v1alpha1", "kind": "PolicyKind", "metadata": {"name": "colorpolicies.policies.example.com"}, "spec": {"group": "policies.example.com", "kind": "ColorPolicy"}}
	]}`, true},
	{"json: List of no items", `{"apiVersion": "v1", "kind": "List", "items": []}`, true},
	{"json: List then YAML", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}]}` + "\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n", true},
	{"json: strings with escapes", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a\u0062", "namespace": "app", "annotations": {"x": "<\"\\\n\u00e9>"}}}]}`, true},
	{"json: a float where an integer goes", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "namespace": "app"}, "spec": {"ports": [{"port": 80.0, "targetPort": 8080.0}]}}]}`, true},
	{"json: an integer too big for its field", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "namespace": "app"}, "spec": {"ports": [{"port": 99999999999999999999}]}}]}`, true},
	{"json: managedFields keep their text", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "namespace": "app", "managedFields": [{"manager": "m", "operation": "Apply", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {}, "f:metadata": {"f:labels": {".": {}}}}}]}}]}`, true},
	{"json: typed item that does not decode", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "b", "namespace": "app"}, "spec": {"ports": 80}}]}`, true},
	{"json: typed item without a name", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Service", "metadata": {"namespace": "app"}}]}`, true},
	{"json: typed item with a bad creationTimestamp", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "namespace": "app", "creationTimestamp": "yesterday"}}]}`, true},
	{"json: PolicyKind with an unknown field", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "strata.dev/v1alpha1", "kind": "PolicyKind", "metadata": {"name": "x"}, "spec": {"group": "g", "kind": "K", "targetKind": 1, "Class": "Direct"}}]}`, true},
	{"json: the same object twice", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}]}`, true},
	{"json: metadata in another case", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Service", "metAdAtA": {"name": "a"}}]}`, true},
	{"json: metadata.name in another case", `{"apiVersion": "v1", "kind": "Service", "metadata": {"nAme": "a"}}`, true},
	{"json: metadata.creationTimestamp in another case", `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "creationTimeStamp": "yesterday"}}`, true},
	{"json: an object with items that is no List", `{"apiVersion": "example.com/v1", "kind": "Basket", "metadata": {"name": "b"}, "items": [1, 2]}`, true},
	{"json: items null", `{"apiVersion": "v1", "kind": "List", "items": null}`, false},
	{"json: items an object", `{"apiVersion": "v1", "kind": "List", "items": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}}`, false},
	{"json: item that is not an object", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}, 1]}`, false},
	{"json: item without a kind", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "metadata": {"name": "a"}}]}`, false},
	{"json: item with an empty apiVersion", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "", "kind": "Namespace", "metadata": {"name": "a"}}]}`, false},
	{"json: item whose kind is not a string", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": 1, "metadata": {"name": "a"}}]}`, false},
	{"json: List without apiVersion", `{"kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}]}`, false},
	{"json: List inside a List", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}]}]}`, false},
	{"json: a key twice in an item", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a", "name": "b"}}]}`, false},
	{"json: a key twice in the List", `{"apiVersion": "v1", "kind": "List", "items": [], "kind": "List"}`, false},
	{"json: keys equal but for case", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a", "Name": "b"}}]}`, false},
	{"json: an escaped key", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"n\u0061me": "a"}}]}`, false},
	{"json: invalid in an item", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": tru}}]}`, false},
	{"json: invalid in the List", `{"apiVersion": "v1", "kind": "List", "metadata": {"a": tru}, "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}]}`, false},
	{"json: a trailing comma", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}},]}`, true},
	{"json: garbage after the List", `{"apiVersion": "v1", "kind": "List", "items": []} garbage`, true},
	{"json: an array after an object", `{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}} [1]`, true},
	{"json: unbalanced", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1"]}`, true},
	// YAML.
	{"yaml: kubectl style", "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata:\n    name: a\n    namespace: app\n- apiVersion: policies.example.com/v1\n  kind: ColorPolicy\n  metadata:\n    name: p\n    namespace: app\n  spec:\n    targetRef: {kind: Namespace, name: app}\n    ratio: 0.5\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: d\nkind: List\nmetadata:\n  resourceVersion: \"\"\n", true},
	{"yaml: indented entries", "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Namespace\n    metadata: {name: a}\n  - apiVersion: v1\n    kind: ConfigMap\n    data: {k: v}\n", true},
	{"yaml: block scalars", "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: a\n    annotations:\n      script: |\n        # not a comment\n\n        echo hi\n# a real comment\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: b\nkind: List\n", true},
	{"yaml: a float where an integer goes", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: a, namespace: app}\n  spec:\n    ports:\n    - port: 80.0\n", true},
	{"yaml: typed item that does not decode", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: a\n- apiVersion: v1\n  kind: Service\n  metadata:\n    name: b\n  spec:\n    ports: 80\n", true},
	{"yaml: metadata.name in another case", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata:\n    Name: a\n", true},
	{"yaml: metadata in another case", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n  Metadata:\n    name: a\n", true},
	{"yaml: typed item without a name", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata:\n    namespace: app\n", true},
	{"yaml: item with an empty apiVersion", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: ''\n  kind: Namespace\n  metadata:\n    name: a\n", false},
	{"yaml: item that is not an object", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: a\n- 1\n", false},
	{"yaml: item without a kind", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  metadata:\n    name: a\n", false},
	{"yaml: List inside a List", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  - apiVersion: v1\n    kind: Namespace\n    metadata: {name: a}\n", false},
	{"yaml: anchors across items", "apiVersion: v1\nitems:\n- &s\n  apiVersion: v1\n  kind: Namespace\n  metadata: {name: a}\n- *s\nkind: List\n", false},
	{"yaml: a key twice in an item", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: a\n    name: b\n", false},
	{"yaml: List without apiVersion", "kind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: a}\n", false},
	{"yaml: not a List", "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\nitems:\n- x\n", false},
}

// TestReadQuick: the quick paths of Read (JSON split without validating
// first, Lists read item by item into their typed objects) read every
// input as the careful paths do: the same result, or the same error.
func TestReadQuick(t *testing.T) {
	for _, tc := range quickLists {
		t.Run(tc.name, func(t *testing.T) {
			want, wantErr := readCareful([]byte(tc.doc))
			got, gotErr, ok := readQuick([]byte(tc.doc))
			quick := ok
			if strings.HasPrefix(tc.name, "yaml") {
				var tr transcoder
				_, quick = tr.parseListQuick(rawDocument{file: "-", index: 1, line: 1, raw: []byte(tc.doc)})
			}
			if quick != tc.quick {
				t.Errorf("quick path took it: %v, want %v (error %v)", quick, tc.quick, gotErr)
			}
			if !ok {
				return // Read reads it again the careful way
			}
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("error\n got %v\nwant %v", gotErr, wantErr)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("differs from the careful read (-want +got):\n%s", d)
			}
		})
	}
}

// TestReadQuickLists: the quick paths take the Lists of the examples, of
// the test data and of a synthetic world, in JSON and YAML and JSON
// indented as kubectl writes it, and read them as the careful paths do.
func TestReadQuickLists(t *testing.T) {
	docs, err := Documents([]string{"../../../examples/parable", "testdata/multi.yaml", "testdata/crd.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	items := make([]any, len(docs))
	for i, d := range docs {
		items[i] = d.Object.Object
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}, "items": items}
	js, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	indented, err := json.MarshalIndent(list, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	ys, err := yaml.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	var stream bytes.Buffer // one object a line
	enc := json.NewEncoder(&stream)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			t.Fatal(err)
		}
	}
	for name, doc := range map[string][]byte{"json": js, "indented json": indented, "yaml": ys, "json stream": stream.Bytes()} {
		t.Run(name, func(t *testing.T) {
			want, wantErr := readCareful(doc)
			if wantErr != nil {
				t.Fatal(wantErr)
			}
			got, gotErr, ok := readQuick(doc)
			if !ok || gotErr != nil {
				t.Fatalf("quick read sufficed: %v, error %v", ok, gotErr)
			}
			if name == "yaml" {
				var tr transcoder
				if _, ok := tr.parseListQuick(rawDocument{file: "-", index: 1, line: 1, raw: doc}); !ok {
					t.Errorf("parseListQuick did not take the List")
				}
			}
			n := len(got.Places)
			for _, c := range got.Ignored {
				n += c
			}
			if n != len(docs) {
				t.Errorf("%d objects read or ignored, want %d", n, len(docs))
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("differs from the careful read (-want +got):\n%s", d)
			}
		})
	}
}

// FuzzReadQuick: whatever the input, the quick read gives the careful
// read's result and error, or hands the input to the careful read.
func FuzzReadQuick(f *testing.F) {
	for _, tc := range quickLists {
		f.Add(tc.doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		got, gotErr, ok := readQuick([]byte(doc))
		if !ok {
			return
		}
		want, wantErr := readCareful([]byte(doc))
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("error\n got %v\nwant %v", gotErr, wantErr)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("differs from the careful read (-want +got):\n%s", d)
		}
	})
}

// FuzzReadTwice: reading the same input gives the same objects, or the
// same error, every time. Go randomizes map order, so a reading that
// depends on it shows here within a few reads: sigs.k8s.io/yaml kept
// either value of the keys 09 and 0011, which are one JSON key
// (pkg/source/yamljson).
func FuzzReadTwice(f *testing.F) {
	for _, tc := range quickLists {
		f.Add(tc.doc)
	}
	f.Add("apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  labels:\n    09: a\n    0011: b\n")
	f.Add("apiVersion: v1\nkind: Namespace\nmetadata: {name: x, labels: {1: a, 1.0: b, '1': c}}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: y}\n")
	f.Fuzz(func(t *testing.T, doc string) {
		read := func() (*Result, string) {
			res, err := ReadIn([]string{"-"}, strings.NewReader(doc), "")
			return res, fmt.Sprint(err)
		}
		first, firstErr := read()
		for range 4 {
			again, err := read()
			if err != firstErr {
				t.Fatalf("error %s, then %s", firstErr, err)
			}
			if d := cmp.Diff(first, again); d != "" {
				t.Fatalf("read differently (-first +again):\n%s", d)
			}
		}
	})
}
