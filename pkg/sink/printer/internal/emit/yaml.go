package emit

import (
	"encoding/json"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/sink/effectivepolicy"
	"github.com/strata-dev/strata/pkg/sink/status"
)

// yamlEmitter writes JSON-shaped values as YAML, byte for byte what go-yaml
// v2 writes, without its per-value events and reflection: block mappings
// and sequences, empty ones in flow style, simple and explicit ("? ")
// keys, and the plain, quoted and literal styles folded at column 80.
// Other types go through encoding/json first (jsonTree), but for the few
// written from their fields (typed.go).
type yamlEmitter struct {
	w   io.Writer
	buf []byte
	err error

	column     int  // in characters, not bytes, as go-yaml counts
	indent     int  // current indentation; -1 before the root node
	whitespace bool // the last character written was whitespace
	indention  bool // only indentation has been written on this line

	// The context of the node being emitted (emitter.*_context).
	sequenceContext, mappingContext, simpleKeyContext bool

	keys [][]string // scratch key lists, one per mapping depth

	// What the emitter remembers of recent strings and parts (again.go).
	seen    *[seenSize]seenScalar
	trees   *[treesSize]seenTree
	refText *[refsSize]textSlot[strata.Ref]
	sources *[condsSize]textSlot[sourceKey]
	conds   *[condsSize]textSlot[metav1.Condition]
	time    *seenTime
	parts   *[partsSize]textSlot[unsafe.Pointer] // shared by identity
	holding int                                  // parts being remembered: no flush meanwhile
	seed    maphash.Seed
}

// seenScalar is a string's analysis and the style its value takes.
type seenScalar struct {
	s     string
	a     analysis
	style scalarStyle
}

// seenSize is how many strings an emitter remembers, by hash; seenMax is
// the longest remembered.
const (
	seenSize = 512
	seenMax  = 64
)

// go-yaml's defaults: best_indent 2, best_width 80.
const (
	yamlIndent = 2
	yamlWidth  = 80
)

func newYAMLEmitter(w io.Writer) *yamlEmitter {
	return &yamlEmitter{w: w, indent: -1, whitespace: true, indention: true, buf: make([]byte, 0, 64<<10), seen: new([seenSize]seenScalar), trees: new([treesSize]seenTree), refText: new([refsSize]textSlot[strata.Ref]), sources: new([condsSize]textSlot[sourceKey]), conds: new([condsSize]textSlot[metav1.Condition]), time: &seenTime{}, parts: new([partsSize]textSlot[unsafe.Pointer]), seed: maphash.MakeSeed()}
}

// flush writes what is buffered once there is enough, or always with all.
func (e *yamlEmitter) flush(all bool) error {
	if e.err != nil {
		return e.err
	}
	if len(e.buf) > 0 && e.holding == 0 && (all || len(e.buf) >= 32<<10) {
		_, e.err = e.w.Write(e.buf)
		e.buf = e.buf[:0]
	}
	return e.err
}

func (e *yamlEmitter) put(c byte) {
	e.buf = append(e.buf, c)
	e.column++
}

func (e *yamlEmitter) putBreak() {
	e.buf = append(e.buf, '\n')
	e.column = 0
}

// write copies the character at s[*i] and advances *i past it.
func (e *yamlEmitter) write(s string, i *int) {
	w := width(s[*i])
	if w == 0 || *i+w > len(s) {
		w = 1 // not UTF-8: the caller made it valid; never reached
	}
	e.buf = append(e.buf, s[*i:*i+w]...)
	e.column++
	*i += w
}

func (e *yamlEmitter) writeAll(s string) {
	for i := 0; i < len(s); {
		e.write(s, &i)
	}
}

func (e *yamlEmitter) writeBreak(s string, i *int) {
	if s[*i] == '\n' {
		e.putBreak()
		*i++
		return
	}
	e.write(s, i)
	e.column = 0
}

