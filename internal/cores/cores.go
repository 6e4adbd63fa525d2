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
// has. Which worker takes which chunk varies from run to run; callers
// write results into per-item slots, or merge per-worker state in a way
// that does not depend on the order.
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
