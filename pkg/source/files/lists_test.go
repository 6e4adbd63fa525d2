package files

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// lists are Lists and JSON streams of every shape, good and bad.
var lists = []struct{ name, doc string }{
	// JSON.
	{"json: one object", `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "namespace": "app"}, "spec": {"ports": [{"port": 80, "targetPort": "http"}]}}`},
	{"json: objects one after the other", `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "namespace": "app"}}{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "app"}}` + "\n" + `{"apiVersion": "policies.example.com/v1", "kind": "ColorPolicy", "metadata": {"name": "p", "namespace": "app"}, "spec": {"targetRef": {"kind": "Namespace", "name": "app"}, "ratio": 0.5}}`},
	{"json: List, typed items, policies, ignored kinds", `{"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": [
		{"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway", "metadata": {"name": "gw", "namespace": "infra", "creationTimestamp": "2024-01-02T03:04:05Z"}, "spec": {"gatewayClassName": "gc", "listeners": [{"name": "http", "port": 80, "protocol": "HTTP"}]}},
		{"apiVersion": "policies.example.com/v1", "kind": "ColorPolicy", "metadata": {"name": "p", "namespace": "infra"}, "spec": {"targetRef": {"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "gw"}, "weight": 1e2, "big": 123456789012345678901234, "neg": -0}},
		{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "infra"}},
		{"apiVersion": "strata.dev/v1alpha1", "kind": "PolicyKind", "metadata": {"name": "colorpolicies.policies.example.com"}, "spec": {"group": "policies.example.com", "kind": "ColorPolicy"}}
	]}`},
	{"json: List of no items", `{"apiVersion": "v1", "kind": "List", "items": []}`},
	{"json: List then YAML", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}]}` + "\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n"},
	{"json: strings with escapes", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a\u0062", "namespace": "app", "annotations": {"x": "<\"\\\n\u00e9>"}}}]}`},
	{"json: a float where an integer goes", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "namespace": "app"}, "spec": {"ports": [{"port": 80.0, "targetPort": 8080.0}]}}]}`},
	{"json: an integer too big for its field", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "namespace": "app"}, "spec": {"ports": [{"port": 99999999999999999999}]}}]}`},
	{"json: managedFields keep their text", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "namespace": "app", "managedFields": [{"manager": "m", "operation": "Apply", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {}, "f:metadata": {"f:labels": {".": {}}}}}]}}]}`},
	{"json: typed item that does not decode", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "b", "namespace": "app"}, "spec": {"ports": 80}}]}`},
	{"json: typed item without a name", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Service", "metadata": {"namespace": "app"}}]}`},
	{"json: typed item with a bad creationTimestamp", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "namespace": "app", "creationTimestamp": "yesterday"}}]}`},
	{"json: PolicyKind with an unknown field", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "strata.dev/v1alpha1", "kind": "PolicyKind", "metadata": {"name": "x"}, "spec": {"group": "g", "kind": "K", "targetKind": 1, "Class": "Direct"}}]}`},
	{"json: the same object twice", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}]}`},
	{"json: metadata in another case", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Service", "metAdAtA": {"name": "a"}}]}`},
	{"json: metadata.name in another case", `{"apiVersion": "v1", "kind": "Service", "metadata": {"nAme": "a"}}`},
	{"json: metadata.creationTimestamp in another case", `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "a", "creationTimeStamp": "yesterday"}}`},
	{"json: an object with items that is no List", `{"apiVersion": "example.com/v1", "kind": "Basket", "metadata": {"name": "b"}, "items": [1, 2]}`},
	{"json: items null", `{"apiVersion": "v1", "kind": "List", "items": null}`},
	{"json: items an object", `{"apiVersion": "v1", "kind": "List", "items": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}}`},
	{"json: item that is not an object", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}, 1]}`},
	{"json: item without a kind", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "metadata": {"name": "a"}}]}`},
	{"json: item with an empty apiVersion", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "", "kind": "Namespace", "metadata": {"name": "a"}}]}`},
	{"json: item whose kind is not a string", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": 1, "metadata": {"name": "a"}}]}`},
	{"json: List without apiVersion", `{"kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}]}`},
	{"json: List inside a List", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}]}]}`},
	{"json: a key twice in an item", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a", "name": "b"}}]}`},
	{"json: a key twice in the List", `{"apiVersion": "v1", "kind": "List", "items": [], "kind": "List"}`},
	{"json: keys equal but for case", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a", "Name": "b"}}]}`},
	{"json: an escaped key", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"n\u0061me": "a"}}]}`},
	{"json: invalid in an item", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": tru}}]}`},
	{"json: invalid in the List", `{"apiVersion": "v1", "kind": "List", "metadata": {"a": tru}, "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}]}`},
	{"json: a trailing comma", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}},]}`},
	{"json: garbage after the List", `{"apiVersion": "v1", "kind": "List", "items": []} garbage`},
	{"json: an array after an object", `{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}} [1]`},
	{"json: unbalanced", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1"]}`},
	// YAML.
	{"yaml: kubectl style", "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata:\n    name: a\n    namespace: app\n- apiVersion: policies.example.com/v1\n  kind: ColorPolicy\n  metadata:\n    name: p\n    namespace: app\n  spec:\n    targetRef: {kind: Namespace, name: app}\n    ratio: 0.5\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: d\nkind: List\nmetadata:\n  resourceVersion: \"\"\n"},
	{"yaml: indented entries", "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Namespace\n    metadata: {name: a}\n  - apiVersion: v1\n    kind: ConfigMap\n    data: {k: v}\n"},
	{"yaml: block scalars", "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: a\n    annotations:\n      script: |\n        # not a comment\n\n        echo hi\n# a real comment\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: b\nkind: List\n"},
	{"yaml: a float where an integer goes", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: a, namespace: app}\n  spec:\n    ports:\n    - port: 80.0\n"},
	{"yaml: typed item that does not decode", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: a\n- apiVersion: v1\n  kind: Service\n  metadata:\n    name: b\n  spec:\n    ports: 80\n"},
	{"yaml: metadata.name in another case", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata:\n    Name: a\n"},
	{"yaml: metadata in another case", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n  Metadata:\n    name: a\n"},
	{"yaml: typed item without a name", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata:\n    namespace: app\n"},
	{"yaml: item with an empty apiVersion", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: ''\n  kind: Namespace\n  metadata:\n    name: a\n"},
	{"yaml: an empty apiVersion", "apiVersion: ''\nkind: Namespace\nmetadata:\n  name: a\n"},
	{"yaml: item that is not an object", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: a\n- 1\n"},
	{"yaml: item without a kind", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  metadata:\n    name: a\n"},
	{"yaml: List inside a List", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  - apiVersion: v1\n    kind: Namespace\n    metadata: {name: a}\n"},
	{"yaml: anchors across items", "apiVersion: v1\nitems:\n- &s\n  apiVersion: v1\n  kind: Namespace\n  metadata: {name: a}\n- *s\nkind: List\n"},
	{"yaml: a key twice in an item", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: a\n    name: b\n"},
	{"yaml: List without apiVersion", "kind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: a}\n"},
	{"yaml: not a List", "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\nitems:\n- x\n"},
}

// TestReadLists: Read reads every List and stream as Decode reads its
// Documents: the same result, or the same error.
func TestReadLists(t *testing.T) {
	for _, tc := range lists {
		t.Run(tc.name, func(t *testing.T) {
			got, gotErr := Read([]string{"-"}, strings.NewReader(tc.doc))
			var want *Result
			docs, wantErr := Documents([]string{"-"}, strings.NewReader(tc.doc))
			if wantErr == nil {
				want, wantErr = Decode(docs)
			}
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("error\n got %v\nwant %v", gotErr, wantErr)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("differs from Decode of its documents (-want +got):\n%s", d)
			}
			quickIsSplit(t, tc.doc)
		})
	}
}

// quickIsSplit fails t unless the documents of doc, as Documents reads
// them (on the fast path where it can), are those that split reads,
// with the same error.
func quickIsSplit(t *testing.T, doc string) {
	t.Helper()
	got, gotErr := Documents([]string{"-"}, strings.NewReader(doc))
	var want []Document
	var wantErr error
	for _, r := range splitInput(nil, "-", []byte(doc)) {
		if r.err != nil {
			wantErr = r.err
			break
		}
		docs, err := split(r)
		if err != nil {
			wantErr = err
			break
		}
		want = append(want, docs...)
	}
	if wantErr != nil {
		want = nil
	}
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("error\n got %v\nwant %v", gotErr, wantErr)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("differs from split's documents (-want +got):\n%s", d)
	}
}

// FuzzReadTwice: reading the same input gives the same objects, or the
// same error, every time, and the fast path reads documents as split
// does. Go randomizes map order, so a reading that
// depends on it shows here within a few reads: sigs.k8s.io/yaml kept
// either value of the keys 09 and 0011, which are one JSON key
// (pkg/source/yamljson).
func FuzzReadTwice(f *testing.F) {
	for _, tc := range lists {
		f.Add(tc.doc)
	}
	f.Add("apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  labels:\n    09: a\n    0011: b\n")
	f.Add("apiVersion: v1\nkind: Namespace\nmetadata: {name: x, labels: {1: a, 1.0: b, '1': c}}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: y}\n")
	f.Fuzz(func(t *testing.T, doc string) {
		read := func() (*Result, string) {
			res, err := ReadIn([]string{"-"}, strings.NewReader(doc), "")
			return res, fmt.Sprint(err)
		}
		quickIsSplit(t, doc)
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
