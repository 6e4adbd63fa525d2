// Package emit encodes the generic values the CLI prints (what
// encoding/json makes of an object: maps, slices, strings, numbers,
// booleans, nil) byte for byte as the libraries kubectl prints with:
//
//   - YAMLEncoder writes what go.yaml.in/yaml/v2's Marshal writes for v's
//     JSON read back (sigs.k8s.io/yaml's Marshal, kubectl's -o yaml);
//   - JSONEncoder writes what encoding/json's MarshalIndent writes for v's
//     JSON read back into an any (kubectl's -o json: keys sorted, numbers
//     as float64).
//
// It is a fast path (docs/performance.md, "What a fast path must pay").
// The YAML encoder is a port of the part of go-yaml v2's emitter
// (emitterc.go) that such values reach, its names and checks in
// emitterc.go's order; fuzz targets compare each encoder with its library.
package emit

import "io"

// YAMLEncoder encodes values as YAML, keeping its scratch memory from one
// value to the next. It is for one goroutine.
type YAMLEncoder struct {
	e   *yamlEmitter
	out appender
}

// NewYAMLEncoder makes a YAMLEncoder.
func NewYAMLEncoder() *YAMLEncoder {
	c := &YAMLEncoder{}
	c.e = newYAMLEmitter(&c.out)
	return c
}

// Append appends to dst the document go-yaml v2's Marshal writes for
// v's JSON (encoding/json) read back; a value of a type other than those
// encoding/json decodes into goes through its JSON first.
func (c *YAMLEncoder) Append(dst []byte, v any) ([]byte, error) {
	c.out.b = dst
	if err := c.Encode(&c.out, v); err != nil {
		return nil, err
	}
	return c.out.b, nil
}

// Encode writes what Append appends to w, as it is made.
func (c *YAMLEncoder) Encode(w io.Writer, v any) error {
	e := c.e
	e.w, e.buf, e.err = w, e.buf[:0], nil
	e.column, e.indent, e.whitespace, e.indention = 0, -1, true, true
	if err := e.node(v, false, false, false, 0); err != nil {
		return err
	}
	e.indent = -1
	e.writeIndent() // the document's end
	return e.flush(true)
}

// JSONEncoder encodes values as indented JSON, its lines after the first
// starting with a prefix. It is for one goroutine.
type JSONEncoder struct{ w *jsonWriter }

// NewJSONEncoder makes a JSONEncoder whose lines after the first start
// with prefix.
func NewJSONEncoder(prefix string) *JSONEncoder {
	return &JSONEncoder{w: newJSONWriter(prefix)}
}

// Append appends to dst what json.MarshalIndent(g, prefix, "  ") writes
// for g, v's JSON read back into an any.
func (c *JSONEncoder) Append(dst []byte, v any) ([]byte, error) { return c.w.item(v, dst) }

// appender is an io.Writer that appends to a slice the caller owns.
type appender struct{ b []byte }

func (a *appender) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}
