package yamljson

import (
	"io"
	"strings"
	"testing"

	goyaml "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// TestAsSigsYAML: what sigs.k8s.io/yaml reads without a collision reads
// to the same JSON bytes here, errors included.
func TestAsSigsYAML(t *testing.T) {
	for _, doc := range []string{
		"",
		"# only a comment\n",
		"a: 1\nb: [x, 2.5, true, null]\nc: {d: e}\n",
		"9: a\n'10': b\ntrue: c\n1.5: d\n",
		"apiVersion: v1\nkind: ConfigMap\ndata:\n  script: |\n    echo hi\n",
		"a: &x {b: 1}\nc: *x\n",
		"a: .nan\n",
		"- 1\n- two\n",
		"a: b: c\n",
		"a: [1\n",
		"~: a\n",
		"[1, 2]: a\n",
		"18446744073709551615: big\n",
		"a: 1\na: 2\n",
	} {
		want, wantErr := yaml.YAMLToJSON([]byte(doc))
		got, err := ToJSON([]byte(doc))
		if (err != nil) != (wantErr != nil) {
			t.Errorf("%q: error %v, want %v", doc, err, wantErr)
			continue
		}
		if err == nil && string(got) != string(want) {
			t.Errorf("%q: %s, want %s", doc, got, want)
		}
		if err != nil && wantErr != nil && strings.HasPrefix(wantErr.Error(), "yaml:") && err.Error() != wantErr.Error() {
			t.Errorf("%q: error %q, want go-yaml's %q", doc, err, wantErr)
		}
	}
}

// TestStrict: ToJSONStrict refuses a key given twice, as YAMLToJSONStrict
// does, and ToJSON keeps the last.
func TestStrict(t *testing.T) {
	doc := []byte("a: 1\na: 2\n")
	if _, err := ToJSONStrict(doc); err == nil || !strings.Contains(err.Error(), `key "a" already set`) {
		t.Errorf("ToJSONStrict: %v, want go-yaml's duplicate key error", err)
	}
	if got, err := ToJSON(doc); err != nil || string(got) != `{"a":2}` {
		t.Errorf("ToJSON: %s, %v", got, err)
	}
}

// TestKeysThatAreOneJSONKey: a mapping whose keys become one JSON key is
// an error naming the mapping and the keys, the same error every time
// (sigs.k8s.io/yaml keeps either value, by map order).
func TestKeysThatAreOneJSONKey(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"float and octal integer", "metadata:\n  labels:\n    09: a\n    0011: b\n",
			`metadata.labels: the float 9 and the integer 9 are both the JSON key "9"`},
		{"string and integer", "data:\n  '7': a\n  7: b\n",
			`data: the integer 7 and the string "7" are both the JSON key "7"`},
		{"string and boolean", "'true': a\nyes: b\n",
			`the document's top level: the boolean true and the string "true" are both the JSON key "true"`},
		{"floats equal at 32 bits", "x:\n- {1.00000001: a, 1: b}\n",
			`x[0]: the float 1.00000001 and the integer 1 are both the JSON key "1"`},
		{"the first in the JSON's order", "b: {1: x, '1': y}\na: {2: x, '2': y}\n",
			`a: the integer 2 and the string "2" are both the JSON key "2"`},
		{"a key without a JSON form", "a:\n  ~: x\n", `a: a key is null, which has no JSON form`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 20 {
				_, err := ToJSON([]byte(tc.doc))
				if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
					t.Fatalf("error %v, want it to start %q", err, tc.want)
				}
			}
		})
	}
}

// TestMoreDocuments: text with a second document is an error, whether
// it follows a line "..." or a "---" after a lone "\r"; YAMLToJSON reads
// the first and drops it.
func TestMoreDocuments(t *testing.T) {
	for _, doc := range []string{
		"apiVersion: v1\nkind: Namespace\n...\napiVersion: v1\nkind: Service\n",
		"a: 1\r---\rb: 2\r",
		"a: 1\n...\n--- \nb: 2\n",
		"a: 1\n...\n: : :\n",
	} {
		if got, err := ToJSON([]byte(doc)); err == nil {
			t.Errorf("%q: read %s, want an error", doc, got)
		}
		if got, err := ToJSONStrict([]byte(doc)); err == nil {
			t.Errorf("%q: strict read %s, want an error", doc, got)
		}
	}
	for _, doc := range []string{"a: 1\n...\n", "a: 1\n...\n# done\n", "a: 1\r\n"} {
		want, _ := yaml.YAMLToJSON([]byte(doc))
		if got, err := ToJSON([]byte(doc)); err != nil || string(got) != string(want) {
			t.Errorf("%q: %s, %v; want %s", doc, got, err, want)
		}
	}
}

// secondDocument reports whether doc holds a second YAML document, by
// go-yaml v2's reading.
func secondDocument(doc string) bool {
	dec := goyaml.NewDecoder(strings.NewReader(doc))
	var v any
	if dec.Decode(&v) != nil {
		return false
	}
	return dec.Decode(&v) != io.EOF
}

// FuzzToJSON: ToJSON reads what sigs.k8s.io/yaml reads to the same bytes,
// and refuses only what it refuses, a mapping with keys that are one JSON
// key, or a second document.
func FuzzToJSON(f *testing.F) {
	f.Add("a: 1\nb: [x, 2.5]\n")
	f.Add("09: 2\nitems:\n-\n0011: \nkind: List")
	f.Add("a: {1: x, '1': y}\n")
	f.Add("a: 1\n...\nb: 2\n")
	f.Add("a: 1\r---\rb: 2")
	f.Fuzz(func(t *testing.T, doc string) {
		got, err := ToJSON([]byte(doc))
		want, wantErr := yaml.YAMLToJSON([]byte(doc))
		switch {
		case err == nil && wantErr != nil:
			t.Fatalf("read %s, sigs.k8s.io/yaml refused: %v", got, wantErr)
		case err == nil && string(got) != string(want):
			t.Fatalf("%s, want %s", got, want)
		case err != nil && wantErr == nil && !strings.Contains(err.Error(), "are both the JSON key") && !strings.Contains(err.Error(), "no JSON form") && !secondDocument(doc):
			t.Fatalf("refused with %v, sigs.k8s.io/yaml read %s", err, want)
		}
		if err != nil {
			if _, again := ToJSON([]byte(doc)); again == nil || again.Error() != err.Error() {
				t.Fatalf("error %v, then %v", err, again)
			}
		}
	})
}

// BenchmarkToJSON: ToJSON against sigs.k8s.io/yaml.YAMLToJSON on a
// kubectl-style object that the files reader's fast path refuses (a block
// scalar), the documents that take this path.
func BenchmarkToJSON(b *testing.B) {
	doc := []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: baker
  labels:
    app.kubernetes.io/name: baker
    tier: "2"
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"baker"}}
data:
  retries: "3"
  script: |
    #!/bin/sh
    echo baking
  ratio: 0.75
`)
	for _, bc := range []struct {
		name string
		f    func([]byte) ([]byte, error)
	}{{"yamljson", ToJSON}, {"sigs.k8s.io/yaml", yaml.YAMLToJSON}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.f(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
