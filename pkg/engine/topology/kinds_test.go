package topology_test

import (
	"fmt"
	"slices"
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// TestByKindIsTheObjectsInOrder checks ByKind and ByKindIn, listed in one
// pass once the nodes are added, against their definition: the object
// nodes (not sections, not Service frontends) of a kind, and of a kind in
// a namespace, in the order they were added. The world interleaves
// namespaces object by object, makes implicit namespaces between the
// objects of other kinds (so the Namespace kind is met again), gives an
// object twice and reaches a Service as a mesh parent (a frontend); an
// extension adds namespaces and virtual objects after.
func TestByKindIsTheObjectsInOrder(t *testing.T) {
	s := &snapshot.Snapshot{}
	s.Namespaces = append(s.Namespaces, namespace("declared", nil))
	s.GatewayClasses = append(s.GatewayClasses, gatewayClass("gc"))
	for i := range 6 {
		ns := fmt.Sprintf("ns-%d", i%3) // implicit, interleaved
		s.Gateways = append(s.Gateways, gateway(ns, fmt.Sprintf("gw-%d", i), "gc", listener("http", gwv1.HTTPProtocolType, 80)))
		s.Services = append(s.Services, service(ns, fmt.Sprintf("svc-%d", i), "http"), service(fmt.Sprintf("only-svc-%d", i%2), "s", "a", "b"))
		s.HTTPRoutes = append(s.HTTPRoutes, httpRoute(fmt.Sprintf("ns-%d", (i+1)%4), fmt.Sprintf("r-%d", i), []gwv1.ParentReference{{Name: gwv1.ObjectName(fmt.Sprintf("gw-%d", i))}}, nil, rule{}, rule{name: "named"}))
	}
	s.Services = append(s.Services, service("ns-0", "svc-0", "http")) // given twice
	mesh := httpRoute("ns-0", "mesh", []gwv1.ParentReference{svcParent("ns-0", "svc-0")}, nil, rule{})
	s.HTTPRoutes = append(s.HTTPRoutes, mesh)
	s.TCPRoutes = append(s.TCPRoutes, tcpRoute("declared", "t"), tcpRoute("ns-9", "t"))

	check := func(t *testing.T, g *topology.Graph) {
		t.Helper()
		byKind := map[[2]string][]topology.NodeID{}
		byKindIn := map[[3]string][]topology.NodeID{}
		for i, n := range g.Nodes {
			if n.Ref.Section != "" || n.Ref.Role != hierarchy.RoleNone {
				continue
			}
			id := topology.NodeID(i)
			byKind[[2]string{n.Ref.Group, n.Ref.Kind}] = append(byKind[[2]string{n.Ref.Group, n.Ref.Kind}], id)
			k := [3]string{n.Ref.Group, n.Ref.Kind, n.Ref.Namespace}
			byKindIn[k] = append(byKindIn[k], id)
		}
		if len(byKind) < 6 {
			t.Fatalf("only %d kinds", len(byKind))
		}
		for k, want := range byKind {
			gk := topology.Ref{Group: k[0], Kind: k[1]}.GroupKind()
			if got := g.ByKind(gk); !slices.Equal(got, want) {
				t.Errorf("ByKind(%v) = %v, want %v", gk, got, want)
			}
		}
		for k, want := range byKindIn {
			gk := topology.Ref{Group: k[0], Kind: k[1]}.GroupKind()
			if got := g.ByKindIn(gk, k[2]); !slices.Equal(got, want) {
				t.Errorf("ByKindIn(%v, %q) = %v, want %v", gk, k[2], got, want)
			}
		}
		if got := g.ByKindIn(hierarchy.ServiceKind, "nowhere"); len(got) != 0 {
			t.Errorf("ByKindIn of a namespace without Services = %v", got)
		}
	}
	g := topology.Build(s)
	check(t, g)
	extended := g.Extend(topology.Extra{
		Namespaces: []string{"policies-only", "ns-0"},
		Virtual:    []topology.Ref{{Group: "example.com", Kind: "Mesh", Namespace: "elsewhere", Name: "m"}, {Group: "", Kind: "Service", Namespace: "ns-0", Name: "ghost"}},
	})
	if len(extended.Nodes) != len(g.Nodes)+4 {
		t.Fatalf("the extension added %d nodes, want 4", len(extended.Nodes)-len(g.Nodes))
	}
	check(t, extended)
	check(t, g) // g itself unchanged
}

// TestAncestorsIsTheRecursiveWalk compares Ancestors, a walk without
// recursion on a reused path, with the recursive walk it replaced, for
// every node of a synthetic world with mesh routes: the same paths, in
// the same order.
func TestAncestorsIsTheRecursiveWalk(t *testing.T) {
	s := synth.Generate(synth.Sizes{Namespaces: 4, Gateways: 6, Routes: 300, Services: 300, Policies: 10}, 5)
	s.HTTPRoutes = append(s.HTTPRoutes, httpRoute(s.Services[0].Namespace, "mesh", []gwv1.ParentReference{svcParent(s.Services[0].Namespace, s.Services[0].Name)}, nil, rule{}))
	g := topology.Build(s)
	var recursive func(id topology.NodeID, stack []topology.NodeID, fn func([]topology.NodeID))
	recursive = func(id topology.NodeID, stack []topology.NodeID, fn func([]topology.NodeID)) {
		stack = append(stack, id)
		if len(g.Nodes[id].Parents) == 0 {
			p := slices.Clone(stack)
			slices.Reverse(p)
			fn(p)
		}
		for _, p := range g.Nodes[id].Parents {
			recursive(p, stack, fn)
		}
	}
	paths := 0
	for i := range g.Nodes {
		var want, got [][]topology.NodeID
		recursive(topology.NodeID(i), nil, func(p []topology.NodeID) { want = append(want, p) })
		g.Ancestors(topology.NodeID(i), func(p []topology.NodeID) { got = append(got, slices.Clone(p)) })
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("node %s: paths %v, want %v", g.Nodes[i].Ref.Key(), got, want)
		}
		paths += len(got)
	}
	if paths < len(g.Nodes) {
		t.Fatalf("%d paths for %d nodes", paths, len(g.Nodes))
	}
}
