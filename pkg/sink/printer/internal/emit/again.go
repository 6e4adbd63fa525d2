package emit

import "hash/maphash"

// The emitter writes again the text of a part it wrote before in the
// same state: what a part writes, and the state it leaves, are functions
// of the part and of the state it starts in. A world's answers repeat
// their parts: the paths of `strata effective`'s contexts their
// GatewayClass, Gateways, listeners and namespaces, contexts with one
// folded stack their resultant policy and field sources, and `strata
// status` its conditions ("the policy is Overridden", with one time and
// generation). Writing each one's fields again was most of printing
// them.

// textSlot is a part an emitter wrote: its key, the state it was
// written in, its text and the state it left.
type textSlot[K comparable] struct {
	key        K
	start, end emitterState
	text       []byte
}

// again emits the part key names with write, or, when the slot key
// hashes to holds the text write wrote for key in the same state, that
// text, and leaves the state it left. write must write the same text,
// from the same state, every time it is given the same key. The emitter
// does not flush while write writes, so that its text is all in the
// buffer.
func again[K comparable](e *yamlEmitter, slots []textSlot[K], key K, write func() error) error {
	start := e.state()
	slot := &slots[maphash.Comparable(e.seed, key)%uint64(len(slots))]
	if slot.text != nil && slot.start == start && slot.key == key {
		e.buf = append(e.buf, slot.text...)
		e.setState(slot.end)
		return nil
	}
	at := len(e.buf)
	e.holding++
	err := write()
	e.holding--
	if err != nil {
		return err
	}
	slot.key, slot.start, slot.end = key, start, e.state()
	slot.text = append(slot.text[:0], e.buf[at:]...)
	return nil
}

// How many parts of each kind an emitter remembers, by hash.
const (
	refsSize  = 1024
	condsSize = 512 // conditions, and a context's sources
	partsSize = 512
)
