// Package printer writes objects for people and programs. It is the only
// place that formats output; commands hand it data.
package printer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	goyaml "go.yaml.in/yaml/v2"
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
	if l, ok := v.(map[string]any); ok && isList(l) {
		return printList(w, l, format)
	}
	return printWhole(w, v, format)
}

// printWhole writes v as one document.
func printWhole(w io.Writer, v any, format string) error {
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
		out, err := jsonToYAML(js)
		if err != nil {
			return err
		}
		_, err = w.Write(out)
		return err
	}
	return fmt.Errorf("output format %q: want yaml or json", format)
}

// isList reports whether l is what List makes.
func isList(l map[string]any) bool {
	_, items := l["items"].([]any)
	return len(l) == 3 && items && l["apiVersion"] == "v1" && l["kind"] == "List"
}

// printList writes a List item by item, the bytes Print would write for
// the whole of it, without the whole document's generic tree in memory at
// once: printing a 100 MB answer cost about 100 bytes of heap per byte of
// output (issue 11, "No cliffs"). Each item is encoded in its place in
// the document (YAML: as the one item of "items", so that the emitter's
// columns, and where it wraps long strings, are those of the whole
// document; JSON: indented at the items' depth).
func printList(w io.Writer, l map[string]any, format string) error {
	items := l["items"].([]any)
	switch format {
	case JSON:
		if len(items) == 0 {
			_, err := io.WriteString(w, "{\n  \"apiVersion\": \"v1\",\n  \"items\": [],\n  \"kind\": \"List\"\n}\n")
			return err
		}
		if _, err := io.WriteString(w, "{\n  \"apiVersion\": \"v1\",\n  \"items\": [\n"); err != nil {
			return err
		}
		for i, item := range items {
			generic, err := genericOf(item)
			if err != nil {
				return err
			}
			out, err := json.MarshalIndent(generic, "    ", "  ")
			if err != nil {
				return err
			}
			sep := ",\n"
			if i == len(items)-1 {
				sep = "\n"
			}
			if _, err := fmt.Fprintf(w, "    %s%s", out, sep); err != nil {
				return err
			}
		}
		_, err := io.WriteString(w, "  ],\n  \"kind\": \"List\"\n}\n")
		return err
	case YAML, "":
		if len(items) == 0 {
			_, err := io.WriteString(w, "apiVersion: v1\nitems: []\nkind: List\n")
			return err
		}
		if _, err := io.WriteString(w, "apiVersion: v1\nitems:\n"); err != nil {
			return err
		}
		for _, item := range items {
			js, err := json.Marshal(map[string]any{"items": []any{item}})
			if err != nil {
				return fmt.Errorf("encode output: %w", err)
			}
			out, err := jsonToYAML(js)
			if err != nil {
				return err
			}
			if _, err := w.Write(bytes.TrimPrefix(out, []byte("items:\n"))); err != nil {
				return err
			}
		}
		_, err := io.WriteString(w, "kind: List\n")
		return err
	}
	return fmt.Errorf("output format %q: want yaml or json", format)
}

// genericOf is v as encoding/json reads it back: maps with sorted keys
// when encoded, as Print writes every object.
func genericOf(v any) (any, error) {
	js, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode output: %w", err)
	}
	var generic any
	if err := json.Unmarshal(js, &generic); err != nil {
		return nil, err
	}
	return generic, nil
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

// yamlNumbers replaces json.Numbers by the type go-yaml resolves the same
// text to: int64, then uint64, then float64.
func yamlNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = yamlNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = yamlNumbers(e)
		}
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		if u, err := strconv.ParseUint(string(x), 10, 64); err == nil {
			return u
		}
		if f, err := x.Float64(); err == nil {
			return f
		}
		return string(x)
	}
	return v
}
