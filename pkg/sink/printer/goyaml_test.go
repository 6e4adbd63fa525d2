package printer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	goyaml "go.yaml.in/yaml/v2"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
)

// goYAML is the reference the emitter is checked against, and what Print
// wrote before it: v's JSON, read back, written by go-yaml v2.
func goYAML(w io.Writer, v any) error {
	js, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode output: %w", err)
	}
	out, err := jsonToYAML(js)
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// jsonToYAML is sigs.k8s.io/yaml's JSONToYAML without its one flaw: that
// reads the JSON back with a YAML parser, which refuses implicit keys over
// 1024 characters (YAML 1.2 "Implicit Keys"), so the JSON pointer of a
// field in a deeply nested spec (fieldSources: /a/b/c/...) made -o yaml
// fail where -o json worked. Reading with encoding/json instead (the same
// depth limit as -o json) and picking number types as go-yaml would keeps
// the bytes JSONToYAML writes for everything it could write; go-yaml
// writes a long key as an explicit "? key" entry, which YAML readers
// accept.
func jsonToYAML(js []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("encode output as YAML: %w", err)
	}
	out, err := goyaml.Marshal(yamlNumbers(v))
	if err != nil {
		return nil, fmt.Errorf("encode output as YAML: %w", err)
	}
	return out, nil
}

// TestPrintWholeIsGoYAML: a document printed whole (Print of anything
// but a List) in YAML is go-yaml's bytes for its JSON: random values
// (scalars at the root too), EffectivePolicies, the List cases as plain
// lists and maps. (Status Fragments and PolicyObjects are List items;
// the emitter writes them as the objects they stand for wherever it
// meets them.)
func TestPrintWholeIsGoYAML(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 41))
	values := []any{nil, "", "x", "a\nb", "a\n\n", " x", []any{}, map[string]any{}, (*strata.EffectivePolicy)(nil)}
	for _, items := range listCases() {
		values = append(values, items, map[string]any{"items": items})
	}
	for range 1000 {
		values = append(values, randomValue(r, 0), randomString(r, 6), randomEffectivePolicy(r))
	}
	for i, v := range values {
		var want, got bytes.Buffer
		wantErr := goYAML(&want, v)
		gotErr := Print(&got, v, YAML)
		if (wantErr != nil) != (gotErr != nil) {
			t.Fatalf("value %d: error %v, want %v", i, gotErr, wantErr)
		}
		if got.String() != want.String() {
			t.Fatalf("value %d (%#v): emitter differs from go-yaml:\n--- go-yaml\n%s\n--- emitter\n%s", i, v, want.String(), got.String())
		}
	}
}
