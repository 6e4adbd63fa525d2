package attach

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// scan is the reference the index must agree with: every object of the
// list tested against the selector.
func scan(g *topology.Graph, gk schema.GroupKind, ns string, sel labels.Selector) []topology.NodeID {
	var out []topology.NodeID
	for _, id := range g.ByKindIn(gk, ns) {
		if sel.Matches(labels.Set(g.Node(id).Labels)) {
			out = append(out, id)
		}
	}
	return out
}

// randomWorld is a graph of Services in two namespaces with labels drawn
// from a few keys and values, and random selectors over the same ones.
func randomWorld(t testing.TB, r *rand.Rand, services, selectors int) (*topology.Graph, []labels.Selector) {
	keys, values := []string{"app", "tier", "env"}, []string{"a", "b", "c", "d"}
	s := &snapshot.Snapshot{}
	for i := range services {
		l := map[string]string{}
		for _, k := range keys {
			if r.IntN(3) > 0 {
				l[k] = values[r.IntN(len(values))]
			}
		}
		s.Services = append(s.Services, &corev1.Service{ObjectMeta: metav1.ObjectMeta{
			Name: fmt.Sprintf("svc-%d", i), Namespace: []string{"ns-a", "ns-b"}[i%2], Labels: l}})
	}
	ops := []metav1.LabelSelectorOperator{metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn, metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist}
	var sels []labels.Selector
	for range selectors {
		ls := &metav1.LabelSelector{}
		for range r.IntN(3) {
			ls.MatchLabels = map[string]string{keys[r.IntN(len(keys))]: values[r.IntN(len(values))]}
		}
		for range r.IntN(3) {
			e := metav1.LabelSelectorRequirement{Key: keys[r.IntN(len(keys))], Operator: ops[r.IntN(len(ops))]}
			if e.Operator == metav1.LabelSelectorOpIn || e.Operator == metav1.LabelSelectorOpNotIn {
				for range 1 + r.IntN(3) {
					e.Values = append(e.Values, values[r.IntN(len(values))])
				}
			}
			ls.MatchExpressions = append(ls.MatchExpressions, e)
		}
		sel, err := metav1.LabelSelectorAsSelector(ls)
		if err != nil {
			t.Fatal(err)
		}
		sels = append(sels, sel)
	}
	return topology.Build(s), sels
}

// FuzzSelectorIndex checks that selectors, scanning a list first and then
// answering from its index, give what a scan of the list gives, in order,
// for selectors of every operator (empty ones included).
func FuzzSelectorIndex(f *testing.F) {
	for _, seed := range []uint64{1, 2, 3, 42} {
		f.Add(seed, uint8(40), uint8(30))
	}
	svc := schema.GroupKind{Group: hierarchy.CoreGroup, Kind: "Service"}
	info := hierarchy.Kinds[svc]
	f.Fuzz(func(t *testing.T, seed uint64, services, selectors uint8) {
		g, sels := randomWorld(t, rand.New(rand.NewPCG(seed, seed^0x9e3779b9)), int(services), int(selectors))
		s := newSelectors(g)
		for i, sel := range sels {
			for _, ns := range []string{"ns-a", "ns-b"} {
				got := s.nodes(svc, info, topology.Ref{Kind: "Service", Namespace: ns}, "", sel, func(topology.Ref) bool { return false })
				if want := scan(g, svc, ns, sel); !slices.Equal(got, want) {
					t.Fatalf("selector %d %q in %s: index gives %v, a scan %v", i, sel, ns, got, want)
				}
			}
		}
	})
}
