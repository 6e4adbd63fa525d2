package topology_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1b1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// svcParent is a parentRef to a Service (GAMMA, GEP-1426); ns "" leaves
// the namespace unset.
func svcParent(ns, name string) gwv1.ParentReference {
	p := parent(ns, name)
	p.Group = ptr(gwv1.Group(""))
	p.Kind = ptr(gwv1.Kind("Service"))
	return p
}

func frontendRef(ns, name string) topology.Ref {
	r := svcRef(ns, name, "")
	r.Role = hierarchy.RoleFrontend
	return r
}

// TestBuildMesh checks the mesh context paths (GEP-1426): a route whose
// parentRef is a Service hangs under that Service's frontend, a node of
// its own above the route, distinct from the Service as a backend, so a
// producer route sending to its own Service keeps the graph acyclic.
func TestBuildMesh(t *testing.T) {
	g := topology.Build(&snapshot.Snapshot{
		Services: []*corev1.Service{service("prod", "foo", "http"), service("prod", "foo-a"), service("prod", "foo-b")},
		HTTPRoutes: []*gwv1.HTTPRoute{
			// producer: same namespace, sends to its own parent.
			httpRoute("prod", "producer", []gwv1.ParentReference{svcParent("", "foo")}, nil,
				rule{backends: []gwv1.BackendObjectReference{backend("", "foo")}}),
			// consumer: another namespace, port given, splits.
			httpRoute("cons", "consumer", []gwv1.ParentReference{withPort(svcParent("prod", "foo"), 8080)}, nil,
				rule{backends: []gwv1.BackendObjectReference{backend("prod", "foo-a"), backend("prod", "foo-b")}}),
			// a Service that does not exist: no parent, no problem.
			httpRoute("cons", "nowhere", []gwv1.ParentReference{svcParent("prod", "absent")}, nil),
		},
		// Gateway API: a backendRef across namespaces needs a grant, in
		// the mesh as at ingress.
		ReferenceGrants: []*gwv1b1.ReferenceGrant{grant("prod", "HTTPRoute", "cons", "")},
	})
	if len(g.Problems) != 0 {
		t.Errorf("problems %v", g.Problems)
	}
	checkDAG(t, g)
	fe := mustLookup(t, g, frontendRef("prod", "foo"))
	be := mustLookup(t, g, svcRef("prod", "foo", ""))
	if fe == be {
		t.Fatalf("frontend and backend are one node")
	}
	n := g.Node(fe)
	if n.Level != hierarchy.LevelMeshFrontend || len(n.Parents) != 0 || n.Object != nil || len(n.Sections) != 0 {
		t.Errorf("frontend %+v: want a root at the frontend level, no object, no sections", n)
	}
	if n.Namespace != g.Node(be).Namespace || n.Generation != g.Node(be).Generation {
		t.Errorf("frontend namespace %d generation %d, want the Service's", n.Namespace, n.Generation)
	}
	if got, want := keys(g, n.Children), []string{routeRef("HTTPRoute", "cons", "consumer", "").Key(), routeRef("HTTPRoute", "prod", "producer", "").Key()}; !slices.Equal(got, want) {
		t.Errorf("frontend children %q, want %q", got, want)
	}
	if got := g.ByKind(hierarchy.ServiceKind); slices.Contains(got, fe) {
		t.Errorf("ByKind(Service) lists the frontend: selectors would select a Service twice")
	}
	if got := parentKeys(t, g, routeRef("HTTPRoute", "cons", "nowhere", "")); len(got) != 0 {
		t.Errorf("route to an absent Service has parents %q", got)
	}
	if k := g.Node(fe).Ref.Key(); k != "Service:prod/foo@frontend" {
		t.Errorf("frontend key %q", k)
	}
	if s := g.Node(fe).Ref.String(); s != "Service prod/foo (frontend)" {
		t.Errorf("frontend string %q", s)
	}

	// The backend Service foo has one context path: the producer
	// route's mesh path through foo's own frontend.
	var paths [][]string
	g.Ancestors(be, func(p []topology.NodeID) {
		var ks []string
		for _, id := range p {
			ks = append(ks, g.Node(id).Ref.Key())
		}
		paths = append(paths, ks)
	})
	want := [][]string{
		{"Service:prod/foo@frontend", "HTTPRoute.gateway.networking.k8s.io:prod/producer", "HTTPRoute.gateway.networking.k8s.io:prod/producer#rule-0", "Service:prod/foo"},
	}
	if !slices.EqualFunc(paths, want, slices.Equal) {
		t.Errorf("paths of the backend %q, want %q", paths, want)
	}

	// Graph.Mesh names the frontend of each path and, for a consumer
	// route, its namespace ("-" below for an ingress path).
	tests := []struct {
		target topology.Ref
		want   []string // per path: consumer namespace, "" for a producer route
	}{
		{target: svcRef("prod", "foo", ""), want: []string{""}},
		{target: svcRef("prod", "foo-a", ""), want: []string{"cons"}},
		{target: routeRef("HTTPRoute", "cons", "consumer", "rule-0"), want: []string{"cons"}},
		{target: frontendRef("prod", "foo"), want: []string{""}},
		{target: routeRef("HTTPRoute", "cons", "nowhere", ""), want: []string{"-"}},
	}
	for _, tc := range tests {
		t.Run(tc.target.Key(), func(t *testing.T) {
			var got []string
			g.Ancestors(mustLookup(t, g, tc.target), func(p []topology.NodeID) {
				f, c := g.Mesh(p)
				switch {
				case f == topology.None:
					c = "-"
				case f != fe:
					t.Errorf("frontend %s", g.Node(f).Ref.Key())
				}
				got = append(got, c)
			})
			if !slices.Equal(got, tc.want) {
				t.Errorf("consumers %q, want %q", got, tc.want)
			}
		})
	}
}

