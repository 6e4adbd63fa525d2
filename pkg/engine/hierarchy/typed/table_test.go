package typed_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/strata-dev/strata/pkg/blueprint/render"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/hierarchy/typed"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/source/cluster"
	"github.com/strata-dev/strata/pkg/source/files"
)

// rowFile is a file with one object of row's kind, named "x" (in
// namespace "ns" when namespaced). For a route kind it also holds a
// Gateway whose listener accepts the kind by default (its first
// protocol) and a Service the route's one rule sends to, so that the
// route can link on both sides. For ReferenceGrant it allows HTTPRoutes
// of namespace "other" to refer to Services of "ns".
func rowFile(row hierarchy.Row) string {
	meta := "metadata: {name: x}\n"
	if row.Namespaced {
		meta = "metadata: {name: x, namespace: ns}\n"
	}
	head := fmt.Sprintf("apiVersion: %s\nkind: %s\n%s", row.GroupVersionKind().GroupVersion(), row.Kind, meta)
	switch {
	case row.Route != nil:
		return fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: ns}
spec:
  gatewayClassName: gc
  listeners: [{name: l, port: 80, protocol: %s}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: ns}
spec: {ports: [{name: http, port: 80}]}
---
%sspec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
`, row.Route.Protocols[0], head)
	case row.GroupKind == hierarchy.ReferenceGrantKind:
		return head + `spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: other}]
  to: [{group: "", kind: Service}]
