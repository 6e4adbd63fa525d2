// Package printer writes objects for people and programs. It is the only
// place that formats output; commands hand it data.
package printer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/strata-dev/strata/pkg/sink/status"
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
	if format == JSON {
		out, err := newJSONWriter("").item(v, nil)
		if err != nil {
			return err
		}
		_, err = w.Write(append(out, '\n'))
		return err
	}
	if format != YAML && format != "" {
		return fmt.Errorf("output format %q: want yaml or json", format)
	}
	// The emitter, as for a List's items: go-yaml's bytes for the value's
	// JSON (TestPrintWholeIsGoYAML), without go-yaml's heap of about 100
	// bytes per byte written, which made the 100 MB answer of `strata
	// impact -o yaml` about a policy that reaches every target take
	// gigabytes (docs/performance.md, "Every command, fifteenth pass").
	bw := bufio.NewWriterSize(w, 64<<10)
	e := newYAMLEmitter(bw)
	if err := e.node(v, false, false, false, 0); err != nil {
		return err
	}
	e.indent = -1
	e.writeIndent() // the document's end
	if err := e.flush(true); err != nil {
		return err
	}
	return bw.Flush()
}

// isList reports whether l is what List makes.
func isList(l map[string]any) bool {
	_, items := l["items"].([]any)
	return len(l) == 3 && items && l["apiVersion"] == "v1" && l["kind"] == "List"
}

// printList writes a List item by item, the bytes Print would write for
// the whole of it, without the whole document's generic tree in memory.
// The 4,000 descriptions of `describe colorpolicy -A -o yaml` on the
// performance world are 20 MB. Items takes a nil item for none, so a List holding a null is
// written an item at a time.
func printList(w io.Writer, l map[string]any, format string) error {
	lw, err := NewListWriter(w, format)
	if err != nil {
		return err
	}
	items := l["items"].([]any)
	if slices.Contains(items, nil) {
		for _, item := range items {
			if err := lw.Item(item); err != nil {
				return err
			}
		}
	} else if err := lw.Items(len(items), func(i int) any { return items[i] }); err != nil {
		return err
	}
	return lw.Close()
}

// ListWriter writes a v1 List (what Print writes for List(items)) one
// item at a time, so that a command can make each item, print it and let
// it go: printing a 100 MB answer whole cost about 100 bytes of heap per
// byte of output (issue 11, "No cliffs"), and making all items first kept
// them all. Memory is bounded by the largest item. The bytes are those of
// Print(w, List(items), format): each item is encoded in its place in the
// document (YAML: at the emitter's columns there, so that long strings
// fold where they fold in the whole document; JSON: indented at the
// items' depth).
type ListWriter struct {
	w      io.Writer
	format string
	n      int          // items written
	y      *yamlEmitter // YAML: the emitter, its state kept across items
	j      *jsonWriter  // JSON: the writer of Item's items
	saved  int          // YAML: the indent to restore after the items
	// broken: the last item Items rendered ended on a line break (a
	// block scalar keeping its breaks, |+), where the emitter writing
	// every item in turn starts the next at its indent without one.
	broken bool
}

// NewListWriter starts a List on w in format (yaml or json). Nothing is
// written before the first Item or Close.
func NewListWriter(w io.Writer, format string) (*ListWriter, error) {
	switch format {
	case YAML, "":
		return &ListWriter{w: w, format: YAML, y: newYAMLEmitter(w)}, nil
	case JSON:
		return &ListWriter{w: w, format: JSON}, nil
	}
	return nil, fmt.Errorf("output format %q: want yaml or json", format)
}

// Item writes the next item.
func (l *ListWriter) Item(item any) error {
	if l.format == JSON {
		if l.j == nil {
			l.j = newJSONWriter(jsonPrefix)
		}
		part, err := l.j.item(jsonItem(item), nil)
		if err != nil {
			return err
		}
		return l.rendered(part)
	}
	first := l.n == 0
	l.n++
	e := l.y
	if first {
		var err error
		if l.saved, err = e.listHeader(); err != nil {
			return err
		}
	}
	if l.broken {
		e.column, e.whitespace, e.indention = 0, true, true // after Items' last part
	}
	if err := e.listItem(item); err != nil {
		return err
	}
	l.broken = e.column == 0
	return e.flush(false)
}

// listHeader writes what comes before a List's first item: the List is
// a mapping of apiVersion, items and kind (go-yaml's key order), its
// items a block sequence under "items:". It returns the indent to
// restore after the items.
func (e *yamlEmitter) listHeader() (int, error) {
	e.indent = 0
	if err := e.entry("apiVersion", "v1", 0); err != nil {
		return 0, err
	}
	e.writeIndent()
	e.sequenceContext, e.mappingContext, e.simpleKeyContext = false, true, true
	e.stringScalar("items")
	e.writeIndicator(":", false, false, false)
	e.sequenceContext, e.mappingContext, e.simpleKeyContext = false, true, false
	return e.increaseIndent(false, e.mappingContext && !e.indention), nil
}

// listItem writes one item of the List's block sequence.
func (e *yamlEmitter) listItem(item any) error {
	e.writeIndent()
	e.writeIndicator("-", true, false, true)
	return e.node(item, true, false, false, 1)
}

// Items writes n items, item(i) being the i-th, or nil for none (an item
// a filter left out), exactly as n calls of Item would, each rendered
// into the same buffer and written before the next is made, so memory
// holds one item, not the List. The first error, in the items' order,
// ends the List there.
//
// A YAML item is rendered by an emitter of its own, in the state the
// List's header leaves: an item starts on a new line at the sequence's
// indent whether the header or another item came before it, so the
// bytes are those of the emitter that wrote them all in turn
// (TestItemsAsItem).
func (l *ListWriter) Items(n int, item func(i int) any) error {
	return l.ItemsBy(n, func() func(int) any { return item })
}

