package files

import (
	"bytes"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// This file is the fast path of reading: a YAML-to-JSON transcoder for the
// block-style subset of YAML that sigs.k8s.io/yaml.Marshal and kubectl
// write. It is not a YAML parser: it accepts a document only when
// sigs.k8s.io/yaml.YAMLToJSON would surely read it to the same value, and
// refuses anything else, which then takes sigs.k8s.io/yaml. It accepts:
//
//	key: value            block mappings, keys plain ([A-Za-z_/][A-Za-z0-9._/-]*,
//	- item                not a YAML 1.1 bool or null word) or quoted, each key once
//	- key: value          block sequences, also compact ("key:\n- a") and nested
//	key: {} / key: []     empty flow collections only
//	'x' "x" plain         scalars on one line: plain scalars starting with a
//	# comment             letter, '/', '_' or '$' (strings, or the YAML 1.1
//	                      bool and null words), canonical decimal integers,
//	                      single-quoted, double-quoted with \\ \" \n \t \r
//
// and refuses tabs, CRs, bytes outside printable ASCII, anchors, aliases,
// tags, block and multi-line scalars, floats, timestamps, non-empty flow
// collections, merge keys and roots other than a block mapping
// (TestTranscodeMatchesYAML, FuzzTranscode).

// header is what a document says about itself, captured while
// transcoding: enough to choose its decoder.
type header struct {
	apiVersion, kind    string // root keys, exact case, as unstructured reads them
	name, namespace     string // metadata.name, metadata.namespace
	hasKind, hasVersion bool
}

// srcLine is one line of content (blank and comment lines are dropped).
type srcLine struct {
	indent int
	text   []byte // after the indentation; trailing spaces removed
}

// transcoder holds the state of one document's transcoding; its buffers
// are reused from document to document.
type transcoder struct {
	lines []srcLine
	pos   int
	out   []byte
	keys  [][][]byte // per mapping depth, the keys seen so far
	depth int
	hdr   header
	json  jsontext.Decoder // of JSON documents and List items (jsonObjects)
}

// maxDepth bounds nesting; deeper documents take the slow path.
const maxDepth = 64

// transcode converts raw, one YAML document, to JSON in t.out and reports
// whether it could; on false, nothing about the document may be assumed.
func (t *transcoder) transcode(raw []byte) bool {
	t.lines, t.pos, t.out, t.depth, t.hdr = t.lines[:0], 0, t.out[:0], 0, header{}
	for len(raw) > 0 {
		var ln []byte
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			ln, raw = raw[:i], raw[i+1:]
		} else {
			ln, raw = raw, nil
		}
		indent := 0
		for indent < len(ln) && ln[indent] == ' ' {
			indent++
		}
		end := len(ln)
		for i := indent; i < end; i++ {
			if c := ln[i]; c < 0x20 || c > 0x7e {
				return false // tabs, CR, control bytes, anything not ASCII
			}
		}
		for end > indent && ln[end-1] == ' ' {
			end--
		}
		text := ln[indent:end]
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		t.lines = append(t.lines, srcLine{indent: indent, text: text})
	}
	if len(t.lines) == 0 || isItem(t.lines[0].text) {
		return false
	}
	if !t.mapping(t.lines[0].indent, false) || t.pos != len(t.lines) {
		return false
	}
	return t.hdr.hasKind && t.hdr.hasVersion
}

// isItem reports whether a line is a block sequence entry ("-" or "- ").
func isItem(text []byte) bool {
	return text[0] == '-' && (len(text) == 1 || text[1] == ' ')
}

// node reads the block node starting at the current line, at indentation
// indent; meta says it is the value of the root's metadata.
func (t *transcoder) node(indent int, meta bool) bool {
	if t.depth >= maxDepth {
		return false
	}
	if isItem(t.lines[t.pos].text) {
		return t.sequence(indent)
	}
	return t.mapping(indent, meta)
}

// sequence reads the entries at indentation indent.
func (t *transcoder) sequence(indent int) bool {
	t.depth++
	defer func() { t.depth-- }()
	t.out = append(t.out, '[')
	first := true
	for t.pos < len(t.lines) {
		l := t.lines[t.pos]
		if l.indent < indent || !isItem(l.text) {
			break
		}
		if l.indent > indent {
			return false
		}
		if !first {
			t.out = append(t.out, ',')
		}
		first = false
		col := indent + 1
		content := l.text[1:]
		for len(content) > 0 && content[0] == ' ' {
			content, col = content[1:], col+1
		}
		switch {
		case len(content) == 0:
			// The entry's node is on the lines below, or null.
			if !t.next(indent) {
				t.out = append(t.out, "null"...)
			} else if !t.node(t.lines[t.pos].indent, false) {
				return false
			}
		case isItem(content) || isKeyLine(content):
			// "- key: v" and "- - v": a compact node at column col.
			t.lines[t.pos] = srcLine{indent: col, text: content}
			if !t.node(col, false) {
				return false
			}
		default:
			if !t.scalar(content) || t.next(indent) { // a continuation line: a multi-line scalar
				return false
			}
		}
	}
	t.out = append(t.out, ']')
	return true
}