`
	}
	return head
}

// TestEveryConsumerCoversEveryRow checks, for each row of hierarchy.Table,
// every consumer of the table: the row has a decode column; a file with
// one object of the kind decodes on both paths (Read, and
// Documents+Decode) into the snapshot; the cluster source lists and the
// controller watches the kind in a type its scheme knows; the topology
// has the object (and, for a route, links it to the listener and its
// rule to the Service; for a ReferenceGrant, grants with it); the CLI
// resolves the kind's names; and the offline blueprint scope agrees with
// the row's scope. It registers nothing: a new row that a consumer
// misses fails here.
func TestEveryConsumerCoversEveryRow(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := cluster.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	scope := render.StaticScope(nil)
	for _, row := range hierarchy.Table {
		t.Run(row.Kind, func(t *testing.T) {
			k, ok := typed.Kinds[row.GroupKind]
			if !ok {
				t.Fatalf("typed.Kinds has no entry for %s", row.GroupKind)
			}
			if (k.AppendRoutes != nil) != (row.Route != nil) {
				t.Errorf("typed.Kinds[%s] has a linking rule: %v; hierarchy row is a route: %v", row.GroupKind, k.AppendRoutes != nil, row.Route != nil)
			}
			ns := ""
			if row.Namespaced {
				ns = "ns"
			}

			// Files: both decoding paths.
			path := filepath.Join(t.TempDir(), "in.yaml")
			if err := os.WriteFile(path, []byte(rowFile(row)), 0o600); err != nil {
				t.Fatal(err)
			}
			read, err := files.Read([]string{path}, nil)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			docs, err := files.Documents([]string{path}, nil)
			if err != nil {
				t.Fatal(err)
			}
			decoded, err := files.Decode(docs)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			for name, res := range map[string]*files.Result{"Read": read, "Decode": decoded} {
				if len(res.Ignored) > 0 {
					t.Errorf("%s ignored %v", name, res.Ignored)
				}
				objs := k.Objects(res.Snapshot)
				if len(objs) != 1 || objs[0].GetName() != "x" || objs[0].GetNamespace() != ns {
					t.Errorf("%s: snapshot holds %d objects of %s, want x in %q", name, len(objs), row.GroupKind, ns)
				}
				key := files.Key{Group: row.Group, Kind: row.Kind, Namespace: ns, Name: "x"}
				if _, ok := res.Places[key]; !ok {
					t.Errorf("%s: no place for %s", name, key)
				}
			}

			// Cluster: listed, watched, in a type the scheme knows.
			var tk *cluster.TopologyKind
			for i := range cluster.TopologyKinds {
				if cluster.TopologyKinds[i].GVK == row.GroupVersionKind() {
					tk = &cluster.TopologyKinds[i]
				}
			}
			if tk == nil {
				t.Fatalf("clustersource.TopologyKinds does not list %s", row.GroupVersionKind())
			}
			for what, obj := range map[string]runtime.Object{"New": tk.New(), "List": tk.List()} {
				gvks, _, err := scheme.ObjectKinds(obj)
				want := row.GroupVersionKind()
				if what == "List" {
					want.Kind += "List"
				}
				if err != nil || len(gvks) == 0 || gvks[0] != want {
					t.Errorf("%s: scheme knows %T as %v (%v), want %s", what, obj, gvks, err, want)
				}
			}
			s := &snapshot.Snapshot{}
			list := tk.List()
			items, err := runtime.DefaultUnstructuredConverter.ToUnstructured(list)
			if err != nil {
				t.Fatal(err)
			}
			items["items"] = []any{map[string]any{"metadata": map[string]any{"name": "x"}}}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(items, list); err != nil {
				t.Fatal(err)
			}
			tk.Add(s, list)
			if objs := k.Objects(s); len(objs) != 1 || objs[0].GetName() != "x" {
				t.Errorf("a listed %s does not land in the snapshot: %d objects", row.Kind, len(objs))
			}

			// Topology.
			g := topology.Build(read.Snapshot)
			ref := topology.Ref{Group: row.Group, Kind: row.Kind, Namespace: ns, Name: "x"}
			id := g.Lookup(ref)
			switch {
			case row.GroupKind == hierarchy.ReferenceGrantKind:
				if !g.Granted(hierarchy.HTTPRouteKind, "other", topology.Ref{Group: hierarchy.CoreGroup, Kind: "Service", Namespace: "ns", Name: "svc"}) {
					t.Errorf("the ReferenceGrant grants nothing in the topology")
				}
			case id == topology.None:
				t.Errorf("topology has no node %s", ref.Key())
			case row.Route != nil:
				listener := g.Lookup(topology.Ref{Group: hierarchy.GatewayGroup, Kind: "Gateway", Namespace: "ns", Name: "gw", Section: "l"})
				if p := g.Nodes[id].Parents; len(p) != 1 || p[0] != listener {
					t.Errorf("route %s is not linked to its listener: parents %v", ref.Key(), p)
				}
				rule, _ := g.Nodes[id].Sections.Get(topology.GeneratedRuleName(0))
				svc := g.Lookup(topology.Ref{Group: hierarchy.CoreGroup, Kind: "Service", Namespace: "ns", Name: "svc"})
				if c := g.Nodes[rule].Children; rule == topology.None || len(c) != 1 || c[0] != svc {
					t.Errorf("rule of %s is not linked to its Service: children %v", ref.Key(), c)
				}
			}

			// CLI kind names.
			if row.Targetable && len(row.Names) == 0 {
				t.Errorf("a targetable kind needs names for the CLI")
			}
			for _, n := range append(row.Names, strings.ToUpper(row.Kind)) {
				got, err := query.ResolveKind(&engine.Result{}, n)
				if !row.Targetable {
					continue
				}
				if err != nil || got.Topology != row.GroupKind {
					t.Errorf("ResolveKind(%q) = %v, %v; want %s", n, got.Topology, err, row.GroupKind)
				}
			}

			// The blueprint renderer's offline scope, discovered from a
			// real API server, agrees with the row.
			if namespaced, known := scope(row.GroupKind); !known || namespaced != row.Namespaced {
				t.Errorf("render.StaticScope(%s) = namespaced %v, known %v; the row says namespaced %v", row.GroupKind, namespaced, known, row.Namespaced)
			}
			if _, ok := hierarchy.Kinds[row.GroupKind]; ok != row.Targetable {
				t.Errorf("hierarchy.Kinds has %s: %v; row is targetable: %v", row.GroupKind, ok, row.Targetable)
			}
		})
	}
	for gk := range typed.Kinds {
		if _, ok := hierarchy.Lookup(gk); !ok {
			t.Errorf("typed.Kinds has %s, which is no row of hierarchy.Table", gk)
		}
	}
}
