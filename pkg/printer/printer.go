// Package printer writes objects for people and programs. It is the only
// place that formats output; commands hand it data.
package printer

import (
	"encoding/json"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"
)

// Formats accepted by -o.
const (
	YAML = "yaml"
	JSON = "json"
)

// List wraps items as a kubectl-style v1 List, so output can be fed back to
// kubectl or to strata -f.
func List(items []any) map[string]any {
	if items == nil {
		items = []any{}
	}
	return map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
}

// Print writes v as YAML or indented JSON. Maps are written with sorted
// keys, so the same value always gives the same bytes.
func Print(w io.Writer, v any, format string) error {
	// Round-trip through JSON so typed and unstructured objects print alike.
	js, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode output: %w", err)
	}
	switch format {
	case JSON:
		var generic any
		if err := json.Unmarshal(js, &generic); err != nil {
			return err
		}
		out, err := json.MarshalIndent(generic, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(out, '\n'))
		return err
	case YAML, "":
		out, err := yaml.JSONToYAML(js)
		if err != nil {
			return err
		}
		_, err = w.Write(out)
		return err
	}
	return fmt.Errorf("output format %q: want yaml or json", format)
}
