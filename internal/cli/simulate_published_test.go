package cli

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/internal/enginetest"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/query/routing"
	"github.com/strata-dev/strata/pkg/source/cluster"
)

// simView is what the records can tell of a simulation's effective
// policies: per kind, target and context, the path and each field's
// value and source (stack details and beaten policies are not
// published).
func simView(s *query.Simulation) map[string][]viewContext {
	out := map[string][]viewContext{}
	for _, ke := range s.Effective {
		for _, te := range ke.Targets {
			for _, c := range te.Contexts {
				x := viewContext{Path: c.Path, Spec: c.Spec}
				for _, f := range c.Fields {
					if f.SetBy != "" {
						x.Fields = append(x.Fields, viewField{f.Field, f.Value, f.SetBy})
					}
				}
				k := ke.Kind + " on " + te.Target.String()
				out[k] = append(out[k], x)
			}
		}
	}
	return out
}

func simulateT(t *testing.T, res *engine.Result, method, url string) (routing.Request, *query.Simulation) {
	t.Helper()
	req, err := routing.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := query.Simulate(res, req, "")
	if err != nil {
		t.Fatal(err)
	}
	return req, sim
}

// Which kinds decide the routing: the Gateways, their ListenerSets and
// the scheme's route kinds, in every namespace.
func TestRoutingHidden(t *testing.T) {
	gvk := func(gk schema.GroupKind) schema.GroupVersionKind { return gk.WithVersion("v1") }
	unreadable := []cluster.Unreadable{
		{GVK: gvk(hierarchy.GatewayClassKind), Reason: "Forbidden"},
		{GVK: gvk(hierarchy.ListenerSetKind), Reason: "Forbidden"},
		{GVK: gvk(hierarchy.TLSRouteKind), Reason: "Forbidden"},
	}
	nsOnly := []schema.GroupVersionKind{gvk(hierarchy.GatewayKind), gvk(hierarchy.HTTPRouteKind), gvk(hierarchy.ServiceKind)}
	for scheme, want := range map[string]string{
		"http": "Gateway (namespace baker only), ListenerSet (forbidden), HTTPRoute (namespace baker only)",
		"tls":  "Gateway (namespace baker only), ListenerSet (forbidden), TLSRoute (forbidden)",
		"udp":  "Gateway (namespace baker only), ListenerSet (forbidden)",
	} {
		if got := strings.Join(routingHidden(unreadable, nsOnly, "baker", scheme), ", "); got != want {
			t.Errorf("%s: %s, want %s", scheme, got, want)
		}
	}
	if got := routingHidden(unreadable[:1], nil, "baker", "http"); len(got) != 0 {
		t.Errorf("a GatewayClass does not decide the routing: %v", got)
	}
}

// Ana cannot read the Gateway: the routing is undecided; with --route
// baker/baker, her route's own rule and backends, and from the records
// the effective policies of its context paths: the admin's answer for
// the same request, less what the records do not hold.
func TestSimulateAssumedRoute(t *testing.T) {
	admin, ana, seen, _ := publishedParable(t)
	req, want := simulateT(t, admin, "GET", "http://baker.cupcakes.example/")
	sim := undecided(t, req, []string{"Gateway (namespace baker only)", "HTTPRoute (namespace baker only)"})
	if !strings.HasPrefix(sim.Undecided, "you cannot read Gateway (namespace baker only), HTTPRoute (namespace baker only) in every namespace, so which listener accepts the request") {
		t.Errorf("undecided: %q", sim.Undecided)
	}
	route := topology.Ref{Group: hierarchy.GatewayGroup, Kind: "HTTPRoute", Namespace: "baker", Name: "baker"}
	query.AssumeRoute(sim, ana, seen.Records, route, "")
	if sim.Failure != "" || sim.Rule == nil || sim.Rule.String() != want.Rule.String() || len(sim.Backends) != 1 || sim.Backends[0].Ref != want.Backends[0].Ref {
		t.Fatalf("Ana's route: %+v\nwant rule %s", sim, want.Rule)
	}
	if len(simView(want)) != 4 {
		t.Fatalf("the admin's simulation: %d kinds and targets, want 4", len(simView(want)))
	}
	if d := cmp.Diff(simView(want), simView(sim)); d != "" {
		t.Errorf("effective policies (-admin +Ana from the records):\n%s", d)
	}
	// Through another Gateway: none of its contexts.
	other := undecided(t, req, []string{"Gateway (namespace baker only)"})
	query.AssumeRoute(other, ana, seen.Records, route, "infra/elsewhere")
	if len(other.Effective) != 0 {
		t.Errorf("--gateway infra/elsewhere: %+v", other.Effective)
	}
	// A route whose hostnames do not serve the host: no context of it is
	// the request's.
	whisk := undecided(t, req, []string{"Gateway (namespace baker only)"})
	query.AssumeRoute(whisk, ana, seen.Records, topology.Ref{Group: hierarchy.GatewayGroup, Kind: "HTTPRoute", Namespace: "baker", Name: "whisk"}, "")
	if whisk.Failure != "HTTPRoute baker/whisk does not serve it: hostname baker.cupcakes.example matches none of its hostnames whisk.cupcakes.example" || len(whisk.Effective) != 0 {
		t.Errorf("whisk: %q %+v", whisk.Failure, whisk.Effective)
	}
	// A route Ana cannot read either: the records alone.
	unread := undecided(t, req, []string{"Gateway (namespace baker only)"})
	query.AssumeRoute(unread, enginetest.RunYAML(t, "apiVersion: v1\nkind: Namespace\nmetadata: {name: baker}"), seen.Records, route, "")
	if unread.Rule != nil || len(unread.Effective) == 0 {
		t.Errorf("unread route: %+v", unread)
	}
}

// The routing readable, the policy kinds not: the records of the objects
// on the request's way, in its path's contexts, as the admin sees them.
func TestSimulatePublishedOnPath(t *testing.T) {
	admin, ana, _, p := publishedParable(t)
	_, want := simulateT(t, admin, "GET", "http://baker.cupcakes.example/")
	_, got := simulateT(t, ana, "GET", "http://baker.cupcakes.example/")
	if len(got.Effective) != 0 {
		t.Fatalf("Ana reads policies: %+v", got.Effective)
	}
	p.Simulate(got, ana)
	if d := cmp.Diff(simView(want), simView(got)); d != "" {
		t.Errorf("(-admin +Ana from the records):\n%s", d)
	}
	var kinds []string
	for _, ke := range got.Effective {
		kinds = append(kinds, ke.Kind)
	}
	if strings.Join(kinds, ",") != "HealthCheckPolicy,RateLimitPolicy,RetryPolicy,TimeoutPolicy" {
		t.Errorf("kinds %v", kinds)
	}
}

// undecided is RunSimulate's answer when the routing kinds hidden could not be read.
func undecided(t *testing.T, req routing.Request, hidden []string) *query.Simulation {
	t.Helper()
	sim, err := query.RunSimulate(nil, query.SimulateRequest{Request: req, Hidden: hidden})
	if err != nil {
		t.Fatal(err)
	}
	return sim
}
