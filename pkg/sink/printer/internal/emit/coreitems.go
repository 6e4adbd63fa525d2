package emit

import (
	"github.com/strata-dev/strata/internal/cores"
)

// Sequences of many independent items (the targets of an Impact) are
// rendered on every core, each item by an emitter or JSON writer of its
// own, and written in order (cores.Ordered), in the bytes one emitter
// writing them in turn writes. The impact of a policy that reaches every
// target of the 20,000-route world is 55 MB of YAML, which one core took
// a third of a second to print. TestIsLibrary compares both ways on
// impacts of more than itemsOnCoresFrom targets.

// itemsOnCoresFrom is the fewest items a sequence renders on every core:
// below it, an emitter per core costs more than it saves.
const itemsOnCoresFrom = 64

// emitterState is what an emitter's next write depends on.
type emitterState struct {
	column, indent                                    int
	whitespace, indention                             bool
	sequenceContext, mappingContext, simpleKeyContext bool
}

func (e *yamlEmitter) state() emitterState {
	return emitterState{e.column, e.indent, e.whitespace, e.indention, e.sequenceContext, e.mappingContext, e.simpleKeyContext}
}

func (e *yamlEmitter) setState(s emitterState) {
	e.column, e.indent, e.whitespace, e.indention = s.column, s.indent, s.whitespace, s.indention
	e.sequenceContext, e.mappingContext, e.simpleKeyContext = s.sequenceContext, s.mappingContext, s.simpleKeyContext
}

// itemsOnCores is items with each item rendered on a core by an emitter
// of its own, item(w, i) emitting the i-th with w. Every item starts as
// items starts the first, on a new line at the sequence's indent; after
// an item that ended on a line break (a block scalar keeping its breaks),
// the emitter writing them in turn writes no break before the next, so
// neither is written here (nextPart, as ListWriter does). The
// emitter goes on in the state the last item left.
func (e *yamlEmitter) itemsOnCores(n int, item func(w *yamlEmitter, i int) error) error {
	if n < itemsOnCoresFrom {
		return e.items(n, func(i int) error { return item(e, i) })
	}
	saved := e.increaseIndent(false, e.mappingContext && !e.indention)
	if err := e.flush(true); err != nil {
		return err
	}
	start := e.state()
	var end emitterState // the state after the last item
	broken := false
	err := cores.Ordered(n, 16, func() func(int, []byte) ([]byte, error) {
		out := &appender{}
		w := newYAMLEmitter(out)
		return func(i int, dst []byte) ([]byte, error) {
			out.b = dst
			w.buf = w.buf[:0]
			w.setState(start)
			w.writeIndent()
			w.writeIndicator("-", true, false, true)
			w.sequenceContext, w.mappingContext, w.simpleKeyContext = true, false, false
			if err := item(w, i); err != nil {
				return nil, err
			}
			if err := w.flush(true); err != nil {
				return nil, err
			}
			if i == n-1 {
				end = w.state()
			}
			return out.b, nil
		}
	}, func(part []byte) error {
		_, err := e.w.Write(nextPart(part, &broken))
		return err
	})
	if err != nil {
		e.err = err
		return err
	}
	e.setState(end)
	e.indent = saved
	return nil
}

// sliceOnCores is slice with the items rendered on every core
// (itemsOnCores).
func (e *yamlEmitter) sliceOnCores(null bool, n int, item func(w *yamlEmitter, i int) error) error {
	if null {
		e.null()
		return nil
	}
	return e.itemsOnCores(n, item)
}

// sliceOnCores is the JSON writer's slice with the elements rendered on
// every core, each by a writer of its own at the array's depth, and
// appended in order.
func (w *jsonWriter) sliceOnCores(null bool, n int, item func(w *jsonWriter, i int) error) error {
	if null || n < itemsOnCoresFrom {
		return w.slice(null, n, func(i int) error { return item(w, i) })
	}
	w.open('[')
	depth := w.depth
	err := cores.Ordered(n, 16, func() func(int, []byte) ([]byte, error) {
		x := newJSONWriter(w.prefix)
		return func(i int, dst []byte) ([]byte, error) {
			x.buf, x.depth, x.first = dst, depth, i == 0
			x.next()
			err := item(x, i)
			return x.buf, err
		}
	}, func(part []byte) error {
		w.buf = append(w.buf, part...)
		return nil
	})
	if err != nil {
		return err
	}
	w.first = false
	w.close(']')
	return nil
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
