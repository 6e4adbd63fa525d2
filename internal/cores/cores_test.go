package cores

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
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

// TestOrdered checks that Ordered writes every part in order, skips nil
// parts, stops at the first error in the parts' order (a failing part
// or a failing write) and writes nothing after it, on one core and on
// several, and that each goroutine's worker is made once.
func TestOrdered(t *testing.T) {
	boom := errors.New("boom")
	for _, procs := range []int{1, 2, 4} {
		prev := runtime.GOMAXPROCS(procs)
		for _, c := range []struct {
			name            string
			n, batch        int
			failAt, writeAt int // -1: none
		}{
			{"none", 0, 4, -1, -1},
			{"one", 1, 4, -1, -1},
			{"batches", 1000, 3, -1, -1},
			{"a batch of one", 17, 0, -1, -1},
			{"a part fails", 1000, 3, 500, -1},
			{"the first part fails", 1000, 3, 0, -1},
			{"a write fails", 1000, 3, -1, 700},
		} {
			t.Run(fmt.Sprintf("%s/procs=%d", c.name, procs), func(t *testing.T) {
				var mu sync.Mutex
				workers := 0
				var got []int
				err := Ordered(c.n, c.batch, func() func(int, []byte) ([]byte, error) {
					mu.Lock()
					workers++
					mu.Unlock()
					return func(i int, dst []byte) ([]byte, error) {
						if i == c.failAt {
							return nil, boom
						}
						if i%5 == 4 {
							return nil, nil // no part
						}
						return strconv.AppendInt(dst, int64(i), 10), nil
					}
				}, func(part []byte) error {
					i, err := strconv.Atoi(string(part))
					if err != nil {
						t.Fatalf("part %q", part)
					}
					if i == c.writeAt {
						return boom
					}
					got = append(got, i)
					return nil
				})
				stop := c.n
				if c.failAt >= 0 {
					stop = c.failAt
				}
				if c.writeAt >= 0 {
					stop = c.writeAt
				}
				var want []int
				for i := range stop {
					if i%5 != 4 {
						want = append(want, i)
					}
				}
				if (err != nil) != (stop < c.n) || err != nil && !errors.Is(err, boom) {
					t.Errorf("error %v, want boom: %t", err, stop < c.n)
				}
				if !slices.Equal(got, want) {
					t.Errorf("wrote %d parts %v..., want %d", len(got), got[:min(len(got), 10)], len(want))
				}
				if workers > procs {
					t.Errorf("%d workers made on %d cores", workers, procs)
				}
			})
		}
		runtime.GOMAXPROCS(prev)
	}
}

// TestSortFunc checks that SortFunc sorts, keeps every element, and
// orders elements its comparison finds equal the same way on one core
// and on many: the elements carry a payload the comparison ignores.
func TestSortFunc(t *testing.T) {
	type elem struct{ key, payload int }
	cmp := func(a, b elem) int { return a.key - b.key }
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 100, sortAlone - 1, sortAlone, sortAlone + 1, 10_007, 100_003} {
		for _, keys := range []int{3, 1 << 30} { // many equal, or few
			in := make([]elem, n)
			for i := range in {
				in[i] = elem{r.IntN(keys), i}
			}
			sorted := func(procs int) []elem {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				s := slices.Clone(in)
				SortFunc(s, cmp)
				return s
			}
			one, many := sorted(1), sorted(4)
			if !slices.IsSortedFunc(one, cmp) {
				t.Fatalf("n=%d keys=%d: not sorted", n, keys)
			}
			if !slices.Equal(one, many) {
				t.Fatalf("n=%d keys=%d: the order on one core and on four differ", n, keys)
			}
			seen := make([]bool, n)
			for _, e := range one {
				if seen[e.payload] {
					t.Fatalf("n=%d keys=%d: element %d twice", n, keys, e.payload)
				}
				seen[e.payload] = true
			}
		}
	}
}
