package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// TestEffectiveDeepSpecYAMLAndJSON: `strata effective` prints a legal,
// deeply nested spec in YAML as it does in JSON (issue 11, spec corners:
// the fieldSources key of a deep field is a JSON pointer longer than the
// 1024 characters YAML allows an implicit key).
func TestEffectiveDeepSpecYAMLAndJSON(t *testing.T) {
	spec := "x"
	for i := 0; i < 200; i++ {
		spec = `{"field": ` + spec + `}`
	}
	policy := `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: deep, namespace: default, creationTimestamp: "2026-01-03T00:00:00Z"}
spec:
  targetRefs: [{group: "", kind: Service, name: b2}]
  color: ` + spec + "\n"
	file := filepath.Join(t.TempDir(), "deep.yaml")
	if err := os.WriteFile(file, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	outputs := map[string]any{}
	for _, format := range []string{"yaml", "json"} {
		out, errOut, code := strata(t, "", "effective", "-f", "../../examples/gep-713/example-1", "-f", file, "-o", format)
		if code != 0 {
			t.Fatalf("-o %s: exit %d: %s", format, code, errOut)
		}
		var v any
		var err error
		if format == "yaml" {
			err = yaml.Unmarshal([]byte(out), &v)
		} else {
			err = json.Unmarshal([]byte(out), &v)
		}
		if err != nil {
			t.Fatalf("-o %s: read back: %v", format, err)
		}
		outputs[format] = v
	}
	if d := cmp.Diff(outputs["json"], outputs["yaml"]); d != "" {
		t.Errorf("-o yaml and -o json differ (-json +yaml):\n%s", d)
	}
	if js, _ := json.Marshal(outputs["json"]); !strings.Contains(string(js), strings.Repeat("/field", 200)) {
		t.Errorf("no field source for the deep field in %.300s", js)
	}
}
