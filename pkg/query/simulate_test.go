package query_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/query/routing"
	"github.com/strata-dev/strata/pkg/source/files"
)

// Simulate reads the engine's contexts: on the request's path, its
// effective policies are those Describe gives for the same targets and
// path, and a run scoped by SimulateRequest.Scope answers as the complete run
// does, to the byte.
func TestSimulateAgreesWithDescribe(t *testing.T) {
	src, err := files.Read([]string{"../../examples/parable"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	full, err := engine.Run(src.Snapshot, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, url := range []string{"http://baker.cupcakes.example/", "http://icing.cupcakes.example/x", "http://nowhere.cupcakes.example/"} {
		t.Run(url, func(t *testing.T) {
			req, err := routing.NewRequest("GET", url, nil)
			if err != nil {
				t.Fatal(err)
			}
			sim, err := query.Simulate(full, req, "")
			if err != nil {
				t.Fatal(err)
			}
			scoped, err := engine.RunScoped(src.Snapshot, engine.Options{}, query.SimulateRequest{Request: req}.Scope())
			if err != nil {
				t.Fatal(err)
			}
			simScoped, err := query.Simulate(scoped, req, "")
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(sim)
			b, _ := json.Marshal(simScoped)
			if d := cmp.Diff(string(a), string(b)); d != "" {
				t.Errorf("scoped run differs (-complete +scoped):\n%s", d)
			}
			if sim.Failure != "" {
				return
			}
			if len(sim.Effective) == 0 {
				t.Fatal("no effective policy on the path")
			}
			for _, k := range sim.Effective {
				for _, te := range k.Targets {
					d := query.Describe(full, full.Graph.Lookup(topology.FromAPI(te.Target)))
					for _, ctx := range te.Contexts {
						if !describes(d, k.GroupKind, te.Target, ctx) {
							t.Errorf("%s on %s via %v: not as describe gives it", k.Kind, te.Target, ctx.Path)
						}
					}
				}
			}
		})
	}
}

// Connections and filtered requests too: a scoped run answers as the
// complete one, and a request the Gateway answers itself reaches no
// backend, so no policy of a backend applies to it.
func TestSimulateScopedConnectionsAndFilters(t *testing.T) {
	for _, c := range []struct {
		files       []string
		method, url string
		headers     []string
		// backendPolicy: a policy of a backend applies (the world has
		// one on its Service, and the Gateway does not answer itself).
		backendPolicy bool
	}{
		{[]string{"../../internal/cli/testdata/simulate/connections.yaml"}, "", "tls://orders.db.example.com", nil, true},
		{[]string{"../../internal/cli/testdata/simulate/connections.yaml"}, "", "tcp://:5432", nil, true},
		{[]string{"../../internal/cli/testdata/simulate/connections.yaml"}, "", "udp://:53", nil, false},
		{[]string{"../../examples/parable/kinds.yaml", "../../internal/cli/testdata/simulate/filters.yaml"}, "GET", "http://shop.example.com/api/v1/x", nil, false},
		{[]string{"../../examples/parable/kinds.yaml", "../../internal/cli/testdata/simulate/filters.yaml"}, "PUT", "http://shop.example.com/app",
			[]string{"Origin: https://a.example.com"}, true},
		{[]string{"../../examples/parable/kinds.yaml", "../../internal/cli/testdata/simulate/filters.yaml"}, "OPTIONS", "http://shop.example.com/app",
			[]string{"Origin: https://a.example.com", "Access-Control-Request-Method: PUT"}, false},
	} {
		t.Run(c.url, func(t *testing.T) {
			src, err := files.Read(c.files, nil)
			if err != nil {
				t.Fatal(err)
			}
			full, err := engine.Run(src.Snapshot, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			req, err := routing.NewRequest(c.method, c.url, c.headers)
			if err != nil {
				t.Fatal(err)
			}
			sim, err := query.Simulate(full, req, "")
			if err != nil || sim.Failure != "" {
				t.Fatalf("%v %q", err, sim.Failure)
			}
			scoped, err := engine.RunScoped(src.Snapshot, engine.Options{}, query.SimulateRequest{Request: req}.Scope())
			if err != nil {
				t.Fatal(err)
			}
			simScoped, err := query.Simulate(scoped, req, "")
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(sim)
			b, _ := json.Marshal(simScoped)
			if d := cmp.Diff(string(a), string(b)); d != "" {
				t.Errorf("scoped run differs (-complete +scoped):\n%s", d)
			}
			onBackend := false
			for _, k := range sim.Effective {
				for _, te := range k.Targets {
					onBackend = onBackend || te.Target.Kind == "Service"
				}
			}
			if c.backendPolicy != onBackend {
				t.Errorf("a policy of a backend: %v, want %v", onBackend, c.backendPolicy)
			}
		})
	}
}

func describes(d *query.Description, gk query.GroupKind, target query.Ref, ctx query.ContextEffect) bool {
	want, _ := json.Marshal(ctx)
	for _, k := range d.Effective {
		if k.GroupKind != gk {
			continue
		}
		for _, te := range k.Targets {
			if te.Target != target {
				continue
			}
			for _, c := range te.Contexts {
				if got, _ := json.Marshal(c); string(got) == string(want) {
					return true
				}
			}
		}
	}
	return false
}

func TestNewSimulateRequestRoute(t *testing.T) {
	for _, c := range []struct{ arg, scheme, want, err string }{
		{"baker/baker", "http", "HTTPRoute baker/baker", ""},
		{"grpcroute/shop/cart", "https", "GRPCRoute shop/cart", ""},
		{"GRPCRoutes/shop/cart", "http", "GRPCRoute shop/cart", ""},
		{"db/orders-pg", "tls", "TLSRoute db/orders-pg", ""},
		{"tcproute/mq/mq", "tls", "TCPRoute mq/mq", ""},
		{"db/pg", "tcp", "TCPRoute db/pg", ""},
		{"baker", "http", "", `--route "baker": want [KIND/]NAMESPACE/NAME`},
		{"baker/", "http", "", `--route "baker/": want [KIND/]NAMESPACE/NAME`},
		{"service/baker/baker", "http", "", "service is not a route kind"},
		{"tlsroute/db/pg", "http", "", "a TLSRoute does not handle http:// requests"},
	} {
		r, err := query.NewSimulateRequest("", c.scheme+"://h.example:1/", nil, "", c.arg)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %v, want %q", c.arg, err, c.err)
		case c.err == "" && (err != nil || r.Expected.String() != c.want):
			t.Errorf("%s: %v %v, want %s", c.arg, r.Expected, err, c.want)
		}
	}
}

// RunSimulate answers `strata simulate` on the parable: the rule reached,
// the --route check, and why an answer is none.
func TestRunSimulate(t *testing.T) {
	src, err := files.Read([]string{"../../examples/parable"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, url, route string
		hidden           []string
		rule, err, why   string // the rule reached, RunSimulate's error, Unanswered's
	}{
		{name: "reached", url: "http://baker.cupcakes.example/", rule: "HTTPRoute baker/baker"},
		{name: "expected route", url: "http://baker.cupcakes.example/", route: "baker/baker", rule: "HTTPRoute baker/baker"},
		{name: "another route", url: "http://baker.cupcakes.example/", route: "frosting/icing", rule: "HTTPRoute baker/baker",
			why: "GET http://baker.cupcakes.example/: reaches HTTPRoute baker/baker, not HTTPRoute frosting/icing (--route)"},
		{name: "no such route", url: "http://baker.cupcakes.example/", route: "baker/bakr", err: "--route baker/bakr: no such HTTPRoute"},
		{name: "unhandled", url: "http://nowhere.cupcakes.example/", why: "GET http://nowhere.cupcakes.example/: "},
		{name: "undecided", url: "http://baker.cupcakes.example/", hidden: []string{"Gateway (forbidden)"},
			why: "you cannot read Gateway (forbidden) in every namespace, so which listener accepts the request and which route handles it cannot be decided; name the route you expect with --route"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := query.NewSimulateRequest("GET", c.url, nil, "", c.route)
			if err != nil {
				t.Fatal(err)
			}
			req.Hidden = c.hidden
			res, err := engine.RunScoped(src.Snapshot, engine.Options{}, req.Scope())
			if err != nil {
				t.Fatal(err)
			}
			sim, err := query.RunSimulate(res, req)
			if c.err != "" || err != nil {
				if err == nil || !strings.HasPrefix(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			rule := ""
			if sim.Rule != nil {
				rule = sim.Rule.Kind + " " + sim.Rule.Namespace + "/" + sim.Rule.Name
			}
			why := ""
			if err := req.Unanswered(sim); err != nil {
				why = err.Error()
			}
			if rule != c.rule || !strings.Contains(why, c.why) || (c.why == "") != (why == "") {
				t.Errorf("rule %q, unanswered %q; want %q, %q", rule, why, c.rule, c.why)
			}
		})
	}
}
