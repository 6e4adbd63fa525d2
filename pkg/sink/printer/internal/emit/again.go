package emit

import "hash/maphash"

// textSlot is a part an emitter wrote: its key, the state it was
// written in, its text and the state it left.
type textSlot[K comparable] struct {
	key        K
	start, end emitterState
	text       []byte
}

// again emits the part key names with write, or the text write wrote
// for key before from the same state, and leaves the state it left: what
// a part writes is a function of the part and of the state it starts in.
// The emitter does not flush while write writes.
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