// writeIndent is yaml_emitter_write_indent.
func (e *yamlEmitter) writeIndent() {
	indent := max(e.indent, 0)
	if !e.indention || e.column > indent || (e.column == indent && !e.whitespace) {
		e.putBreak()
	}
	if n := indent - e.column; n > 0 && n <= len(spaces) {
		e.buf = append(e.buf, spaces[:n]...)
		e.column = indent
	}
	for e.column < indent {
		e.put(' ')
	}
	e.whitespace = true
	e.indention = true
}

// writeIndicator is yaml_emitter_write_indicator.
func (e *yamlEmitter) writeIndicator(indicator string, needWhitespace, isWhitespace, isIndention bool) {
	if needWhitespace && !e.whitespace {
		e.put(' ')
	}
	e.writeAll(indicator)
	e.whitespace = isWhitespace
	e.indention = e.indention && isIndention
}

// increaseIndent is yaml_emitter_increase_indent; it returns the indent
// to restore.
func (e *yamlEmitter) increaseIndent(flow, indentless bool) int {
	saved := e.indent
	if e.indent < 0 {
		if flow {
			e.indent = yamlIndent
		} else {
			e.indent = 0
		}
	} else if !indentless {
		e.indent += yamlIndent
	}
	return saved
}

// node is yaml_emitter_emit_node for a value of any type; depth counts
// the mappings above it (for the scratch key lists).
func (e *yamlEmitter) node(v any, sequence, mapping, simpleKey bool, depth int) error {
	e.sequenceContext, e.mappingContext, e.simpleKeyContext = sequence, mapping, simpleKey
	switch x := v.(type) {
	case nil:
		e.plainScalar("null")
	case string:
		e.stringScalar(validUTF8(x))
	case bool:
		e.plainScalar(strconv.FormatBool(x))
	case int:
		e.plainScalar(strconv.FormatInt(int64(x), 10))
	case int32:
		e.plainScalar(strconv.FormatInt(int64(x), 10))
	case int64:
		e.plainScalar(strconv.FormatInt(x, 10))
	case uint64:
		e.plainScalar(strconv.FormatUint(x, 10))
	case float64:
		s, err := floatText(x)
		if err != nil {
			return err
		}
		e.plainScalar(s)
	case json.Number:
		e.plainScalar(numberText(x))
	case map[string]any:
		return e.mapping(x, depth)
	case jsonObject:
		return e.object(x, depth)
	case []any:
		return e.sequence(x, depth)
	case *strata.EffectivePolicy:
		if x != nil && effectivepolicy.SimpleMeta(&x.ObjectMeta) {
			writeEffectivePolicy(e, x, depth)
			return e.err
		}
		return e.generic(v, sequence, mapping, simpleKey, depth)
	case strata.EffectivePolicy:
		return e.node(&x, sequence, mapping, simpleKey, depth)
	case *query.Impact:
		return e.orNull(x == nil, func() error { writeImpact(e, x, depth); return e.err })
	case query.Impact:
		return e.node(&x, sequence, mapping, simpleKey, depth)
	case *status.Fragment:
		return e.orNull(x == nil, func() error { return e.fragment(x, depth) })
	case *status.PolicyObject:
		return e.orNull(x == nil, func() error { return e.policyObject(x, depth) })
	default:
		return e.generic(v, sequence, mapping, simpleKey, depth)
	}
	return nil
}

// generic emits a typed value as its JSON read back, as sigs.k8s.io/yaml
// does.
func (e *yamlEmitter) generic(v any, sequence, mapping, simpleKey bool, depth int) error {
	g, err := jsonTree(v)
	if err != nil {
		return err
	}
	return e.node(g, sequence, mapping, simpleKey, depth)
}

// sequence emits a block sequence, or [] when empty.
func (e *yamlEmitter) sequence(items []any, depth int) error {
	return e.items(len(items), func(i int) error { return e.node(items[i], true, false, false, depth) })
}

