package topology

import (
	"reflect"
	"runtime"
	"slices"
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/internal/synth"
)

// TestRoutesOnEveryCore checks that the graph is the same whether the
// routes' parents and backends are found on one core or shared out a
// route at a time among several workers (attacher.addRoutes): the same
// nodes, with the same parents, children and sections, and the same
// problems. engine's TestRunOnEveryCore checks the same at the
// production chunk, where one worker may take every chunk of a small
// world before the others start.
func TestRoutesOnEveryCore(t *testing.T) {
	s := synth.Generate(synth.Sizes{Namespaces: 6, Gateways: 12, Routes: 1500, Services: 1500, Policies: 10}, 3)
	// Bad routes among the good ones, on different workers: a route
	// given twice, parents of a kind outside the hierarchy, a Service
	// parent with a sectionName, a Gateway that does not exist, and a
	// backend in another namespace without a ReferenceGrant.
	bad := func(name string, edit func(*gwv1.HTTPRoute)) *gwv1.HTTPRoute {
		r := s.HTTPRoutes[0].DeepCopy()
		r.Name = name
		edit(r)
		return r
	}
	configMap, service, core, other := gwv1.Kind("ConfigMap"), gwv1.Kind("Service"), gwv1.Group(""), gwv1.Namespace("elsewhere")
	section := gwv1.SectionName("http")
	for i, r := range []*gwv1.HTTPRoute{
		s.HTTPRoutes[7].DeepCopy(),
		bad("bad-kind", func(r *gwv1.HTTPRoute) { r.Spec.ParentRefs = []gwv1.ParentReference{{Kind: &configMap, Name: "cm"}} }),
		bad("bad-mesh", func(r *gwv1.HTTPRoute) {
			r.Spec.ParentRefs = []gwv1.ParentReference{{Group: &core, Kind: &service, Name: gwv1.ObjectName(s.Services[0].Name), SectionName: &section}}
		}),
		bad("no-gateway", func(r *gwv1.HTTPRoute) { r.Spec.ParentRefs = []gwv1.ParentReference{{Name: "nowhere"}} }),
		bad("no-grant", func(r *gwv1.HTTPRoute) { r.Spec.Rules[0].BackendRefs[0].Namespace = &other }),
	} {
		at := (i + 1) * len(s.HTTPRoutes) / 6
		s.HTTPRoutes = slices.Insert(s.HTTPRoutes, at, r)
	}
	build := func(procs, chunk int) *Graph {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		return objects(s, chunk)(Extra{})
	}
	one, every := build(1, len(s.HTTPRoutes)), build(4, 1)
	edges := 0
	for _, n := range one.Nodes {
		edges += len(n.Children)
	}
	if edges < 3000 {
		t.Fatalf("only %d edges: the world is too small to share out", edges)
	}
	if len(one.Problems) < 3 {
		t.Fatalf("only %d problems: the bad routes were not read", len(one.Problems))
	}
	if !reflect.DeepEqual(one.Nodes, every.Nodes) || !reflect.DeepEqual(one.Problems, every.Problems) {
		t.Fatal("the graph on one core and on every core differ")
	}
}
