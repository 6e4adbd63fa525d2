package printer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

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

// pieces are the characters and words that change how go-yaml writes a
// string: indicators, quotes, breaks of every kind, spaces (single,
// double, leading, trailing), characters that are not printable or not
// ASCII, and words that read back as something other than a string.
var pieces = []string{
	"a", "b", "word", "Z", " ", " ", " ", "  ", "\n", "\n\n", "\r", "\t", ":", ": ", "#", " #", "-", "- ", "?", "? ",
	"'", `"`, `\`, ",", "[", "]", "{", "}", "&", "*", "!", "|", ">", "%", "@", "`", "0", "7", "12", ".", "_", "e",
	"é", "日本", "\u0085", "\u00a0", "\u2028", "\u2029", "\ufeff", "\uffff", "😀", "\x00", "\x07", "\x1b", "\x7f", "\xff",
	"true", "no", "null", "~", "1e3", "0x1F", "0b101", "-0b11", "2006-01-02", "2001-12-14t21:59:43.10-05:00", "1:20",
	"+.inf", ".5", "<<", "---", "...",
}

// randomString joins up to n pieces, sometimes words of a sentence long
// enough to fold.
func randomString(r *rand.Rand, n int) string {
	var b strings.Builder
	if r.IntN(4) == 0 {
		for range r.IntN(40) {
			b.WriteString(strings.Repeat("x", r.IntN(12)))
			b.WriteString(pieces[r.IntN(8)+4]) // mostly spaces
		}
		return b.String()
	}
	for range r.IntN(n + 1) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func randomValue(r *rand.Rand, depth int) any {
	k := r.IntN(10)
	if depth > 4 {
		k = r.IntN(6)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return []any{-7, 0, int64(1) << 62, uint64(1<<64 - 1), 1.5, 1e21, 1e18, 1e-7, math.Copysign(0, -1), 123456789.125}[r.IntN(10)]
	case 3, 4, 5:
		return randomString(r, 6)
	case 6, 7:
		m := map[string]any{}
		for range r.IntN(5) {
			key := randomString(r, 3)
			if r.IntN(20) == 0 {
				key = strings.Repeat("k", 120+r.IntN(20)) // around the 128 of simple keys
			}
			m[key] = randomValue(r, depth+1)
		}
		return m
	default:
		var l []any
		for range r.IntN(4) {
			l = append(l, randomValue(r, depth+1))
		}
		if l == nil {
			l = []any{}
		}
		return l
	}
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