// emptyFlow emits an empty flow collection.
func (e *yamlEmitter) emptyFlow(open, close string) {
	e.writeIndicator(open, true, true, false)
	e.writeIndicator(close, false, false, false)
}

// scratchKeys is the key list of depth, emptied, to sort a mapping's
// keys in without making a list per mapping; the caller stores it back
// (e.keys[depth]) once grown.
func (e *yamlEmitter) scratchKeys(depth int) keyList {
	for len(e.keys) <= depth {
		e.keys = append(e.keys, nil)
	}
	return keyList(e.keys[depth][:0])
}

// mapping emits a block mapping with go-yaml's key order, or {} when
// empty.
func (e *yamlEmitter) mapping(m map[string]any, depth int) error {
	if len(m) == 0 {
		e.emptyFlow("{", "}")
		return nil
	}
	keys := e.sortedKeys(m, depth)
	if keys == nil { // keys not UTF-8: two may become one in the JSON
		return e.generic(m, e.sequenceContext, e.mappingContext, e.simpleKeyContext, depth)
	}
	saved := e.increaseIndent(false, false)
	for _, k := range keys {
		if err := e.entry(k, m[k], depth); err != nil {
			return err
		}
		if err := e.flush(false); err != nil {
			return err
		}
	}
	e.indent = saved
	return nil
}

// sortedKeys is m's keys in go-yaml's order, in the key list of depth, or
// nil when one is not UTF-8. When m has the keys of the previous map at
// that depth, the list is already sorted.
func (e *yamlEmitter) sortedKeys(m map[string]any, depth int) keyList {
	keys := e.scratchKeys(depth)
	if last := e.keys[depth]; len(last) == len(m) {
		same := true
		for _, k := range last {
			if _, ok := m[k]; !ok {
				same = false
				break
			}
		}
		if same {
			return last
		}
	}
	valid := true
	for k := range m {
		keys = append(keys, k)
		valid = valid && utf8.ValidString(k)
	}
	if !valid {
		e.keys[depth] = keys[:0]
		return nil
	}
	sort.Sort(&keys) // a pointer: no allocation
	e.keys[depth] = keys
	return keys
}

// object is mapping for an object read by readJSON.
func (e *yamlEmitter) object(o jsonObject, depth int) error {
	if len(o) == 0 {
		e.emptyFlow("{", "}")
		return nil
	}
	sortMembers(o)
	saved := e.increaseIndent(false, false)
	for i, m := range o {
		if i+1 < len(o) && o[i+1].key == m.key {
			continue // a name given twice in raw JSON: encoding/json keeps the last
		}
		if err := e.entry(m.key, m.value, depth); err != nil {
			return err
		}
		if err := e.flush(false); err != nil {
			return err
		}
	}
	e.indent = saved
	return nil
}

// entry emits one key and its value in a block mapping
// (yaml_emitter_emit_block_mapping_key and _value).
func (e *yamlEmitter) entry(k string, v any, depth int) error {
	e.key(k)
	return e.node(v, false, true, false, depth+1)
}

// key emits a block mapping's key and the ":" after it; the value
// follows in the mapping context (yaml_emitter_emit_block_mapping_key).
func (e *yamlEmitter) key(k string) {
	e.writeIndent()
	if isWord(k) { // what the steps below write for such a key, at once
		e.buf = append(append(e.buf, k...), ':')
		e.column += len(k) + 1
		e.whitespace, e.indention = false, false
		e.sequenceContext, e.mappingContext, e.simpleKeyContext = false, true, true
		return
	}
	a, style := e.classify(k)
	if !a.multiline && len(k) <= 128 { // yaml_emitter_check_simple_key
		e.sequenceContext, e.mappingContext, e.simpleKeyContext = false, true, true
		e.scalar(k, style, a)
		e.writeIndicator(":", false, false, false)
	} else {
		e.writeIndicator("?", true, false, true)
		e.sequenceContext, e.mappingContext, e.simpleKeyContext = false, true, false
		e.scalar(k, style, a)
		e.writeIndent()
		e.writeIndicator(":", true, false, true)
	}
}

