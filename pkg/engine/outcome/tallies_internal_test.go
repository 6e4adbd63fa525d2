package outcome

import (
	"fmt"
	"slices"
	"testing"

	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// TestAncestorTalliesFewAndMany: a policy's tally at an ancestor is one
// tally, however often and in whatever order it is asked for, whether
// the ancestors are scanned (few) or indexed (many); the tallies keep
// the order they were first counted in.
func TestAncestorTalliesFewAndMany(t *testing.T) {
	p := &policykind.Policy{Namespace: "ns", Name: "p"}
	for _, n := range []int{1, fewAncestors, fewAncestors + 1, 40} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			refs := make([]topology.Ref, n)
			for i := range refs {
				refs[i] = topology.Ref{Kind: "Service", Namespace: "ns", Name: fmt.Sprintf("s%d", i)}
			}
			ts := tallies{}
			first := make([]*tally, n)
			for i, r := range refs {
				first[i] = ts.get(p, r)
				first[i].total++
			}
			for i := n - 1; i >= 0; i-- {
				if got := ts.get(p, refs[i]); got != first[i] {
					t.Fatalf("ref %d: a second tally", i)
				}
			}
			a := ts[p]
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
