package files

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"
)

// TestBlockListMatchesYAML: a List split into items reads as the YAML
// parser reads the whole document, or is refused (ok false) and left to
// the parser.
func TestBlockListMatchesYAML(t *testing.T) {
	for _, tc := range []struct {
		name string
		doc  string
		ok   bool
	}{
		{"kubectl style", "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata:\n    name: a\n- apiVersion: v1\n  kind: Service\n  metadata:\n    name: b\nkind: List\nmetadata:\n  resourceVersion: \"\"\n", true},
		{"indented entries", "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Service\n    metadata: {name: a}\n  - apiVersion: v1\n    kind: ConfigMap\n    data: {k: v}\n", true},
		{"block scalars with comment-like and blank lines", "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  data:\n    script: |\n      # not a comment\n\n      echo hi\n      \n    other: x\n# a real comment\n- apiVersion: v1\n  kind: ConfigMap\nkind: List\n", true},
		{"nested sequences and a List inside", "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  - apiVersion: v1\n    kind: Service\n  - apiVersion: v1\n    kind: Service\nkind: List\n", true},
		{"flow and scalar items", "apiVersion: v1\nitems:\n- {apiVersion: v1, kind: Service}\n- just a string\n- 42\nkind: List\n", true},
		{"an empty entry", "apiVersion: v1\nitems:\n-\n  apiVersion: v1\n  kind: Service\nkind: List\n", true},
		{"anchors across items", "apiVersion: v1\nitems:\n- &s\n  apiVersion: v1\n  kind: Service\n- *s\nkind: List\n", false},
		{"not a List", "apiVersion: v1\nkind: Thing\nitems:\n- a\n", false},
		{"items inline", "apiVersion: v1\nkind: List\nitems: []\n", false},
		{"broken indentation", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n kind: Service\n", false},
		// Found by FuzzBlockList: the YAML parser reads the "|" as the
		// empty entry's value, not as a root key after the items.
		{"a block scalar at column 0 under an empty entry", "kind: List\nitems:\n-\n|", false},
		// Its content at column 0 is not a root block scalar's.
		{"an item that is a block scalar", "kind: List\nitems:\n- |\n  0", false},
		{"an item that is a tagged block scalar", "kind: List\nitems:\n- !!str |\n  0\n", false},
		{"an empty entry, then a block scalar", "kind: List\nitems:\n-\n  |\n  0\n", false},
		{"an empty entry, a line of spaces, then a block scalar", "kind: List\nitems:\n-\n     \n  |\n  0\n", false},
		// Found by FuzzBlockList: "---" at column 0 of the item's own
		// document is a document marker, not the scalar "---".
		{"an item that is a document marker", "kind: List\nitems:\n- --- ", false},
		{"an item's line that is a document end marker", "kind: List\nitems:\n- a\n  ...\n", false},
		{"an item's line that is a directive", "kind: List\nitems:\n- a\n  %b\n", false},
		{"markers deeper in an item", "kind: List\nitems:\n- a: |\n    ---\n    ...\n    %x\n", true},
		// A "\r" is a line break to the YAML parser: two entries.
		{"a carriage return", "kind: List\nitems:\n- \r-", false},
		{"Windows line ends", "apiVersion: v1\r\nkind: List\r\nitems:\r\n- apiVersion: v1\r\n  kind: Service\r\n", false},
		{"a line separator", "kind: List\nitems:\n- a\u2028- b\n", false},
		// The header's keys 09 (a float) and 0011 (octal 9) are one JSON
		// key, which the YAML parser keeps either value of.
		{"header keys that are one JSON key", "09: 2\nitems:\n-\n0011: \nkind: List", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := parseBlockList([]byte(tc.doc))
			if ok != tc.ok {
				t.Fatalf("ok %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			js, err := yaml.YAMLToJSON([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			var want map[string]any
			if err := utiljson.Unmarshal(js, &want); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("differs from the YAML parser's (-want +got):\n%s", d)
			}
		})
	}
}

// FuzzBlockList: whatever blockList accepts reads as the YAML parser
// reads the whole document, when the parser reads it.
func FuzzBlockList(f *testing.F) {
	f.Add("apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata:\n    name: a\nkind: List\n")
	f.Add("apiVersion: v1\nkind: List\nitems:\n  - a: |\n      # x\n\n      y\n  - b: [1, 2]\n")
	f.Add("kind: List\nitems:\n- - a\n  - b\n- c: d\n  e: f\n")
	f.Fuzz(func(t *testing.T, doc string) {
		got, ok := parseBlockList([]byte(doc))
		if !ok {
			return
		}
		js, err := yaml.YAMLToJSON([]byte(doc))
		if err != nil {
			return
		}
		var want map[string]any
		if err := utiljson.Unmarshal(js, &want); err != nil {
			return
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("differs from the YAML parser's (-want +got):\n%s", d)
		}
	})
}