// TestBuildMeshIngressUnchanged checks that a world without Service
// parents has no frontend node: the ingress graph is what it was.
func TestBuildMeshIngressUnchanged(t *testing.T) {
	g := topology.Build(fullSnapshot())
	for i := range g.Nodes {
		if g.Nodes[i].Ref.Role != hierarchy.RoleNone {
			t.Errorf("node %s has a role", g.Nodes[i].Ref.Key())
		}
	}
}

// TestConsumerPolicy checks which attachments are consumer policies (001
// "Policy Attachment for Mesh": a policy on a target of another
// namespace applies to requests from its own namespace only).
func TestConsumerPolicy(t *testing.T) {
	g := topology.Build(&snapshot.Snapshot{
		Namespaces:     []*corev1.Namespace{namespace("prod", nil)},
		GatewayClasses: []*gwv1.GatewayClass{gatewayClass("gc")},
		Services:       []*corev1.Service{service("prod", "foo")},
	})
	tests := []struct {
		name     string
		policyNS string
		target   topology.Ref
		want     bool
	}{
		{name: "same namespace", policyNS: "prod", target: svcRef("prod", "foo", ""), want: false},
		{name: "other namespace", policyNS: "cons", target: svcRef("prod", "foo", ""), want: true},
		{name: "cluster-scoped policy", policyNS: "", target: svcRef("prod", "foo", ""), want: false},
		{name: "own Namespace", policyNS: "prod", target: topology.Ref{Kind: "Namespace", Name: "prod"}, want: false},
		{name: "another Namespace", policyNS: "cons", target: topology.Ref{Kind: "Namespace", Name: "prod"}, want: true},
		{name: "cluster-scoped target", policyNS: "cons", target: topology.Ref{Group: hierarchy.GatewayGroup, Kind: "GatewayClass", Name: "gc"}, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := g.ConsumerPolicy(tc.policyNS, mustLookup(t, g, tc.target)); got != tc.want {
				t.Errorf("ConsumerPolicy = %v, want %v", got, tc.want)
			}
		})
	}
}