// mapping reads the entries at indentation indent; meta says it is the
// value of the root's metadata.
func (t *transcoder) mapping(indent int, meta bool) bool {
	depth := t.depth
	t.depth++
	defer func() { t.depth-- }()
	for len(t.keys) <= depth {
		t.keys = append(t.keys, nil)
	}
	t.keys[depth] = t.keys[depth][:0]
	t.out = append(t.out, '{')
	first := true
	for t.pos < len(t.lines) {
		l := t.lines[t.pos]
		if l.indent < indent || isItem(l.text) {
			break
		}
		if l.indent > indent {
			return false
		}
		key, rest, ok := splitKey(l.text)
		if !ok {
			return false
		}
		for _, k := range t.keys[depth] {
			// Duplicates, and keys equal but for case (encoding/json
			// folds them, the typed decoders do not): the slow path
			// decides those.
			if equalFoldASCII(k, key) {
				return false
			}
		}
		t.keys[depth] = append(t.keys[depth], key)
		if !first {
			t.out = append(t.out, ',')
		}
		first = false
		t.out = appendJSONString(t.out, key)
		t.out = append(t.out, ':')

		// The header's values must be strings.
		var capture *string
		switch {
		case depth == 0 && string(key) == "apiVersion":
			capture, t.hdr.hasVersion = &t.hdr.apiVersion, true
		case depth == 0 && string(key) == "kind":
			capture, t.hdr.hasKind = &t.hdr.kind, true
		case meta && string(key) == "name":
			capture = &t.hdr.name
		case meta && string(key) == "namespace":
			capture = &t.hdr.namespace
		}

		if len(rest) == 0 {
			if capture != nil {
				return false
			}
			// The value is below: further indented, a sequence at this
			// indentation, or null.
			switch {
			case t.next(indent):
				if !t.node(t.lines[t.pos].indent, depth == 0 && string(key) == "metadata") {
					return false
				}
			case t.pos < len(t.lines) && t.lines[t.pos].indent == indent && isItem(t.lines[t.pos].text):
				if t.depth >= maxDepth || !t.sequence(indent) {
					return false
				}
			default:
				t.out = append(t.out, "null"...)
			}
			continue
		}
		start := len(t.out)
		if !t.scalar(rest) {
			return false
		}
		if capture != nil {
			s, ok := jsonStringValue(t.out[start:])
			if !ok {
				return false
			}
			*capture = s
		}
		if t.next(indent) {
			return false // a continuation line: a multi-line scalar
		}
	}
	t.out = append(t.out, '}')
	return true
}

// next moves to the next line and reports whether it is indented further
// than indent.
func (t *transcoder) next(indent int) bool {
	t.pos++
	return t.pos < len(t.lines) && t.lines[t.pos].indent > indent
}

// jsonStringValue returns the string a JSON string literal without
// escapes holds.
func jsonStringValue(js []byte) (string, bool) {
	if len(js) < 2 || js[0] != '"' || js[len(js)-1] != '"' {
		return "", false
	}
	s := js[1 : len(js)-1]
	for _, c := range s {
		if c == '\\' || c == '"' {
			return "", false
		}
	}
	return string(s), true
}