// Scalar styles.
type scalarStyle int

const (
	plainStyle scalarStyle = iota
	singleQuotedStyle
	doubleQuotedStyle
	literalStyle
)

// plainScalar emits a number, boolean or null: go-yaml asks for the
// plain style.
func (e *yamlEmitter) plainScalar(s string) {
	e.scalar(s, plainStyle, analyze(s))
}

// stringScalar emits a string with the style go-yaml's encoder asks for
// (encoder.stringv): literal when it has a line feed, plain when it reads
// back as a string, double-quoted otherwise.
func (e *yamlEmitter) stringScalar(s string) {
	a, style := e.classify(s)
	e.scalar(s, style, a)
}

// classify is a string's analysis and the style stringScalar gives it,
// both functions of the string alone, remembered for short strings.
func (e *yamlEmitter) classify(s string) (analysis, scalarStyle) {
	if len(s) == 0 || len(s) > seenMax { // "" is an empty slot's
		return stringStyle(s)
	}
	slot := &e.seen[maphash.String(e.seed, s)%seenSize]
	if slot.s == s {
		return slot.a, slot.style
	}
	a, style := stringStyle(s)
	*slot = seenScalar{s, a, style}
	return a, style
}

// stringStyle is classify without memory.
func stringStyle(s string) (analysis, scalarStyle) {
	style := doubleQuotedStyle
	switch {
	case strings.Contains(s, "\n"):
		style = literalStyle
	case resolvesToString(s) && !isBase60Float(s):
		style = plainStyle
	}
	return analyze(s), style
}

// scalar is yaml_emitter_emit_scalar: the emitter's choice of style
// (yaml_emitter_select_scalar_style, outside flow collections, as every
// scalar here is), then the scalar at one more level of indentation.
func (e *yamlEmitter) scalar(s string, style scalarStyle, a analysis) {
	if e.simpleKeyContext && a.multiline {
		style = doubleQuotedStyle
	}
	if style == plainStyle {
		if !a.blockPlainAllowed || len(s) == 0 && e.simpleKeyContext {
			style = singleQuotedStyle
		}
	}
	if style == singleQuotedStyle && !a.singleQuotedAllowed {
		style = doubleQuotedStyle
	}
	if style == literalStyle && (!a.blockAllowed || e.simpleKeyContext) {
		style = doubleQuotedStyle
	}
	saved := e.increaseIndent(true, false)
	allowBreaks := !e.simpleKeyContext
	switch style {
	case plainStyle:
		e.writePlain(s, allowBreaks)
	case singleQuotedStyle:
		e.writeSingleQuoted(s, allowBreaks)
	case doubleQuotedStyle:
		e.writeDoubleQuoted(s, allowBreaks)
	case literalStyle:
		e.writeLiteral(s)
	}
	e.indent = saved
}

// analysis is what yaml_emitter_analyze_scalar finds out about a scalar
// (the flow-only answers left out: no scalar here is in a flow
// collection).
type analysis struct {
	multiline           bool
	blockPlainAllowed   bool
	singleQuotedAllowed bool
	blockAllowed        bool
}

