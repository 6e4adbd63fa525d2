package outcome

import (
	"fmt"
	"slices"
	"testing"

	"github.com/strata-dev/strata/pkg/engine/topology"
)

// TestAncestorTalliesFewAndMany: a policy's tally at an ancestor is one
// tally, however often and in whatever order it is asked for, whether
// the ancestors are scanned (few) or indexed (many); the tallies keep
// the order they were first counted in.
func TestAncestorTalliesFewAndMany(t *testing.T) {
	for _, n := range []int{1, fewAncestors, fewAncestors + 1, 40} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			refs := make([]topology.Ref, n)
			for i := range refs {
				refs[i] = topology.Ref{Kind: "Service", Namespace: "ns", Name: fmt.Sprintf("s%d", i)}
			}
			a := &ancestorTallies{}
			first := make([]*tally, n)
			for i, r := range refs {
				first[i] = a.get(r, 1)
				first[i].total++
			}
			for i := n - 1; i >= 0; i-- {
				if got := a.get(refs[i], 1); got != first[i] {
					t.Fatalf("ref %d: a second tally", i)
				}
			}
			if !slices.Equal(a.all(), first) {
				t.Errorf("tallies not in the order first counted")
			}
			if indexed := a.index != nil; indexed != (n > fewAncestors) {
				t.Errorf("indexed %v with %d ancestors", indexed, n)
			}
		})
	}
	if (*ancestorTallies)(nil).all() != nil {
		t.Errorf("a policy without tallies has some")
	}
}

// TestAncestorTalliesCopyOnWrite: a later generation gets a copy of a
// tally to change, so the earlier state's tallies stay as they were;
// compact drops the tallies no context counts.
func TestAncestorTalliesCopyOnWrite(t *testing.T) {
	for _, n := range []int{2, fewAncestors + 4} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			old := &ancestorTallies{}
			for i := range n {
				tl := old.get(topology.Ref{Kind: "Service", Name: fmt.Sprint(i)}, 1)
				tl.total++
				tl.winners.add("w", 1)
			}
			next := old.clone()
			ref := topology.Ref{Kind: "Service", Name: "0"}
			c := next.get(ref, 2)
			c.total--
			c.winners.add("w", -1)
			if got := old.find(ref); got.total != 1 || got.winners["w"] != 1 {
				t.Fatalf("the earlier tally changed: total %d, winners %v", got.total, got.winners)
			}
			if next.find(ref) != c || next.get(ref, 2) != c {
				t.Fatalf("the copy is not the tally of the later generation")
			}
			if len(c.winners) != 0 {
				t.Errorf("a name counted down to zero is still held: %v", c.winners)
			}
			next.compact()
			if len(next.all()) != n-1 || next.find(ref) != nil || len(old.all()) != n {
				t.Errorf("compact: %d tallies left (want %d), the emptied one found: %v; the earlier list has %d", len(next.all()), n-1, next.find(ref) != nil, len(old.all()))
			}
		})
	}
}
