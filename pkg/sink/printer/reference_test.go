package printer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	goyaml "go.yaml.in/yaml/v2"
)

// goYAML is the reference a List printed item by item is checked
// against: the whole document's JSON, read back, written by go-yaml v2.
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

// marshalIndent is the reference of a document printed whole in JSON:
// v's JSON read back into an any and indented, and a line break.
func marshalIndent(w io.Writer, v any) error {
	js, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode output: %w", err)
	}
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