// analyze is yaml_emitter_analyze_scalar.
func analyze(value string) analysis {
	if len(value) == 0 {
		return analysis{blockPlainAllowed: true, singleQuotedAllowed: true}
	}
	if isName(value) {
		return analysis{blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: true}
	}
	var blockIndicators, lineBreaks, specialCharacters,
		leadingSpace, leadingBreak, trailingSpace, trailingBreak, breakSpace, spaceBreak,
		previousSpace, previousBreak bool
	if len(value) >= 3 && (value[:3] == "---" || value[:3] == "...") {
		blockIndicators = true
	}
	precededByWhitespace := true
	for i, w := 0, 0; i < len(value); i += w {
		w = max(width(value[i]), 1)
		followedByWhitespace := i+w >= len(value) || isBlank(value, i+w)
		if i == 0 {
			switch value[i] {
			case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
				blockIndicators = true
			case '?', ':':
				if followedByWhitespace {
					blockIndicators = true
				}
			case '-':
				if followedByWhitespace {
					blockIndicators = true
				}
			}
		} else {
			switch value[i] {
			case ':':
				if followedByWhitespace {
					blockIndicators = true
				}
			case '#':
				if precededByWhitespace {
					blockIndicators = true
				}
			}
		}
		if !isPrintable(value, i) {
			specialCharacters = true
		}
		if value[i] == ' ' {
			if i == 0 {
				leadingSpace = true
			}
			if i+w == len(value) {
				trailingSpace = true
			}
			if previousBreak {
				breakSpace = true
			}
			previousSpace, previousBreak = true, false
		} else if isBreak(value, i) {
			lineBreaks = true
			if i == 0 {
				leadingBreak = true
			}
			if i+w == len(value) {
				trailingBreak = true
			}
			if previousSpace {
				spaceBreak = true
			}
			previousSpace, previousBreak = false, true
		} else {
			previousSpace, previousBreak = false, false
		}
		precededByWhitespace = isBlankz(value, i)
	}
	a := analysis{multiline: lineBreaks, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: true}
	if leadingSpace || leadingBreak || trailingSpace || trailingBreak {
		a.blockPlainAllowed = false
	}
	if trailingSpace {
		a.blockAllowed = false
	}
	if breakSpace {
		a.blockPlainAllowed = false
		a.singleQuotedAllowed = false
	}
	if spaceBreak || specialCharacters {
		a.blockPlainAllowed = false
		a.singleQuotedAllowed = false
		a.blockAllowed = false
	}
	if lineBreaks || blockIndicators {
		a.blockPlainAllowed = false
	}
	return a
}

// writePlain is yaml_emitter_write_plain_scalar.
func (e *yamlEmitter) writePlain(value string, allowBreaks bool) {
	if !e.whitespace {
		e.put(' ')
	}
	if isPlainASCII(value) { // nothing to fold
		e.buf = append(e.buf, value...)
		e.column += len(value)
	} else {
		e.writeFolded(value, allowBreaks, false)
	}
	e.whitespace = false
	e.indention = false
}

// writeSingleQuoted is yaml_emitter_write_single_quoted_scalar.
func (e *yamlEmitter) writeSingleQuoted(value string, allowBreaks bool) {
	e.writeIndicator("'", true, false, false)
	e.writeFolded(value, allowBreaks, true)
	e.writeIndicator("'", false, false, false)
	e.whitespace = false
	e.indention = false
}

// writeFolded is the loop writePlain and writeSingleQuoted (quoted) share.
func (e *yamlEmitter) writeFolded(value string, allowBreaks, quoted bool) {
	spaces, breaks := false, false
	for i := 0; i < len(value); {
		switch {
		case value[i] == ' ':
			if allowBreaks && !spaces && e.column > yamlWidth && (!quoted || i > 0 && i < len(value)-1) && !isSpace(value, i+1) {
				e.writeIndent()
				i++
			} else {
				e.write(value, &i)
			}
			spaces = true
		case isBreak(value, i):
			if !breaks && value[i] == '\n' {
				e.putBreak()
			}
			e.writeBreak(value, &i)
			e.indention = true
			breaks = true
		default:
			if breaks {
				e.writeIndent()
			}
			if quoted && value[i] == '\'' {
				e.put('\'')
			}
			e.write(value, &i)
			e.indention = false
			spaces, breaks = false, false
		}
	}
}

