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
	"slices"
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

// SortFunc sorts s as slices.SortFunc does, on every core: s is cut into
// sortPieces pieces, each sorted by one worker, then merged, a pair of
// runs at a time, each merge on a core of its own; the merges take the
// earlier run's element first among equals. How s is cut does not
// depend on the number of cores, so neither does the order of elements
// cmp finds equal: the result is the same on one core and on many, and
// from run to run. A slice of fewer than sortAlone elements is sorted on
// the caller's goroutine. Sorting the 56,000 targets of the performance
// world's status on one core kept the other idle for a tenth of the
// outcome (docs/performance.md, "Every command, nineteenth pass").
func SortFunc[S ~[]E, E any](s S, cmp func(a, b E) int) {
	if len(s) < sortAlone {
		slices.SortFunc(s, cmp)
		return
	}
	// The bounds of the pieces; runs[k] is [bounds[k], bounds[k+1]).
	bounds := make([]int, sortPieces+1)
	for k := range bounds {
		bounds[k] = len(s) * k / sortPieces
	}
	Each(sortPieces, 1, func() func(int) {
		return func(k int) { slices.SortFunc(s[bounds[k]:bounds[k+1]], cmp) }
	})
	buf := make(S, len(s))
	src, dst := s, buf
	for len(bounds) > 2 {
		next := make([]int, 0, len(bounds)/2+1)
		for k := 0; k+1 < len(bounds); k += 2 {
			next = append(next, bounds[k])
		}
		next = append(next, bounds[len(bounds)-1])
		pairs := len(bounds) / 2 // runs merged in pairs; an odd one out is copied
		from, to := src, dst
		b := bounds
		Each(pairs, 1, func() func(int) {
			return func(k int) {
				lo, mid := b[2*k], b[2*k+1]
				hi := mid
				if 2*k+2 < len(b) {
					hi = b[2*k+2]
				}
				merge(to[lo:hi], from[lo:mid], from[mid:hi], cmp)
			}
		})
		bounds, src, dst = next, dst, src
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
}

// sortPieces is how many pieces SortFunc cuts a slice into: a power of
// two, so that they merge in pairs; as many as the cores of a large
// machine are not needed, two to four is what this project's run on.
const sortPieces = 4

// sortAlone is the length under which SortFunc sorts on one core.
const sortAlone = 4096

// merge writes the sorted runs a and b into dst, of their total length,
// in order, a's elements before b's among equals.
func merge[E any](dst, a, b []E, cmp func(x, y E) int) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if cmp(b[j], a[i]) < 0 {
			dst[k] = b[j]
			j++
		} else {
			dst[k] = a[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}
