package query

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/strata-dev/strata/pkg/engine/topology"
)

// comparePaths orders paths as their keys (pathKey) order, for paths
// whose node keys are prefixes of each other, share prefixes or end on
// characters on either side of ">".
func TestComparePathsIsPathKeyOrder(t *testing.T) {
	names := []string{"a", "ab", "a>", "a=", "a?", "b", "", "a#b", "x/y"}
	g := &topology.Graph{}
	for _, n := range names {
		for _, sec := range []string{"", "s", "s>"} {
			g.Nodes = append(g.Nodes, &topology.Node{Ref: topology.Ref{Kind: "K", Name: n, Section: sec}})
		}
	}
	q := &query{g: g}
	r := rand.New(rand.NewPCG(1, 2))
	path := func() []topology.NodeID {
		p := make([]topology.NodeID, r.IntN(4))
		for i := range p {
			p[i] = topology.NodeID(r.IntN(len(g.Nodes)))
		}
		return p
	}
	for i := range 20000 {
		a, b := path(), path()
		if r.IntN(3) == 0 {
			b = append(append([]topology.NodeID(nil), a...), b...)
		}
		if got, want := q.comparePaths(a, b), strings.Compare(q.pathKey(a), q.pathKey(b)); got != want {
			t.Fatalf("case %d: %s vs %s: %d, want %d", i, fmt.Sprint(q.pathKey(a)), q.pathKey(b), got, want)
		}
	}
}
