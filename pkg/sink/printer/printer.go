// Package printer writes objects for people and programs. It is the only
// place that formats output; commands hand it data.
package printer

import (
	"fmt"
	"io"
	"slices"

	"github.com/strata-dev/strata/pkg/sink/printer/internal/emit"
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

// Print writes v as YAML or indented JSON, as kubectl prints an object
// (package emit), the same value always in the same bytes. A List (what
// List makes) is written an item at a time (ListWriter).
func Print(w io.Writer, v any, format string) error {
	if l, ok := v.(map[string]any); ok && isList(l) {
		return printList(w, l, format)
	}
	switch format {
	case JSON:
		out, err := emit.NewJSONEncoder("").Append(nil, v)
		if err != nil {
			return err
		}
		_, err = w.Write(append(out, '\n'))
		return err
	case YAML, "":
		return emit.NewYAMLEncoder().Encode(w, v)
	}
	return fmt.Errorf("output format %q: want yaml or json", format)
}

// isList reports whether l is what List makes.
func isList(l map[string]any) bool {
	_, items := l["items"].([]any)
	return len(l) == 3 && items && l["apiVersion"] == "v1" && l["kind"] == "List"
}

// printList writes a List item by item; Items takes a nil item for none,
// so a List holding a null goes through Item.
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

// ListWriter writes a v1 List one item at a time, the bytes of
// Print(w, List(items), format), so that memory is bounded by the largest
// item. In YAML an item is go-yaml's text for the one-item sequence
// [item] (a mapping's sequence is not indented); in JSON the item
// indented at the items' depth.
type ListWriter struct {
	w      io.Writer
	format string
	n      int // items written
	render func(v any, dst []byte) ([]byte, error)
}

// NewListWriter starts a List on w in format (yaml or json). Nothing is
// written before the first Item or Close.
func NewListWriter(w io.Writer, format string) (*ListWriter, error) {
	switch format {
	case YAML, "":
		format = YAML
	case JSON:
	default:
		return nil, fmt.Errorf("output format %q: want yaml or json", format)
	}
	l := &ListWriter{w: w, format: format}
	l.render = l.renderer()
	return l, nil
}

// Item writes the next item.
func (l *ListWriter) Item(item any) error {
	part, err := l.render(item, nil)
	if err != nil {
		return err
	}
	return l.rendered(part)
}

// Items writes n items, item(i) being the i-th or nil for none, as n
// calls of Item would, each rendered into the same buffer. The first
// error ends the List there.
func (l *ListWriter) Items(n int, item func(i int) any) error {
	return l.ItemsBy(n, func() func(int) any { return item })
}

// ItemsBy is Items with an item function made by worker, called again
// only once the item the last call returned is rendered: the items may be
// made in the same memory (effectivepolicy.Scratch).
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

// jsonPrefix is the indentation of a List's items.
const jsonPrefix = "    "

// renderer returns a function, for one goroutine, that appends an item
// as the List holds it (without the JSON separator) to dst.
func (l *ListWriter) renderer() func(v any, dst []byte) ([]byte, error) {
	if l.format == JSON {
		enc := emit.NewJSONEncoder(jsonPrefix)
		return func(v any, dst []byte) ([]byte, error) { return enc.Append(dst, v) }
	}
	enc := emit.NewYAMLEncoder()
	return func(v any, dst []byte) ([]byte, error) { return enc.Append(dst, []any{v}) }
}

// rendered writes an item render made: after the List's header for the
// first, after the separator for the others.
func (l *ListWriter) rendered(part []byte) error {
	first := l.n == 0
	l.n++
	head := ""
	switch {
	case l.format == JSON && first:
		head = "{\n  \"apiVersion\": \"v1\",\n  \"items\": [\n    "
	case l.format == JSON:
		head = ",\n    "
	case first:
		head = "apiVersion: v1\nitems:\n"
	}
	if _, err := io.WriteString(l.w, head); err != nil {
		return err
	}
	_, err := l.w.Write(part)
	return err
}

// Close ends the List.
func (l *ListWriter) Close() error {
	var tail string
	switch {
	case l.format == JSON && l.n == 0:
		tail = "{\n  \"apiVersion\": \"v1\",\n  \"items\": [],\n  \"kind\": \"List\"\n}\n"
	case l.format == JSON:
		tail = "\n  ],\n  \"kind\": \"List\"\n}\n"
	case l.n == 0:
		tail = "apiVersion: v1\nitems: []\nkind: List\n"
	default:
		tail = "kind: List\n"
	}
	_, err := io.WriteString(l.w, tail)
	return err
}
