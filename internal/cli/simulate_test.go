package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-dev/strata/pkg/query"
)

// simWorld is a shop whose routes overlap so that each request is decided
// by a different rule of Gateway API's precedence order, with the
// parable's policy kinds.
var simWorld = []string{"-f", discParable + "/kinds.yaml", "-f", "testdata/simulate/world.yaml"}

// strata simulate, every format, on the parable and on the shop: the
// listener, rule and backends chosen, the reasons for every one passed
// over, and the effective policies along the path.
func TestSimulateGolden(t *testing.T) {
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"parable-baker.golden", []string{"GET", "http://baker.cupcakes.example/", "-f", discParable}},
		{"parable-baker.yaml.golden", []string{"GET", "http://baker.cupcakes.example/", "-f", discParable, "-o", "yaml"}},
		{"parable-baker.json.golden", []string{"GET", "http://baker.cupcakes.example/", "-f", discParable, "-o", "json"}},
		// An Exact path beats the prefixes of every other route.
		{"shop-exact.golden", append([]string{"POST", "http://shop.example.com/api/cart"}, simWorld...)},
		// A header match beats the same prefix without one.
		{"shop-header.golden", append([]string{"GET", "http://shop.example.com/api/items", "-H", "X-Canary: true"}, simWorld...)},
		// Two routes equal on every match criterion: the older wins.
		{"shop-oldest.golden", append([]string{"GET", "http://shop.example.com/api/items"}, simWorld...)},
		// A gRPC call: POST /service/method, matched by a GRPCRoute.
		{"shop-grpc.golden", append([]string{"POST", "http://grpc.example.com/shop.Cart/AddItem", "-H", "content-type: application/grpc"}, simWorld...)},
		// HTTPS: the exact-hostname listener, the default rule, weights.
		{"shop-https.golden", append([]string{"GET", "https://shop.example.com/", "--gateway", "infra/edge"}, simWorld...)},
	} {
		t.Run(c.golden, func(t *testing.T) {
			out, errOut, code := strata(t, "", append([]string{"simulate"}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			discoverGolden(t, "testdata/simulate/"+c.golden, out)
		})
	}
}

// A request no rule handles: why, on stdout (every listener, route and
// match passed over), then exit 1 with one line on stderr.
func TestSimulateNoMatch(t *testing.T) {
	for _, c := range []struct {
		golden, stderr string
		args           []string
	}{
		{"parable-https.golden", "error: GET https://baker.cupcakes.example/: no listener of any Gateway accepts HTTPS requests for baker.cupcakes.example on port 443\n",
			[]string{"GET", "https://baker.cupcakes.example/", "-f", discParable}},
		{"shop-404.golden", "error: GET http://blog.example.com/: no rule of the 4 routes attached to Gateway infra/edge#http matches GET blog.example.com/: the Gateway answers 404 (HTTPRouteRule.matches)\n",
			append([]string{"GET", "http://blog.example.com/"}, simWorld...)},
	} {
		t.Run(c.golden, func(t *testing.T) {
			out, errOut, code := strata(t, "", append([]string{"simulate"}, c.args...)...)
			if code != 1 || errOut != c.stderr {
				t.Errorf("exit %d, stderr %q; want 1, %q", code, errOut, c.stderr)
			}
			discoverGolden(t, "testdata/simulate/"+c.golden, out)
		})
	}
}

func TestSimulateBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no URL", []string{"GET"}, "accepts 2 arg(s)"},
		{"relative URL", []string{"GET", "/api"}, "want an absolute http:// or https:// URL"},
		{"bad header", []string{"GET", "http://a.example.com/", "-H", "x-canary"}, `header "x-canary": want Name: value`},
		{"bad gateway", []string{"GET", "http://a.example.com/", "--gateway", "edge"}, `--gateway "edge": want NAMESPACE/NAME`},
		{"no gateway", []string{"GET", "http://a.example.com/", "--gateway", "infra/nope"}, "--gateway infra/nope: no such Gateway"},
		{"bad format", []string{"GET", "http://a.example.com/", "-o", "html"}, `--output "html"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := strata(t, "", append(append([]string{"simulate"}, c.args...), simWorld...)...)
			if code != 1 || out != "" || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %q", code, out, errOut, c.want)
			}
		})
	}
}

// docs/cli.md quotes the parable's simulation as the golden has it.
func TestSimulateDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("testdata/simulate/parable-baker.golden")
	if err != nil {
		t.Fatal(err)
	}
	want := "$ strata simulate GET http://baker.cupcakes.example/ -f examples/parable/\n" + string(golden) + "```"
	if !strings.Contains(string(doc), want) {
		t.Errorf("docs/cli.md does not quote testdata/simulate/parable-baker.golden as it is")
	}
}

// On a live cluster, simulate reads what -f reads: the same listener, and
// for the rule chosen, the same effective policies. (Which of example 3's
// equal routes wins depends on the creationTimestamps the API server
// gives them, so the files' answer is taken for the same rule.)
func TestSimulateLive(t *testing.T) {
	lc := startLive(t)
	var live, file query.Simulation
	if err := json.Unmarshal([]byte(mustStrata(t, "", "simulate", "GET", "http://x.example.com/", "--gateway", "default/g2", "--kubeconfig", lc.admin, "-o", "json")), &live); err != nil {
		t.Fatal(err)
	}
	if live.Listener == nil || live.Listener.String() != "Gateway default/g2#http" || live.Rule == nil {
		t.Fatalf("live: listener %v, rule %v (failure %q)", live.Listener, live.Rule, live.Failure)
	}
	if err := json.Unmarshal([]byte(mustStrata(t, "", "simulate", "GET", "http://x.example.com/", "--gateway", "default/g2", "-f", example3Dir, "-o", "json")), &file); err != nil {
		t.Fatal(err)
	}
	if live.Rule.Key() != file.Rule.Key() {
		t.Logf("the API server's timestamps chose %s, the files %s: comparing the listener only", live.Rule, file.Rule)
		return
	}
	if d := cmp.Diff(file.Effective, live.Effective); d != "" || len(live.Effective) == 0 {
		t.Errorf("effective policies differ (-files +live):\n%s", d)
	}
}
