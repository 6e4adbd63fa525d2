package outcome

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/strata-dev/strata/pkg/engine/topology"
)

// TestTargetListSplice holds splice to its plain meaning: the sorted
// keys without those dropped, with those added, whatever the chunks; the
// list spliced stays as it was, and no chunk is empty or past twice
// chunkSize.
func TestTargetListSplice(t *testing.T) {
	for _, n := range []int{0, 1, chunkSize, 5*chunkSize + 3} {
		for seed := range uint64(20) {
			t.Run(fmt.Sprintf("n=%d/%d", n, seed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, uint64(n)))
				key := func() string { return fmt.Sprintf("k%07d", rng.IntN(10*n+10)) }
				var keys []string
				for range n {
					keys = append(keys, key())
				}
				slices.Sort(keys)
				keys = slices.Compact(keys)
				l := newTargetList(statuses(keys), keys)
				var drop, add []string
				for _, k := range keys {
					if rng.IntN(4) == 0 {
						drop = append(drop, k)
					}
				}
				for range rng.IntN(3 * chunkSize) {
					if k := key(); !slices.Contains(keys, k) || slices.Contains(drop, k) {
						add = append(add, k)
					}
				}
				slices.Sort(add)
				add = slices.Compact(add)
				slices.Reverse(drop) // splice sorts its drops
				got := l.splice(drop, statuses(add), add)
				want := slices.Sorted(slices.Values(append(slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return slices.Contains(drop, k) }), add...)))
				_, gotKeys := got.all()
				if !slices.Equal(gotKeys, want) || got.n != len(want) {
					t.Fatalf("keys %v, n %d; want %v", gotKeys, got.n, want)
				}
				for i, ts := range got.chunks {
					if len(ts.ts) == 0 || len(ts.ts) > 2*chunkSize || len(ts.ts) != len(ts.keys) {
						t.Errorf("chunk %d holds %d statuses, %d keys", i, len(ts.ts), len(ts.keys))
					}
					for j, s := range ts.ts {
						if fmt.Sprintf("k%07d", s.Node) != ts.keys[j] {
							t.Fatalf("chunk %d: status %d is not its key's", i, j)
						}
					}
				}
				if _, before := l.all(); !slices.Equal(before, keys) {
					t.Errorf("the list spliced changed")
				}
			})
		}
	}
}

// statuses are a status per key k<node>, at that node.
func statuses(keys []string) []TargetStatus {
	out := make([]TargetStatus, len(keys))
	for i, k := range keys {
		var n int
		fmt.Sscanf(k[1:], "%d", &n)
		out[i] = TargetStatus{Node: topology.NodeID(n)}
	}
	return out
}
