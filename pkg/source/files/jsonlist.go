package files

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	sigsjson "sigs.k8s.io/json"

	"github.com/strata-dev/strata/pkg/source/files/internal/quickjson"
)

// This file is the quick path of JSON documents (issue 18: a `kubectl
// get -o json` dump, one List of everything, read at the speed of
// multi-document YAML). The careful path validates a stream's values one
// after the other with encoding/json's Decoder (jsonStream), decodes the
// whole List into one generic map with sigs.k8s.io/json, and encodes each
// typed item to JSON again for its decoder: most of the time on one
// core, and three times the work. The quick path:
//
//  1. splits the stream's values, and the elements of a List's `items`,
//     by brackets and quotes without validating them (splitJSONQuick);
//  2. checks the List without its items (items replaced by 0) with
//     encoding/json, and each item on every core: its text is what the
//     typed decoder reads straight, when that reads it as it would read
//     the generic map's JSON (jsonChecker), else what sigs.k8s.io/json
//     decodes into the map the careful path would have made of it.
//
// The List is valid JSON when the List without its items and every item
// are (a value put in place of a value). Whatever the quick path finds
// not as it assumes (invalid JSON, a key twice, an item without a kind, a
// List inside the List) makes the whole input be read again the careful
// way, so errors are the careful path's, word for word; TestReadQuick and
// FuzzReadQuick compare the two.

// span is where a value is in a document: text[start:end].
type span struct{ start, end int }

// jsonValue is one value of a JSON stream, split by splitJSONQuick.
type jsonValue struct {
	text  []byte // from the end of the previous value: leading spaces included
	items []span // in text: the elements of the root key "items", when an array
}

// splitJSONQuick splits a document as jsonStream does, reading only
// brackets, quotes and commas: ok is false when the document starts as
// JSON but does not split that way (then jsonStream, which validates,
// must split it), and vals is nil with ok true for a document that does
// not start with a JSON object (YAML). The values are not validated.
func splitJSONQuick(raw []byte) (vals []jsonValue, ok bool) {
	if yamlStart(raw) {
		return nil, true
	}
	start := 0 // after the leading blank and comment lines
	for line := range bytes.Lines(raw) {
		if !yamlBlank(line) {
			break
		}
		start += len(line)
	}
	if t := bytes.TrimLeft(raw[start:], " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil, true
	}
	for {
		// Anything but an object is jsonStream's to split: a value
		// the careful path reads as "not an object", or not JSON.
		i := skipSpace(raw, start)
		if i >= len(raw) || raw[i] != '{' {
			return nil, false
		}
		end, items, ok := splitObject(raw, i)
		if !ok {
			return nil, false
		}
		v := jsonValue{items: items}
		for k := range v.items {
			v.items[k].start -= start
			v.items[k].end -= start
		}
		v.text = raw[start:end]
		vals = append(vals, v)
		start = end
		if yamlBlank(raw[end:]) {
			return vals, true
		}
	}
}

// splitObject skips the object at b[i] and returns where it ends and
// where the elements of its key "items" are, when that is an array.
func splitObject(b []byte, i int) (end int, items []span, ok bool) {
	i = skipSpace(b, i+1) // after '{'
	if i < len(b) && b[i] == '}' {
		return i + 1, nil, true
	}
	for i < len(b) {
		if b[i] != '"' {
			return 0, nil, false
		}
		keyEnd, ok := skipString(b, i)
		if !ok {
			return 0, nil, false
		}
		key := b[i+1 : keyEnd-1]
		i = skipSpace(b, keyEnd)
		if i >= len(b) || b[i] != ':' {
			return 0, nil, false
		}
		i = skipSpace(b, i+1)
		if string(key) == "items" && i < len(b) && b[i] == '[' {
			items = items[:0]
			i = skipSpace(b, i+1)
			for i < len(b) && b[i] != ']' {
				e, ok := skipValue(b, i)
				if !ok {
					return 0, nil, false
				}
				items = append(items, span{i, e})
				i = skipSpace(b, e)
				if i < len(b) && b[i] == ',' {
					i = skipSpace(b, i+1)
					if i < len(b) && b[i] == ']' {
						return 0, nil, false // a trailing comma
					}
				} else if i >= len(b) || b[i] != ']' {
					return 0, nil, false
				}
			}
			if i >= len(b) {
				return 0, nil, false
			}
			if items == nil {
				items = []span{} // an empty array, not none
			}
			i++
		} else {
			e, ok := skipValue(b, i)
			if !ok {
				return 0, nil, false
			}
			i = e
		}
		i = skipSpace(b, i)
		switch {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i < len(b) && b[i] == '}':
			return i + 1, items, true
		default:
			return 0, nil, false
		}
	}
	return 0, nil, false
}