func equalFoldASCII(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// isKeyLine reports whether text (a sequence entry's content) starts a
// mapping: a key followed by ":" and a space or the end of the line.
func isKeyLine(text []byte) bool {
	_, _, ok := splitKey(text)
	if ok {
		return true
	}
	// A plain scalar with ": " or a quoted key that splitKey refused: the
	// mapping refuses it.
	return containsColonSpace(text)
}

func containsColonSpace(text []byte) bool {
	for i, c := range text {
		if c == ':' && (i+1 == len(text) || text[i+1] == ' ') {
			return true
		}
	}
	return false
}

// splitKey splits "key: rest" (or "key:") into the key's string and the
// value text, trimmed; keys are plainKey or quoted.
func splitKey(text []byte) (key, rest []byte, ok bool) {
	var n int
	switch text[0] {
	case '"', '\'':
		var s []byte
		s, n, ok = quoted(text)
		if !ok || n > 1000 {
			return nil, nil, false
		}
		key = s
	default:
		for n < len(text) && text[n] != ':' {
			n++
		}
		if n == len(text) || !plainKey(text[:n]) {
			return nil, nil, false
		}
		key = text[:n]
	}
	if n >= len(text) || text[n] != ':' || (n+1 < len(text) && text[n+1] != ' ') {
		return nil, nil, false
	}
	rest = text[n+1:]
	for len(rest) > 0 && rest[0] == ' ' {
		rest = rest[1:]
	}
	if len(rest) > 0 && rest[0] == '#' {
		rest = nil // "key: # comment"
	}
	return key, rest, true
}

// plainKey reports whether k, a plain key, is a string to YAML 1.1 (not
// "<<") short enough for a YAML simple key (1024).
func plainKey(k []byte) bool {
	if len(k) == 0 || len(k) > 1000 {
		return false
	}
	if c := k[0]; !(isLetter(c) || c == '_' || c == '/') {
		return false
	}
	for _, c := range k[1:] {
		if !(isLetter(c) || isDigit(c) || c == '.' || c == '_' || c == '/' || c == '-') {
			return false
		}
	}
	return yaml11Word(k) == ""
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// yaml11Word returns the JSON of v when go-yaml v2 (YAML 1.1, resolve.go)
// resolves the plain scalar to a bool or null, and "" otherwise.
func yaml11Word(v []byte) string {
	switch string(v) {
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return "true"
	case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return "false"
	case "~", "null", "Null", "NULL":
		return "null"
	}
	return ""
}

// scalar appends the JSON of a value written on one line: a plain or
// quoted scalar, {} or [], with an optional comment after it.
func (t *transcoder) scalar(text []byte) bool {
	switch c := text[0]; {
	case c == '"' || c == '\'':
		s, n, ok := quoted(text)
		if !ok || !onlyComment(text[n:]) {
			return false
		}
		t.out = appendJSONString(t.out, s)
		return true
	case c == '{' || c == '[':
		if len(text) < 2 || text[1] != c+2 || !onlyComment(text[2:]) { // '{'+2 == '}', '['+2 == ']'
			return false
		}
		t.out = append(t.out, text[:2]...)
		return true
	case isDigit(c) || c == '-':
		v := plainEnd(text)
		switch {
		case v == nil:
			return false
		case canonicalInt(v):
			t.out = append(t.out, v...)
		case isDigit(c) && notNumber(v):
			t.out = appendJSONString(t.out, v) // 10s, 100Mi, 8080/TCP
		default:
			return false
		}
		return true
	case isLetter(c) || c == '/' || c == '_' || c == '$' || c == '~':
		v := plainEnd(text)
		if v == nil {
			return false
		}
		if js := yaml11Word(v); js != "" {
			t.out = append(t.out, js...)
			return true
		}
		if c == '~' {
			return false // other words starting with '~' are strings, but rare
		}
		t.out = appendJSONString(t.out, v)
		return true
	}
	return false
}

// plainEnd returns the plain scalar text starts with, without a trailing
// comment, or nil when ": " or a final ":" make it a mapping.
func plainEnd(text []byte) []byte {
	end := len(text)
	for i := 1; i < len(text); i++ {
		if text[i] == '#' && text[i-1] == ' ' {
			end = i
			break
		}
	}
	v := text[:end]
	for len(v) > 0 && v[len(v)-1] == ' ' {
		v = v[:len(v)-1]
	}
	if containsColonSpace(v) {
		return nil
	}
	return v
}

// canonicalInt reports whether v is an integer written as JSON writes it
// that fits an int64, which YAML 1.1 reads as the same integer.
func canonicalInt(v []byte) bool {
	d := v
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 {
		return false
	}
	if d[0] == '0' {
		return len(v) == 1
	}
	for _, c := range d {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// notNumber reports whether v, a plain scalar starting with a digit, is
// surely a string to go-yaml v2: not a timestamp, and holding a byte no
// integer nor float can hold.
func notNumber(v []byte) bool {
	if len(v) >= 5 && isDigit(v[0]) && isDigit(v[1]) && isDigit(v[2]) && isDigit(v[3]) && v[4] == '-' {
		return false
	}
	for _, c := range v {
		if !(isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' || strings.IndexByte("xXoO.+-_", c) >= 0) {
			return true
		}
	}
	return false
}

// onlyComment reports whether what follows a value is nothing or a comment.
func onlyComment(rest []byte) bool {
	if len(rest) == 0 {
		return true
	}
	if rest[0] != ' ' {
		return false
	}
	for len(rest) > 0 && rest[0] == ' ' {
		rest = rest[1:]
	}
	return len(rest) == 0 || rest[0] == '#'
}

// quoted reads a quoted scalar that ends on its line: the string and the
// bytes read, or false for escapes other than \\ \" \n \t \r.
func quoted(text []byte) (s []byte, n int, ok bool) {
	q := text[0]
	var out []byte
	for i := 1; i < len(text); i++ {
		c := text[i]
		switch {
		case c == q && q == '\'':
			if i+1 < len(text) && text[i+1] == '\'' {
				out = append(out, '\'')
				i++
				continue
			}
			return out, i + 1, true
		case c == q:
			return out, i + 1, true
		case c == '\\' && q == '"':
			if i+1 == len(text) {
				return nil, 0, false
			}
			i++
			switch text[i] {
			case '\\', '"':
				out = append(out, text[i])
			case 'n':
				out = append(out, '\n')
			case 't':
				out = append(out, '\t')
			case 'r':
				out = append(out, '\r')
			default:
				return nil, 0, false
			}
		default:
			out = append(out, c)
		}
	}
	return nil, 0, false
}

// appendJSONString appends s as a JSON string.
func appendJSONString(dst, s []byte) []byte {
	dst = append(dst, '"')
	clean := 0
	for clean < len(s) && s[clean] >= 0x20 && s[clean] != '"' && s[clean] != '\\' {
		clean++
	}
	dst = append(dst, s[:clean]...)
	for _, c := range s[clean:] {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c < 0x20:
			dst = append(dst, `\u00`...)
			dst = append(dst, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
