package emit

import (
	"encoding/json"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/sink/effectivepolicy"
	"github.com/strata-dev/strata/pkg/sink/status"
)

// jsonWriter writes a value as json.MarshalIndent writes the value
// encoded and read back into an any, without the any: members in byte
// order (a repeated name once, its last value), numbers as float64s,
// bytes that are not UTF-8 as U+FFFD, encoding/json's escapes.
type jsonWriter struct {
	prefix string // of every line but the first
	buf    []byte
	depth  int  // nesting of the value being written
	first  bool // no member or element written yet in the open object or array
	keys   [][]string
	err    error // the first of a typed value's writes (keep)
	trees  *[treesSize]writtenTree
	seed   maphash.Seed
}

// writtenTree is a raw JSON value's text as written at a depth.
type writtenTree struct {
	j     *apiextensionsv1.JSON
	depth int
	text  []byte
}

// newJSONWriter makes a writer of values whose lines after the first
// start with prefix.
func newJSONWriter(prefix string) *jsonWriter {
	return &jsonWriter{prefix: prefix, trees: new([treesSize]writtenTree), seed: maphash.MakeSeed()}
}

// item appends v to dst.
func (w *jsonWriter) item(v any, dst []byte) ([]byte, error) {
	w.buf, w.depth, w.first, w.err = dst, 0, false, nil
	w.keep(w.value(v))
	return w.buf, w.err
}

func (w *jsonWriter) newline() {
	w.buf = append(w.buf, '\n')
	w.buf = append(w.buf, w.prefix...)
	for range w.depth {
		w.buf = append(w.buf, "  "...)
	}
}

// open starts an object or array.
func (w *jsonWriter) open(c byte) {
	w.buf = append(w.buf, c)
	w.depth++
	w.first = true
}

// close ends what open started: on the line after its last member, or
// at once when it has none ({} and []).
func (w *jsonWriter) close(c byte) {
	w.depth--
	if !w.first {
		w.newline()
	}
	w.buf = append(w.buf, c)
	w.first = false
}

// next starts a member or an element on a line of its own.
func (w *jsonWriter) next() {
	if !w.first {
		w.buf = append(w.buf, ',')
	}
	w.first = false
	w.newline()
}

// member starts the member named k.
func (w *jsonWriter) member(k string) {
	w.next()
	w.str(k)
	w.buf = append(w.buf, ": "...)
}

// field writes a string member.
func (w *jsonWriter) field(k, v string) {
	w.member(k)
	w.str(v)
}

func (w *jsonWriter) begin() int { w.open('{'); return 0 }
func (w *jsonWriter) end(int)    { w.close('}') }

func (w *jsonWriter) intField(k string, v int64) {
	w.member(k)
	w.integer(v)
}

func (w *jsonWriter) list(null bool, _ int) (int, bool) {
	if null {
		w.null()
		return 0, false
	}
	w.open('[')
	return 0, true
}

func (w *jsonWriter) endList(int) { w.close(']') }

// optField writes a string member left out when empty (omitempty).
func (w *jsonWriter) optField(k, v string) {
	if v != "" {
		w.field(k, v)
	}
}

func (w *jsonWriter) null() { w.buf = append(w.buf, "null"...) }

// keep keeps the first error of a write.
func (w *jsonWriter) keep(err error) {
	if w.err == nil {
		w.err = err
	}
}

// orNull writes null for a nil pointer, else what write writes.
func (w *jsonWriter) orNull(null bool, write func() error) error {
	if null {
		w.null()
		return nil
	}
	return write()
}