// ItemsBy is Items with an item function made by worker, which Items
// calls again only once it has rendered the item the last call
// returned. The items of one
// function may so be made in the same memory, each overwriting the last
// (effectivepolicy.Scratch): tens of thousands of items then take the
// memory of a few, not of all.
func (l *ListWriter) ItemsBy(n int, worker func() func(i int) any) error {
	render, item := l.renderer(), worker()
	var buf []byte
	for i := range n {
		v := item(i)
		if v == nil {
			continue
		}
		b, err := render(v, buf[:0])
		if err != nil {
			return err
		}
		buf = b
		if err := l.rendered(b); err != nil {
			return err
		}
	}
	return nil
}

// renderer returns a function that renders an item as Items writes it
// (without the JSON separator), for one goroutine, appending it to dst.
func (l *ListWriter) renderer() func(v any, dst []byte) ([]byte, error) {
	if l.format == JSON {
		w := newJSONWriter(jsonPrefix)
		return func(v any, dst []byte) ([]byte, error) { return w.item(jsonItem(v), dst) }
	}
	// The emitter writes what it buffers to out as an item grows (an item
	// can be megabytes), and all of it at the item's end.
	out := &appender{}
	e := newYAMLEmitter(out)
	if _, err := e.listHeader(); err != nil {
		return func(any, []byte) ([]byte, error) { return nil, err }
	}
	e.buf = e.buf[:0]
	after := *e // the state the header leaves
	return func(v any, dst []byte) ([]byte, error) {
		out.b = dst
		// The state after the header, with the scratch space the items
		// before grew kept: the buffer, and the key lists of each depth,
		// which were made again for every item (docs/performance.md,
		// "Every command, sixth pass").
		buf, keys := e.buf[:0], e.keys
		*e = after
		e.buf, e.keys = buf, keys
		if err := e.listItem(v); err != nil {
			return nil, err
		}
		if err := e.flush(true); err != nil {
			return nil, err
		}
		return out.b, nil
	}
}

// appender is an io.Writer that appends to a slice the caller owns.
type appender struct{ b []byte }

func (a *appender) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}

// rendered writes an item renderer made: after the List's header for the
// first, after the separator for the others.
func (l *ListWriter) rendered(part []byte) error {
	first := l.n == 0
	l.n++
	if l.format == JSON {
		head := ",\n    "
		if first {
			head = "{\n  \"apiVersion\": \"v1\",\n  \"items\": [\n    "
		}
		if _, err := io.WriteString(l.w, head); err != nil {
			return err
		}
		_, err := l.w.Write(part)
		return err
	}
	e := l.y
	if first {
		var err error
		if l.saved, err = e.listHeader(); err != nil {
			return err
		}
	}
	if err := e.flush(true); err != nil {
		return err
	}
	_, err := l.w.Write(nextPart(part, &l.broken))
	return err
}

// nextPart is a sequence item rendered on its own as the emitter writing
// every item in turn writes it, given whether the item before ended on
// a line break (*broken, set for the next). A part starts with the line
// break its renderer wrote before the item; after a part that ended on
// one, the emitter that wrote them in turn writes none
// (yaml_emitter_write_indent at column 0).
func nextPart(part []byte, broken *bool) []byte {
	if *broken && len(part) > 0 && part[0] == '\n' {
		part = part[1:]
	}
	*broken = endsOnBreak(part)
	return part
}

// endsOnBreak reports whether a rendered part ends at column 0: on a
// line break the emitter wrote (writeBreak), which in a block scalar
// that keeps its breaks (|+) is any of YAML 1.1's (isBreak): a line
// feed, a carriage return, NEL, or a line or paragraph separator. Only
// a break resets the column, and the emitter writes these characters
// nowhere else unescaped. A part ending on U+2028 was taken for one
// still on its line, and the next item then began a line too late.
func endsOnBreak(part []byte) bool {
	n := len(part)
	switch {
	case n >= 1 && (part[n-1] == '\n' || part[n-1] == '\r'):
		return true
	case n >= 2 && part[n-2] == 0xC2 && part[n-1] == 0x85:
		return true
	case n >= 3 && part[n-3] == 0xE2 && part[n-2] == 0x80 && (part[n-1] == 0xA8 || part[n-1] == 0xA9):
		return true
	}
	return false
}

// jsonItem is what a JSON List prints for an item: the object a policy's
// status record stands for (statusobjects.go), or the item (a status
// fragment is written from its fields, jsonWriter.fragment).
func jsonItem(item any) any {
	switch x := item.(type) {
	case *status.PolicyObject:
		if x != nil {
			return x.Object().Object
		}
	}
	return item
}

// Close ends the List.
func (l *ListWriter) Close() error {
	if l.format == JSON {
		tail := "\n  ],\n  \"kind\": \"List\"\n}\n"
		if l.n == 0 {
			tail = "{\n  \"apiVersion\": \"v1\",\n  \"items\": [],\n  \"kind\": \"List\"\n}\n"
		}
		_, err := io.WriteString(l.w, tail)
		return err
	}
	e := l.y
	if l.n == 0 {
		_, err := io.WriteString(l.w, "apiVersion: v1\nitems: []\nkind: List\n")
		return err
	}
	if l.broken {
		// After the line break the last part ended on, as the emitter
		// that wrote it would be.
		e.column, e.whitespace, e.indention = 0, true, true
	}
	e.indent = l.saved
	if err := e.entry("kind", "List", 0); err != nil {
		return err
	}
	e.indent = -1
	e.writeIndent() // the document's end
	return e.flush(true)
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
