package web_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/policykind/builtin"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/sink/web"
	"github.com/strata-dev/strata/pkg/source/files"
)

var update = flag.Bool("update", false, "rewrite the golden files (and docs/img/web-view.png)")

// world runs the engine on a snapshot as `strata serve -f` does.
func world(t testing.TB, s *snapshot.Snapshot) *web.World {
	t.Helper()
	catalogue, err := builtin.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(s, engine.Options{Catalogue: catalogue})
	if err != nil {
		t.Fatal(err)
	}
	return web.NewWorld(res)
}

func parable(t testing.TB) *web.World {
	t.Helper()
	src, err := files.Read([]string{"../../../examples/parable"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return world(t, src.Snapshot)
}

// synthetic is issue 11's world: 1,000 Gateways, 20,000 HTTPRoutes,
// 5,000 policies.
func synthetic(t testing.TB) *web.World {
	t.Helper()
	return world(t, synth.Snapshot(1, 1))
}

func golden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; -update rewrites it):\n%s", path, diff)
	}
}

// TestParable pins what the pages' API answers on examples/parable.
func TestParable(t *testing.T) {
	w := parable(t)
	for _, tc := range []struct {
		name string
		run  func(t *testing.T) any
	}{
		{"overview.json", func(*testing.T) any { return w.Summarize(web.DefaultLimits) }},
		{"graph-route-baker.json", func(t *testing.T) any {
			subj, err := w.Resolve("HTTPRoute/baker/baker")
			if err != nil {
				t.Fatal(err)
			}
			return w.Neighbourhood(subj.Node, 3, web.DefaultLimits)
		}},
		{"graph-gateway-capped.json", func(t *testing.T) any {
			subj, err := w.Resolve("gateway/infra/storefront")
			if err != nil {
				t.Fatal(err)
			}
			return w.Neighbourhood(subj.Node, 2, web.Limits{PerGroup: 3, Nodes: 40})
		}},
		{"search-baker.json", func(*testing.T) any { return w.Search("kind:retry ns:baker") }},
	} {
		t.Run(tc.name, func(t *testing.T) { golden(t, tc.name, tc.run(t)) })
	}
}

// TestResolve: the names the pages put in URLs, and the errors for the
// others.
func TestResolve(t *testing.T) {
	w := parable(t)
	for _, tc := range []struct{ in, want, err string }{
		{in: "HTTPRoute/baker/baker", want: "HTTPRoute/baker/baker"},
		{in: "httproute/baker/baker#rule-0", want: "HTTPRoute/baker/baker#rule-0"},
		{in: "GatewayClass/cupcakes", want: "GatewayClass/cupcakes"},
		{in: "RetryPolicy/baker/baker-retries", want: "RetryPolicy/baker/baker-retries"},
		{in: "HTTPRoute/baker", err: `"HTTPRoute/baker": HTTPRoute is namespaced: want HTTPRoute/NAMESPACE/NAME`},
		{in: "HTTPRoute/baker/nope", err: "HTTPRoute baker/nope not found"},
		{in: "baker", err: `"baker": want KIND/NAMESPACE/NAME or KIND/NAME`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			subj, err := w.Resolve(tc.in)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("got error %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if subj.Policy != nil {
				got = web.PolicyString(subj.Policy)
			} else {
				got = web.RefString(w.Res.Graph.Node(subj.Node).Ref)
			}
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestLarge: at 1,000 Gateways and 20,000 routes nothing draws more than
// the limits allow, and the aggregates say how much is left out.
func TestLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("the 20,000-route world takes seconds to compute")
	}
	w := synthetic(t)
	o := w.Summarize(web.DefaultLimits)
	if len(o.Graph.Nodes) > web.DefaultLimits.Nodes {
		t.Errorf("overview draws %d boxes, over the cap of %d", len(o.Graph.Nodes), web.DefaultLimits.Nodes)
	}
	if o.Counts["Gateway"] != 1000 || o.Counts["HTTPRoute"] != 20000 {
		t.Errorf("counts %v, want 1000 Gateways and 20000 HTTPRoutes", o.Counts)
	}
	if len(o.Gateways)+o.MoreGateways != 1000 || o.MoreGateways == 0 {
		t.Errorf("overview lists %d Gateways and %d more, want a capped list of 1000", len(o.Gateways), o.MoreGateways)
	}
	if o.Graph.Hidden == 0 {
		t.Error("overview aggregates nothing: it drew every Gateway")
	}
	for _, ref := range []string{o.Gateways[0].Ref, "Namespace/ns-0000"} {
		subj, err := w.Resolve(ref)
		if err != nil {
			t.Fatal(err)
		}
		g := w.Neighbourhood(subj.Node, 4, web.DefaultLimits)
		// The cap stops expansion; one step may add a node's policies
		// and aggregates past it.
		if n := len(g.Nodes); n > web.DefaultLimits.Nodes+2*web.DefaultLimits.PerGroup {
			t.Errorf("%s: %d boxes, over the cap", ref, n)
		}
	}
}

// TestDeletion: the policy page's blast radius, asked as admission asks
// it, is `strata impact --delete`'s (query.Without + query.Compare), for
// every policy of the parable.
func TestDeletion(t *testing.T) {
	w := parable(t)
	for _, p := range w.Res.Policies {
		t.Run(web.PolicyString(p), func(t *testing.T) {
			after, err := query.Without(w.Res, p)
			if err != nil {
				t.Fatal(err)
			}
			want := query.Compare(w.Res, after, query.PolicyRefOf(p), query.ChangeDelete)
			got, err := web.Deletion(w, p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("impact differs from strata impact --delete (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGatewayRow: a Gateway's routes include those attached through its
// ListenerSets (GEP-1713), and its policies those attached to them.
func TestGatewayRow(t *testing.T) {
	src, err := files.Read([]string{"../../../examples/gep-713/listenerset"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := world(t, src.Snapshot).Summarize(web.DefaultLimits)
	if len(o.Gateways) != 1 {
		t.Fatalf("gateways %+v, want one", o.Gateways)
	}
	if gw := o.Gateways[0]; gw.Routes != 2 || gw.Policies != 2 {
		t.Errorf("Gateway %s: %d routes, %d policies; want 2 routes (r-gw on its listener, r-a through ListenerSet team-a; team-b is not accepted) and 2 policies (p-gw, p-ls)", gw.Ref, gw.Routes, gw.Policies)
	}
}