// writeDoubleQuoted is yaml_emitter_write_double_quoted_scalar.
func (e *yamlEmitter) writeDoubleQuoted(value string, allowBreaks bool) {
	spaces := false
	e.writeIndicator(`"`, true, false, false)
	for i := 0; i < len(value); {
		if !isPrintable(value, i) || isBOM(value) || isBreak(value, i) || value[i] == '"' || value[i] == '\\' {
			v, w := utf8.DecodeRuneInString(value[i:])
			i += w
			e.put('\\')
			if c, ok := yamlEscapes[v]; ok {
				e.put(c)
			} else {
				digits := 8
				switch {
				case v <= 0xFF:
					e.put('x')
					digits = 2
				case v <= 0xFFFF:
					e.put('u')
					digits = 4
				default:
					e.put('U')
				}
				for k := (digits - 1) * 4; k >= 0; k -= 4 {
					e.put("0123456789ABCDEF"[(v>>uint(k))&0x0F])
				}
			}
			spaces = false
		} else if value[i] == ' ' {
			if allowBreaks && !spaces && e.column > yamlWidth && i > 0 && i < len(value)-1 {
				e.writeIndent()
				if isSpace(value, i+1) {
					e.put('\\')
				}
				i++
			} else {
				e.write(value, &i)
			}
			spaces = true
		} else {
			e.write(value, &i)
			spaces = false
		}
	}
	e.writeIndicator(`"`, false, false, false)
	e.whitespace = false
	e.indention = false
}

// yamlEscapes are the one-character escapes of writeDoubleQuoted.
var yamlEscapes = map[rune]byte{0x00: '0', 0x07: 'a', 0x08: 'b', 0x09: 't', 0x0A: 'n', 0x0b: 'v', 0x0c: 'f',
	0x0d: 'r', 0x1b: 'e', 0x22: '"', 0x5c: '\\', 0x85: 'N', 0xA0: '_', 0x2028: 'L', 0x2029: 'P'}

// writeBlockScalarHints is yaml_emitter_write_block_scalar_hints.
func (e *yamlEmitter) writeBlockScalarHints(value string) {
	if isSpace(value, 0) || isBreak(value, 0) {
		e.writeIndicator(string(rune('0'+yamlIndent)), false, false, false)
	}
	var chomp string
	if len(value) == 0 {
		chomp = "-"
	} else {
		i := len(value) - 1
		for i > 0 && value[i]&0xC0 == 0x80 {
			i--
		}
		if !isBreak(value, i) {
			chomp = "-"
		} else if i == 0 {
			chomp = "+"
		} else {
			i--
			for i > 0 && value[i]&0xC0 == 0x80 {
				i--
			}
			if isBreak(value, i) {
				chomp = "+"
			}
		}
	}
	if chomp != "" {
		e.writeIndicator(chomp, false, false, false)
	}
}

// writeLiteral is yaml_emitter_write_literal_scalar.
func (e *yamlEmitter) writeLiteral(value string) {
	e.writeIndicator("|", true, false, false)
	e.writeBlockScalarHints(value)
	e.putBreak()
	e.indention = true
	e.whitespace = true
	breaks := true
	for i := 0; i < len(value); {
		if isBreak(value, i) {
			e.writeBreak(value, &i)
			e.indention = true
			breaks = true
		} else {
			if breaks {
				e.writeIndent()
			}
			e.write(value, &i)
			e.indention = false
			breaks = false
		}
	}
}

// The character classes of yamlprivateh.go, on strings; a character past
// the end is none of them.
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func isSpace(s string, i int) bool { return at(s, i) == ' ' }

func isBlank(s string, i int) bool { c := at(s, i); return c == ' ' || c == '\t' }

func isBreak(s string, i int) bool {
	c := at(s, i)
	return c == '\r' || c == '\n' ||
		c == 0xC2 && at(s, i+1) == 0x85 ||
		c == 0xE2 && at(s, i+1) == 0x80 && (at(s, i+2) == 0xA8 || at(s, i+2) == 0xA9)
}

func isBlankz(s string, i int) bool { return isBlank(s, i) || isBreak(s, i) || at(s, i) == 0 }