// skipValue returns where the value at b[i] ends, reading brackets and
// strings only: what is between them is left to the validation that
// follows. ok is false for text that cannot be a value.
func skipValue(b []byte, i int) (end int, ok bool) {
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c != '{' && c != '[':
		j := i
		for j < len(b) && scalarByte(b[j]) {
			j++
		}
		return j, j > i
	}
	depth := 0
	for i < len(b) {
		for i < len(b) && !bracketOrQuote[b[i]] {
			i++
		}
		if i == len(b) {
			break
		}
		switch b[i] {
		case '{', '[':
			depth++
			i++
		case '}', ']':
			depth--
			i++
			if depth == 0 {
				return i, true
			}
		default: // '"'
			e, ok := skipString(b, i)
			if !ok {
				return 0, false
			}
			i = e
		}
	}
	return 0, false
}

// bracketOrQuote marks the bytes skipValue stops at.
var bracketOrQuote = [256]bool{'{': true, '}': true, '[': true, ']': true, '"': true}

// scalarByte reports whether c may be part of a number, true, false or
// null.
func scalarByte(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '-' || c == '+' || c == '.'
}

// skipString returns where the string whose quote is at b[i] ends.
func skipString(b []byte, i int) (end int, ok bool) {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return 0, false
		}
		j += k
		escapes := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			escapes++
		}
		j++
		if escapes%2 == 0 {
			return j, true
		}
	}
}

