// Package gcpace holds the garbage collector back while a one-shot
// command builds its answer.
//
// A strata command reads a world, computes on it, prints and exits, and
// most of what it allocates stays live until the end. On the 20,000-route
// world `strata status` fills about 400 MB of heap; at the command's GOGC
// (400, cli.commandGCPercent) the collector still ran once, at about
// 110 MB, to mark 100 MB that all stayed live and free 10 MB, and the
// write barriers and assists of that cycle slowed the parse running
// alongside it. Without it the commands on that world take 3-10% less
// user time (docs/performance.md, "Every command, twelfth pass").
//
// Hold raises GOGC so that the first collection comes when the heap
// reaches a given size, and puts the GOGC it found back after that
// collection: a world that fits is never collected, and a larger one is
// collected once at that size and from then on as before, so the largest
// shapes of issue 11 ("No cliffs") keep their footprint and the memory
// limit still bounds every heap. The collection the huge-page
// reservation forces (internal/thp) does not end the hold: only one the
// runtime starts on its own does.
package gcpace

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// Hold sets GOGC so that the first collection the runtime starts comes
// when the heap holds about first bytes, unless GOGC is already off or
// that high. Once such a collection has run, the GOGC Hold found is put
// back. release puts it back at once if that collection has not come; it
// may be called more than once, and after it the collector runs as if
// Hold had not been called. Hold changes the process's GOGC: a caller
// that runs a command in a process that goes on (a test, a benchmark)
// must release when the command ends.
func Hold(first uint64) (release func()) {
	h := hold(first)
	if h == nil {
		return func() {}
	}
	return h.release
}

// held is a Hold in force.
type held struct {
	mu   sync.Mutex
	done bool
	// gc is the GOGC to put back.
	gc int
	// forced is how many collections the process had forced when the
	// current sentinel was made.
	forced uint64
	// cleanups counts the sentinels' cleanups that have run, and
	// released is closed when the GOGC is put back: for tests.
	cleanups int
	released chan struct{}
}

// hold is Hold; nil when it leaves GOGC as it is.
func hold(first uint64) *held {
	pct := first * 100 / max(liveHeap(), minLive)
	found := debug.SetGCPercent(int(min(pct, maxPercent)))
	if found < 0 || uint64(found) >= pct {
		debug.SetGCPercent(found) // off, or collecting late enough already
		return nil
	}
	h := &held{gc: found, released: make(chan struct{})}
	h.arm()
	return h
}

// minLive is the smallest live heap Hold reckons with: a process that has
// not collected yet reports none.
const minLive = 4 << 20

// maxPercent bounds the GOGC Hold sets, whatever the live heap.
const maxPercent = 1 << 20

// sentinel is the object whose collection tells a collection has run:
// unreachable once made, and large enough and with a pointer, so that the
// runtime does not batch it with other objects (runtime.AddCleanup).
type sentinel struct {
	_ *held
	_ [2]uint64
}

// arm makes a sentinel that reports its collection to h (collected).
func (h *held) arm() {
	h.forced = forcedCollections()
	runtime.AddCleanup(&sentinel{}, (*held).collected, h)
}

// collected ends the hold after a collection the runtime started, and
// waits for the next one after a collection the process forced.
func (h *held) collected() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cleanups++
	if h.done {
		return
	}
	if forcedCollections() > h.forced {
		h.arm()
		return
	}
	h.end()
}

// release ends the hold now, if it has not ended.
func (h *held) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.done {
		h.end()
	}
}

// end puts the GOGC back; h.mu is held.
func (h *held) end() {
	h.done = true
	debug.SetGCPercent(h.gc)
	close(h.released)
}

// liveHeap is the heap the last collection found live, or 0 before any.
func liveHeap() uint64 { return readUint("/gc/heap/live:bytes") }

// forcedCollections counts the collections the process has forced
// (runtime.GC, debug.FreeOSMemory).
func forcedCollections() uint64 { return readUint("/gc/cycles/forced:gc-cycles") }

func readUint(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