// isBOM is go-yaml's is_bom, which looks at the start of the value
// whatever the position it is asked about.
func isBOM(s string) bool { return at(s, 0) == 0xEF && at(s, 1) == 0xBB && at(s, 2) == 0xBF }

func isPrintable(s string, i int) bool {
	c, c1, c2 := at(s, i), at(s, i+1), at(s, i+2)
	return c == 0x0A ||
		c >= 0x20 && c <= 0x7E ||
		c == 0xC2 && c1 >= 0xA0 ||
		c > 0xC2 && c < 0xED ||
		c == 0xED && c1 < 0xA0 ||
		c == 0xEE ||
		c == 0xEF && !(c1 == 0xBB && c2 == 0xBF) && !(c1 == 0xBF && (c2 == 0xBE || c2 == 0xBF))
}

func width(b byte) int {
	switch {
	case b&0x80 == 0x00:
		return 1
	case b&0xE0 == 0xC0:
		return 2
	case b&0xF0 == 0xE0:
		return 3
	case b&0xF8 == 0xF0:
		return 4
	}
	return 0
}

// isName reports whether s is made of letters, digits and "-._/" only, not
// starting with "-" or ".": every check of analyze passes for it.
func isName(s string) bool {
	if s[0] == '-' || s[0] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '/') {
			return false
		}
	}
	return true
}

// spaces are what writeIndent writes at once.
const spaces = "                                                                " // 64

// isWord reports whether a key is a word of at most 128 ASCII letters that
// YAML 1.1 reads as a string: it is written as it is.
func isWord(k string) bool {
	if len(k) == 0 || len(k) > 128 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	if len(k) > 5 {
		return true
	}
	return resolvesToString(k)
}

// isPlainASCII reports whether s is printable ASCII without spaces,
// which writePlain can copy as it is.
func isPlainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c > 0x7E {
			return false
		}
	}
	return true
}

// validUTF8 is s as encoding/json writes it and reads it back: each byte
// that is not UTF-8 becomes U+FFFD.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r)
		i += w
	}
	return b.String()
}

