// Package cores runs independent pieces of one computation on every core.
//
// Reading a large input (pkg/source/files) and computing effective
// policies and status for every target (pkg/engine) are a loop over
// items that do not depend on each other; on the 20,000-route world
// (docs/performance.md) each takes most of a second on one core. Each
// goroutine gets state of its own (a decoder's buffers, a computer's
// memo), so nothing is locked in the loop and the result does not depend
// on how the items fall to workers.
package cores

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each calls do(i) for i in [0, n), in chunks of chunk, on as many
// goroutines as there are cores (one, the caller's, when n is at most one
// chunk): each worker gets its own do from worker, called once on the
// worker's goroutine before its first item. It returns once every call
// has. Chunk k is the items [k*chunk, (k+1)*chunk), done in order by
// one worker, so a caller may keep state per chunk. Which worker takes
// which chunk varies from run to run; callers write results into
// per-item or per-chunk slots, or merge per-worker state in a way that
// does not depend on the order.
func Each(n, chunk int, worker func() func(int)) {
	if n <= 0 {
		return
	}
	chunk = max(chunk, 1)
	workers := min(runtime.GOMAXPROCS(0), (n+chunk-1)/chunk)
	var next atomic.Int64
	work := func() {
		do := worker()
		for {
			end := int(next.Add(int64(chunk)))
			start := end - chunk
			if start >= n {
				return
			}
			for i := start; i < min(end, n); i++ {
				do(i)
			}
		}
	}
	if workers <= 1 {
		work()
		return
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(work)
	}
	wg.Wait()
}

// Ordered makes n parts on every core and writes them in order: part i
// is what make(i, dst) appends to dst (nil for no part), and write gets
// each part that is not nil, in the order of i, on one goroutine at a
// time. Parts are made a batch (batch per core) at a time, and a batch
// is written while the next one is made, so that neither the writing nor
// the making leaves a core idle, and memory holds two batches, not all
// n parts: the answers of a large world are tens of megabytes, which one
// core takes seconds to render (issue 18's one-second budget;
// docs/performance.md, "Every command, ninth pass").
//
// worker is called once on each goroutine that makes parts, before its
// first part; it is called again only for a goroutine beyond the first
// batch's, so a worker's state (an emitter, scratch memory an item is
// made in) lives across batches. The buffer of each part is reused two
// batches later. The first error, in the order of i, ends the writing
// there and is returned: a failing make(i) is returned once every part
// before i is written, and nothing after i is.
func Ordered(n, batch int, worker func() func(i int, dst []byte) ([]byte, error), write func(part []byte) error) error {
	batch = max(batch, 1) * runtime.GOMAXPROCS(0)
	// Two sets of slots, for the batch being written and the one being
	// made; each slot keeps the buffer it grew.
	var slots [2][][]byte
	workers := make([]func(int, []byte) ([]byte, error), runtime.GOMAXPROCS(0))
	written := make(chan error, 1) // the batch being written, once it is
	writing := false
	for k, start := 0, 0; start < n; k, start = k+1, start+batch {
		size := min(batch, n-start)
		if slots[k%2] == nil {
			slots[k%2] = make([][]byte, size)
		}
		parts, errs := makeBatch(start, slots[k%2][:size], workers, worker)
		if writing {
			if err := <-written; err != nil {
				return err
			}
		}
		go func() { written <- writeBatch(parts, errs, write) }()
		writing = true
	}
	if writing {
		return <-written
	}
	return nil
}

// makeBatch makes the parts of a batch from start on every core, each
// into its slot; the k-th goroutine to start takes workers[k], made on
// first use.
func makeBatch(start int, slots [][]byte, workers []func(int, []byte) ([]byte, error), worker func() func(int, []byte) ([]byte, error)) ([][]byte, []error) {
	parts := make([][]byte, len(slots))
	errs := make([]error, len(slots))
	var started atomic.Int32
	Each(len(slots), 1, func() func(int) {
		var do func(int, []byte) ([]byte, error)
		if k := int(started.Add(1) - 1); k < len(workers) {
			if workers[k] == nil {
				workers[k] = worker()
			}
			do = workers[k]
		} else {
			do = worker() // GOMAXPROCS grew meanwhile
		}
		return func(i int) {
			parts[i], errs[i] = do(start+i, slots[i][:0])
			if parts[i] != nil {
				slots[i] = parts[i]
			}
		}
	})
	return parts, errs
}

// writeBatch writes a batch's parts in order, up to the first error.
func writeBatch(parts [][]byte, errs []error, write func([]byte) error) error {
	for i, part := range parts {
		if errs[i] != nil {
			return errs[i]
		}
		if part == nil {
			continue
		}
		if err := write(part); err != nil {
			return err
		}
	}
	return nil
}