// value writes a value of a tree (jsonTree's, unstructured's) or a typed one.
func (w *jsonWriter) value(v any) error {
	switch x := v.(type) {
	case nil:
		w.null()
	case string:
		w.str(x)
	case bool:
		w.buf = strconv.AppendBool(w.buf, x)
	case json.Number:
		return w.number(string(x))
	case int:
		w.integer(int64(x))
	case int32:
		w.integer(int64(x))
	case int64:
		w.integer(x)
	case float64:
		return w.float(x)
	case map[string]any:
		return w.mapping(x)
	case jsonObject:
		return w.object(x)
	case []any:
		w.open('[')
		for _, item := range x {
			w.next()
			if err := w.value(item); err != nil {
				return err
			}
		}
		w.close(']')
	case *strata.EffectivePolicy:
		if x != nil && effectivepolicy.SimpleMeta(&x.ObjectMeta) {
			writeEffectivePolicy(w, x, 0)
			return w.err
		}
		return w.generic(v)
	case strata.EffectivePolicy:
		return w.value(&x)
	case *query.Impact:
		return w.orNull(x == nil, func() error { writeImpact(w, x, 0); return w.err })
	case *status.Fragment:
		return w.orNull(x == nil, func() error { w.fragment(x); return nil })
	case *status.PolicyObject:
		return w.orNull(x == nil, func() error { return w.value(x.Object().Object) })
	case query.Impact:
		return w.value(&x)
	default:
		return w.generic(v)
	}
	return nil
}

// generic writes a typed value as its JSON read back.
func (w *jsonWriter) generic(v any) error {
	t, err := jsonTree(v)
	if err != nil {
		return err
	}
	return w.value(t)
}

// scratchKeys is the emptied key list of the current depth.
func (w *jsonWriter) scratchKeys() []string {
	for len(w.keys) <= w.depth {
		w.keys = append(w.keys, nil)
	}
	return w.keys[w.depth][:0]
}

