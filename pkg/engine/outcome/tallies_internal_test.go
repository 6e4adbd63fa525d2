package outcome

import (
	"fmt"
	"runtime"
	"slices"
	"testing"

	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// TestAncestorTalliesFewAndMany: a policy's tally at an ancestor is one
// tally, however often and in whatever order it is asked for, whether
// the ancestors are scanned (few) or indexed (many); the tallies keep
// the order they were first counted in, and join sums two workers'.
func TestAncestorTalliesFewAndMany(t *testing.T) {
	p := &policykind.Policy{Namespace: "ns", Name: "p"}
	for _, n := range []int{1, fewAncestors, fewAncestors + 1, 40} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			refs := make([]topology.Ref, n)
			for i := range refs {
				refs[i] = topology.Ref{Kind: "Service", Namespace: "ns", Name: fmt.Sprintf("s%d", i)}
			}
			ts := newTallies()
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
			// Another worker counted the odd ancestors and one more.
			other := newTallies()
			for i := 1; i < n; i += 2 {
				other.get(p, refs[i]).total += 10
			}
			extra := topology.Ref{Kind: "Service", Namespace: "ns", Name: "extra"}
			other.get(p, extra).total = 7
			ts.join(other)
			for i, r := range refs {
				want := 1
				if i%2 == 1 {
					want = 11
				}
				if got := ts.get(p, r).total; got != want {
					t.Errorf("ref %d: total %d after join, want %d", i, got, want)
				}
			}
			if got := ts.get(p, extra).total; got != 7 || len(ts[p].all()) != n+1 {
				t.Errorf("extra ancestor: total %d, %d tallies, want 7 and %d", got, len(ts[p].all()), n+1)
			}
		})
	}
	if (*ancestorTallies)(nil).all() != nil {
		t.Errorf("a policy without tallies has some")
	}
}

// TestJoinOnCores checks join with several workers' tallies of more
// policies than a core joins at a time: each policy's tally at each
// ancestor sums its workers' counts and unites their sets, whether ts
// had the policy (joined on a core) or not (moved), on one core and on
// four.
func TestJoinOnCores(t *testing.T) {
	ps := make([]*policykind.Policy, 500)
	for i := range ps {
		ps[i] = &policykind.Policy{Namespace: "ns", Name: fmt.Sprint("p", i)}
	}
	ref := func(i int) topology.Ref {
		return topology.Ref{Kind: "Service", Namespace: "ns", Name: fmt.Sprint("s", i)}
	}
	// Worker w counted policy i at ancestors i%7 .. i%7+w, total w+1 at
	// each, lost field "/w", and only every other policy in worker 0.
	workers := func() []tallies {
		var out []tallies
		for w := range 3 {
			ts := newTallies()
			for i, p := range ps {
				if w == 0 && i%2 == 1 {
					continue
				}
				for a := i % 7; a <= i%7+w; a++ {
					tl := ts.get(p, ref(a))
					tl.total += w + 1
					addAll(&tl.lost, []string{fmt.Sprint("/", w)})
				}
			}
			out = append(out, ts)
		}
		return out
	}
	for _, procs := range []int{1, 4} {
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			parts := workers()
			ts := parts[0]
			ts.join(parts[1:]...)
			for i, p := range ps {
				for a := i % 7; a <= i%7+2; a++ {
					want, lost := 0, []string{}
					for w := range 3 {
						if w == 0 && i%2 == 1 || a > i%7+w {
							continue
						}
						want += w + 1
						lost = append(lost, fmt.Sprint("/", w))
					}
					tl := ts.get(p, ref(a))
					if tl.total != want || !slices.Equal(sortedSet(tl.lost), lost) {
						t.Fatalf("%d cores: policy %d at ancestor %d: total %d, lost %v; want %d, %v", procs, i, a, tl.total, sortedSet(tl.lost), want, lost)
					}
				}
				if got := len(ts[p].all()); got != 3 {
					t.Fatalf("%d cores: policy %d at %d ancestors, want 3", procs, i, got)
				}
			}
		}()
	}
}
