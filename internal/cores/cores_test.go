package cores

import (
	"runtime"
	"slices"
	"sync"
	"testing"
)

// TestEach checks that every item is done exactly once, whatever the
// number of items, the chunk and the cores, and that each worker's state
// is its own.
func TestEach(t *testing.T) {
	for _, procs := range []int{1, 2, 4} {
		prev := runtime.GOMAXPROCS(procs)
		for _, c := range []struct{ n, chunk int }{{0, 4}, {1, 4}, {4, 4}, {5, 4}, {1000, 7}, {1000, 1}, {3, 0}} {
			done := make([]int, c.n)
			var mu sync.Mutex
			var workers [][]int
			Each(c.n, c.chunk, func() func(int) {
				var mine []int // the worker's own state, unlocked
				return func(i int) {
					done[i]++
					mine = append(mine, i)
					if i == c.n-1 || len(mine) == 1 {
						mu.Lock()
						workers = append(workers, mine)
						mu.Unlock()
					}
				}
			})
			for i, d := range done {
				if d != 1 {
					t.Fatalf("procs %d n %d chunk %d: item %d done %d times", procs, c.n, c.chunk, i, d)
				}
			}
			if c.n > 0 && slices.ContainsFunc(workers, func(w []int) bool { return len(w) == 0 }) {
				t.Fatalf("procs %d n %d: a worker without items", procs, c.n)
			}
		}
		runtime.GOMAXPROCS(prev)
	}
}