// mapping writes a map with its keys in byte order; keys that are not
// UTF-8 go the generic way, where two of them may become one.
func (w *jsonWriter) mapping(m map[string]any) error {
	keys := w.scratchKeys()
	for k := range m {
		if !utf8.ValidString(k) {
			return w.generic(m)
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.keys[w.depth] = keys
	w.open('{')
	for _, k := range keys {
		w.member(k)
		if err := w.value(m[k]); err != nil {
			return err
		}
	}
	w.close('}')
	return nil
}

// object writes an object read from JSON text, its members sorted in
// place (a copy when some name is not UTF-8), a repeated name once with
// its last value.
func (w *jsonWriter) object(o jsonObject) error {
	for _, m := range o {
		if !utf8.ValidString(m.key) {
			o = slices.Clone(o)
			for i := range o {
				o[i].key = validUTF8(o[i].key)
			}
			break
		}
	}
	slices.SortStableFunc(o, func(a, b jsonMember) int { return strings.Compare(a.key, b.key) })
	w.open('{')
	for i, m := range o {
		if i+1 < len(o) && o[i+1].key == m.key {
			continue // encoding/json keeps the last
		}
		w.member(m.key)
		if err := w.value(m.value); err != nil {
			return err
		}
	}
	w.close('}')
	return nil
}

// integer writes an integer as the float64 it is read into.
func (w *jsonWriter) integer(n int64) {
	if n >= -1<<53 && n <= 1<<53 {
		w.buf = strconv.AppendInt(w.buf, n, 10)
		return
	}
	_ = w.float(float64(n)) // finite
}

// number writes a JSON number's text as the float64 it is read into.
func (w *jsonWriter) number(s string) error {
	if plainInteger(s) {
		w.buf = append(w.buf, s...)
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("encode output: number %s: %w", s, err)
	}
	return w.float(f)
}

// plainInteger reports whether s is an integer that a float64 holds
// exactly and encoding/json writes back as s: no sign but "-", no
// leading zero, at most 15 digits.
func plainInteger(s string) bool {
	d := strings.TrimPrefix(s, "-")
	if len(d) == 0 || len(d) > 15 || len(d) > 1 && d[0] == '0' {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// float writes f as encoding/json writes a float64 (its floatEncoder):
// ES6's choice between decimal and exponent, without e-09's zero.
func (w *jsonWriter) float(f float64) error {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return fmt.Errorf("encode output: unsupported value %v", f)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(w.buf, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	w.buf = b
	return nil
}

// jsonEscapes are encoding/json's two-character escapes, by ASCII byte.
var jsonEscapes = [utf8.RuneSelf]byte{'"': '"', '\\': '\\', '\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}

// str writes a string as encoding/json writes it, with HTML escaping,
// each byte that is not UTF-8 as U+FFFD.
func (w *jsonWriter) str(s string) {
	b := append(w.buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			if e := jsonEscapes[c]; e != 0 {
				b = append(b, '\\', e)
			} else {
				const hex = "0123456789abcdef"
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		var esc string
		switch {
		case r == utf8.RuneError && n == 1:
			esc = "\uFFFD"
		case r == '\u2028':
			esc = `\u2028`
		case r == '\u2029':
			esc = `\u2029`
		default:
			i += n
			continue
		}
		b = append(append(b, s[start:i]...), esc...)
		i += n
		start = i
	}
	b = append(b, s[start:]...)
	w.buf = append(b, '"')
}

// The typed writers follow typed.go's, member for member.

// metadata writes an object's metadata as the YAML emitter's metadata.
func (w *jsonWriter) metadata(mapKey string, m map[string]string, name, namespace string, _ int) error {
	w.open('{')
	if len(m) > 0 {
		w.member(mapKey)
		w.stringMap(m)
	}
	w.optField("name", name)
	w.optField("namespace", namespace)
	w.close('}')
	return nil
}

// stringMap writes a map[string]string with its keys in byte order; keys
// that are not UTF-8 are replaced first, the last one sorted winning.
func (w *jsonWriter) stringMap(m map[string]string) {
	keys := w.scratchKeys()
	valid := true
	for k := range m {
		valid = valid && utf8.ValidString(k)
		keys = append(keys, k)
	}
	slices.Sort(keys)
	w.keys[w.depth] = keys
	if !valid {
		fixed := make(map[string]any, len(keys))
		for _, k := range keys {
			fixed[validUTF8(k)] = m[k]
		}
		_ = w.mapping(fixed) // strings only: no error
		return
	}
	w.open('{')
	for _, k := range keys {
		w.field(k, m[k])
	}
	w.close('}')
}

func (w *jsonWriter) ref(r *strata.Ref) { writeRef(w, r) }

func (w *jsonWriter) refs(rs []strata.Ref) error {
	return w.slice(rs == nil, len(rs), func(i int) error { w.ref(&rs[i]); return nil })
}

// slice writes a slice as encoding/json writes a Go slice: null when it
// is nil (null true), else its n elements, item(i) writing the i-th.
func (w *jsonWriter) slice(null bool, n int, item func(i int) error) error {
	if _, ok := w.list(null, n); ok {
		for i := range n {
			w.next()
			w.keep(item(i))
		}
		w.endList(0)
	}
	return w.err
}

func (w *jsonWriter) context(c *strata.Context, _ int) error {
	w.open('{')
	if len(c.FieldSources) > 0 {
		w.member("fieldSources")
		w.stringMap(c.FieldSources)
	}
	w.member("path")
	w.refs(c.Path)
	w.member("resultantPolicy")
	w.keep(w.rawJSON(c.ResultantPolicy))
	w.member("sources")
	_ = w.slice(c.Sources == nil, len(c.Sources), func(i int) error { writeSource(w, &c.Sources[i]); return nil })
	w.close('}')
	return w.err
}

// rawJSON writes a free-form field, remembering the text by the value's
// address and depth: Raw is frozen, as every record Indexed makes is.
func (w *jsonWriter) rawJSON(j *apiextensionsv1.JSON) error {
	if j == nil {
		w.null()
		return nil
	}
	slot := &w.trees[maphash.Comparable(w.seed, j)%treesSize]
	if slot.j == j && slot.depth == w.depth {
		w.buf = append(w.buf, slot.text...)
		return nil
	}
	start := len(w.buf)
	if err := w.generic(j); err != nil {
		return err
	}
	*slot = writtenTree{j: j, depth: w.depth, text: append(slot.text[:0], w.buf[start:]...)}
	return nil
}
