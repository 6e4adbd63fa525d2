package cli

import (
	"os"
	"strings"
	"testing"
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