// floatText is the text go-yaml writes for a float64 that went through
// JSON: encoding/json's text, read back as yamlNumbers reads it.
func floatText(f float64) (string, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "", fmt.Errorf("encode output: json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	js, err := json.Marshal(f)
	if err != nil {
		return "", fmt.Errorf("encode output: %w", err)
	}
	return numberText(json.Number(js)), nil
}

// numberText is the text go-yaml writes for the number yamlNumbers makes
// of n.
func numberText(n json.Number) string {
	switch x := yamlNumbers(n).(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		switch s {
		case "+Inf":
			s = ".inf"
		case "-Inf":
			s = "-.inf"
		case "NaN":
			s = ".nan"
		}
		return s
	}
	return string(n)
}

// keyList sorts map keys as go-yaml v2 does (sorter.go): runs of digits
// compare as numbers, letters before other characters.
type keyList []string

func (l keyList) Len() int           { return len(l) }
func (l keyList) Swap(i, j int)      { l[i], l[j] = l[j], l[i] }
func (l keyList) Less(i, j int) bool { return keyLess(l[i], l[j]) }

// keyLess is go-yaml v2's order of two string keys.
func keyLess(a, b string) bool {
	if isASCII(a) && isASCII(b) {
		return naturalLess(a, b, len(a), len(b), func(s string, k int) rune { return rune(s[k]) })
	}
	ar, br := []rune(a), []rune(b)
	return naturalLess(ar, br, len(ar), len(br), func(s []rune, k int) rune { return s[k] })
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// naturalLess is keyList.Less of go-yaml v2's sorter.go for two strings,
// over their characters (bytes for ASCII, runes otherwise).
func naturalLess[S any](ar, br S, alen, blen int, r func(S, int) rune) bool {
	for i := 0; i < alen && i < blen; i++ {
		if r(ar, i) == r(br, i) {
			continue
		}
		al := unicode.IsLetter(r(ar, i))
		bl := unicode.IsLetter(r(br, i))
		if al && bl {
			return r(ar, i) < r(br, i)
		}
		if al || bl {
			return bl
		}
		var ai, bi int
		var an, bn int64
		if r(ar, i) == '0' || r(br, i) == '0' {
			for j := i - 1; j >= 0 && unicode.IsDigit(r(ar, j)); j-- {
				if r(ar, j) != '0' {
					an = 1
					bn = 1
					break
				}
			}
		}
		for ai = i; ai < alen && unicode.IsDigit(r(ar, ai)); ai++ {
			an = an*10 + int64(r(ar, ai)-'0')
		}
		for bi = i; bi < blen && unicode.IsDigit(r(br, bi)); bi++ {
			bn = bn*10 + int64(r(br, bi)-'0')
		}
		if an != bn {
			return an < bn
		}
		if ai != bi {
			return ai < bi
		}
		return r(ar, i) < r(br, i)
	}
	return alen < blen
}

// resolvesToString reports whether go-yaml v2 reads s, unquoted, back as
// a string (resolve.go's resolve with no tag): if not, the encoder quotes
// it.
func resolvesToString(s string) bool {
	if s == "" {
		return false // null
	}
	hint := resolveHint(s[0])
	if hint == 0 {
		return true
	}
	if len(s) <= maxResolveWord && resolveMap[s] {
		return false
	}
	switch hint {
	case '.':
		return !isFloat(s)
	case 'D', 'S':
		plain := strings.ReplaceAll(s, "_", "")
		return !(isTimestamp(s) || isInt(plain, 0) || yamlStyleFloat.MatchString(plain) && isFloat(plain) ||
			strings.HasPrefix(plain, "0b") && isInt(plain[2:], 2) || strings.HasPrefix(plain, "-0b") && isInt("-"+plain[3:], 2))
	}
	return true
}

// isInt reports whether s parses as an int64 or a uint64 in base.
func isInt(s string, base int) bool {
	if _, err := strconv.ParseInt(s, base, 64); err == nil {
		return true
	}
	_, err := strconv.ParseUint(s, base, 64)
	return err == nil
}

func isFloat(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// resolveHint is resolve.go's resolveTable.
func resolveHint(c byte) byte {
	switch {
	case c == '+' || c == '-':
		return 'S'
	case c >= '0' && c <= '9':
		return 'D'
	case strings.IndexByte("yYnNtTfFoO~", c) >= 0:
		return 'M'
	case c == '.':
		return '.'
	}
	return 0
}

// resolveMap holds the words go-yaml v2 reads as booleans, null, special
// floats and the merge key.
var resolveMap = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`y Y yes Yes YES true True TRUE on On ON n N no No NO false False FALSE
		off Off OFF ~ null Null NULL .nan .NaN .NAN .inf .Inf .INF +.inf +.Inf +.INF -.inf -.Inf -.INF <<`) {
		m[w] = true
	}
	return m
}()

// maxResolveWord is the length of resolveMap's longest word ("FALSE",
// "+.inf"): a longer string is not looked up (TestMaxResolveWord).
const maxResolveWord = 5

var yamlStyleFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// isTimestamp is resolve.go's parseTimestamp succeeding.
func isTimestamp(s string) bool {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			break
		}
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, format := range []string{
		"2006-1-2T15:4:5.999999999Z07:00",
		"2006-1-2t15:4:5.999999999Z07:00",
		"2006-1-2 15:4:5.999999999",
		"2006-1-2",
	} {
		if _, err := time.Parse(format, s); err == nil {
			return true
		}
	}
	return false
}

// isBase60Float is encode.go's isBase60Float: such strings are quoted for
// YAML 1.1 readers.
func isBase60Float(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	if !(c == '+' || c == '-' || c >= '0' && c <= '9') || strings.IndexByte(s, ':') < 0 {
		return false
	}
	return base60float.MatchString(s)
}

var base60float = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`)

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
