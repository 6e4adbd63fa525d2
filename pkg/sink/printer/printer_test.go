package printer

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// deep nests a leaf under n fields named key.
func deep(n int, key string, leaf any) map[string]any {
	v := map[string]any{key: leaf}
	for i := 1; i < n; i++ {
		v = map[string]any{key: v}
	}
	return v
}

// TestPrintYAMLAsJSON: -o yaml says what -o json says, for every value
// -o json can print, and writes the bytes sigs.k8s.io/yaml would wherever
// that could write them (issue 11 "effective YAML output of a legal,
// deeply nested spec fails today while JSON works": the JSON pointer of a
// deep field is a map key over YAML's 1024-character implicit key limit).
func TestPrintYAMLAsJSON(t *testing.T) {
	for _, c := range []struct {
		name string
		v    any
	}{
		{"scalars", map[string]any{"int": 3, "neg": -7, "float": 1.5, "exp": 1e21, "big": uint64(18446744073709551615), "bool": true, "null": nil, "yes": "yes", "num": "012", "empty": map[string]any{}, "list": []any{}}},
		{"nested lists", map[string]any{"a": []any{[]any{1, "x"}, map[string]any{"b": []any{}}}}},
		{"long key", map[string]any{strings.Repeat("k", 1100): 1}},
		{"deep spec's pointer as a key", map[string]any{"fieldSources": map[string]any{strings.Repeat("/field", 300): "ns/p"}, "spec": deep(300, "field", "x")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var y, j bytes.Buffer
			if err := Print(&y, c.v, YAML); err != nil {
				t.Fatalf("yaml: %v", err)
			}
			if err := Print(&j, c.v, JSON); err != nil {
				t.Fatalf("json: %v", err)
			}
			var fromYAML, fromJSON any
			if err := yaml.Unmarshal(y.Bytes(), &fromYAML); err != nil {
				t.Fatalf("read back yaml: %v\n%s", err, y.String())
			}
			if err := json.Unmarshal(j.Bytes(), &fromJSON); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(fromJSON, fromYAML); d != "" {
				t.Errorf("yaml and json differ (-json +yaml):\n%s", d)
			}
			js, _ := json.Marshal(c.v)
			if old, err := yaml.JSONToYAML(js); err == nil && !bytes.Equal(old, y.Bytes()) {
				t.Errorf("bytes differ from sigs.k8s.io/yaml's:\n%s\nwant:\n%s", y.String(), old)
			}
		})
	}
}