// yamlStart reports, for most YAML documents at a glance, that raw does
// not start with a JSON object: its first byte past ASCII blanks is
// neither '{' nor a comment's '#', nor a byte that bytes.TrimSpace might
// trim (\v, \f, or one of a multi-byte space), which the line-by-line
// look of jsonStream and splitJSONQuick would skip. Those looks cost
// two line iterators per document, a third of splitting the
// performance world's 45,000 documents (docs/performance.md, "Every
// command, seventh pass"). False says nothing: look line by line.
func yamlStart(raw []byte) bool {
	i := skipSpace(raw, 0)
	if i == len(raw) {
		return false
	}
	c := raw[i]
	return c < 0x80 && c != '{' && c != '#' && c != '\v' && c != '\f'
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// parseJSONQuick reads a value split by splitJSONQuick as parse reads it
// the careful way, or says (again) that the input must be read that way;
// c is the calling worker's.
func (c *jsonChecker) parseJSONQuick(r rawDocument) parsed {
	items := r.quick.items
	if items == nil {
		it, ok := c.read(r, r.raw)
		if !ok {
			return parsed{again: true}
		}
		return parsed{items: []item{it}}
	}
	// The List without its items: valid, keys once, a kind ending in
	// List. Else an object with an array named items, read whole.
	skel := make([]byte, 0, 64+2*len(items))
	prev := 0
	for _, s := range items {
		skel = append(skel, r.raw[prev:s.start]...)
		skel = append(skel, '0')
		prev = s.end
	}
	skel = append(skel, r.raw[prev:]...)
	if !json.Valid(skel) {
		return parsed{again: true}
	}
	h, ok := c.check(skel)
	if !ok || h.apiVersion == "" || h.kind == "" {
		return parsed{again: true}
	}
	if !strings.HasSuffix(h.kind, "List") {
		it, ok := c.read(r, r.raw)
		if !ok {
			return parsed{again: true}
		}
		return parsed{items: []item{it}}
	}
	p := parsed{items: make([]item, len(items))}
	var w jsonChecker // the items' own: c is reading the document
	for i, s := range items {
		it, ok := w.read(r, r.raw[s.start:s.end])
		if !ok {
			return parsed{again: true}
		}
		p.items[i] = it
	}
	return p
}

// read reads one object, the document r or an item of its List, into
// the item the careful path makes of it (decodeDocument of the object
// sigs.k8s.io/json decodes). ok is false when the careful path would
// stop at the object with an error of the document (not an object, not
// valid, a key twice, no apiVersion or kind) or expand it (a List): then
// only the careful path may read the input.
func (c *jsonChecker) read(r rawDocument, js []byte) (it item, ok bool) {
	h, ok := c.check(js)
	if !ok || h.apiVersion == "" || h.kind == "" || (h.items && strings.HasSuffix(h.kind, "List")) {
		return item{}, false
	}
	gk := groupKindOf(h.apiVersion, h.kind)
	d := Document{File: r.file, Index: r.index, Line: r.line}
	// check saw each key of every object once: valid JSON in UTF-8 is
	// then quickjson's to read (the typed decoders' quick, Generic).
	valid := jsontext.Value(js).IsValid(jsontext.AllowDuplicateNames(true))
	if dec, typed := decoders[gk]; typed && h.exact {
		decode := dec.decode
		if valid {
			decode = dec.quick
		}
		// Without a name, or when it does not decode, decodeDocument
		// says what is wrong, as it would have.
		if obj, err := decode(js); err == nil && obj.(metav1.Object).GetName() != "" {
			return item{doc: d, gk: gk, obj: obj}, true
		}
	}
	var obj map[string]any
	if valid {
		obj, _ = quickjson.Generic(js)
	}
	if obj == nil {
		strict, err := sigsjson.UnmarshalStrict(js, &obj, sigsjson.DisallowDuplicateFields)
		if err != nil || len(strict) > 0 || obj == nil {
			return item{}, false
		}
	}
	d.Object = &unstructured.Unstructured{Object: obj}
	return decodeDocument(d), true
}

// jsonHeader is what jsonChecker.check finds in an object.
type jsonHeader struct {
	apiVersion, kind string // root keys, when strings without escapes
	items            bool   // it has a root key "items"
	// exact says that a typed decoder reads the object's text as it reads
	// the JSON encoding of the generic map decoded from it: every number
	// is an integer written as encoding/json writes an int64, and no key is
	// fieldsV1 (metav1.FieldsV1 keeps the text it is given, spaces and key
	// order included) nor miscased.
	exact bool
}

// miscased reports whether key, at depth (1 for the root's keys), may
// be metadata, or its name or creationTimestamp, written in another
// case: the careful path, whose checkMeta names what is wrong with the
// object's metadata, reads such an object (the typed decoders match
// names in their case and leave the field out).
func miscased(key []byte, depth int) bool {
	switch depth {
	case 1:
		return equalFoldASCII(key, []byte("metadata")) && string(key) != "metadata"
	case 2:
		return equalFoldASCII(key, []byte("name")) && string(key) != "name" ||
			equalFoldASCII(key, []byte("creationTimestamp")) && string(key) != "creationTimestamp"
	}
	return false
}

// jsonChecker checks the keys of a JSON object, its objects' included;
// its buffers are reused from object to object.
type jsonChecker struct {
	keys   [][][]byte // per open object, its keys so far
	object []bool     // per open bracket: an object, not an array
}

// Bounds beyond which check gives up (the careful path reads the input):
// no cliff for an object of a million keys or a million brackets deep.
const (
	maxCheckedKeys  = 256
	maxCheckedDepth = 512
)

// check reads the JSON object js and reports, besides its header, ok
// false when it is not an object or a key of one of its objects is
// escaped, not printable ASCII, or equal to another key of its object
// but for case (encoding/json would fold the two onto one field, the last
// one read winning). js is not validated: on text that is not JSON, ok
// and h mean nothing.
func (c *jsonChecker) check(js []byte) (h jsonHeader, ok bool) {
	i := skipSpace(js, 0)
	if i >= len(js) || js[i] != '{' {
		return h, false
	}
	h.exact = true
	c.object = c.object[:0]
	var capture *string // the root key whose string value is wanted
	for i < len(js) {
		ch := js[i]
		depth := len(c.object) // of what starts at i
		switch {
		case ch == '{' || ch == '[':
			if depth >= maxCheckedDepth {
				return h, false
			}
			c.object = append(c.object, ch == '{')
			if ch == '{' {
				for len(c.keys) <= depth {
					c.keys = append(c.keys, nil)
				}
				c.keys[depth] = c.keys[depth][:0]
			}
			capture = nil
			i++
		case ch == '}' || ch == ']':
			if depth == 0 {
				return h, false
			}
			c.object = c.object[:depth-1]
			i++
			if depth == 1 {
				return h, len(bytes.TrimLeft(js[i:], " \t\r\n")) == 0
			}
		case ch == '"':
			end, ok := skipString(js, i)
			if !ok {
				return h, false
			}
			s := js[i+1 : end-1]
			next := skipSpace(js, end)
			if next < len(js) && js[next] == ':' && depth > 0 && c.object[depth-1] {
				// A key of the object at depth-1.
				for _, b := range s {
					if b < 0x20 || b > 0x7e || b == '\\' {
						return h, false
					}
				}
				keys := c.keys[depth-1]
				if len(keys) >= maxCheckedKeys {
					return h, false
				}
				for _, k := range keys {
					if equalFoldASCII(k, s) {
						return h, false
					}
				}
				c.keys[depth-1] = append(keys, s)
				if string(s) == "fieldsV1" || miscased(s, depth) {
					h.exact = false
				}
				if depth == 1 {
					switch string(s) {
					case "apiVersion":
						capture = &h.apiVersion
					case "kind":
						capture = &h.kind
					case "items":
						h.items = true
					}
				}
				i = next + 1
				continue
			}
			if capture != nil && bytes.IndexByte(s, '\\') < 0 {
				*capture = string(s)
			}
			capture = nil
			i = end
		case isDigit(ch) || ch == '-':
			j := i
			for j < len(js) && scalarByte(js[j]) {
				j++
			}
			if !canonicalInt(js[i:j]) {
				h.exact = false
			}
			capture = nil
			i = j
		case isLetter(ch):
			for i < len(js) && scalarByte(js[i]) {
				i++
			}
			capture = nil
		default: // spaces, commas and colons; anything else is invalid
			i++
			for i < len(js) && !checked[js[i]] {
				i++
			}
		}
	}
	return h, false
}

// checked marks the bytes where check has something to do: brackets,
// strings, numbers and words.
var checked = func() (t [256]bool) {
	for _, c := range []byte(`{}[]"-0123456789`) {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	return t
}()
