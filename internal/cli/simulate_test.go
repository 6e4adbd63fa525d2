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

// connWorld is a Gateway of TLS, TCP and UDP listeners, with policy kinds
// of its own.
var connWorld = []string{"-f", "testdata/simulate/connections.yaml"}

// filterWorld is a shop whose rules redirect, rewrite, mirror and answer
// CORS preflights, with the parable's policy kinds.
var filterWorld = []string{"-f", discParable + "/kinds.yaml", "-f", "testdata/simulate/filters.yaml"}

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
		// Filters: the request the backends receive (a header set, one
		// removed, the host and path rewritten), the mirror, the changes
		// to the response, the canary's own filter, an ExtensionRef not
		// simulated.
		{"filters-api.golden", append([]string{"GET", "http://shop.example.com/api/v1/items?id=7", "-H", "x-debug: 1"}, filterWorld...)},
		{"filters-api.yaml.golden", append([]string{"GET", "http://shop.example.com/api/v1/items?id=7", "-H", "x-debug: 1", "-o", "yaml"}, filterWorld...)},
		// A redirect: the status and Location, no backend reached.
		{"filters-redirect.golden", append([]string{"GET", "http://shop.example.com/old/cart?x=1"}, filterWorld...)},
		// A CORS preflight the Gateway answers itself.
		// Connections: TLS by SNI through a passthrough listener (the
		// exact TLSRoute over the wildcard one, a TCPRoute refused), the
		// wildcard TLSRoute, TCP behind a TLS listener that terminates,
		// plain TCP with weights, UDP.
		{"conn-tls.golden", append([]string{"tls://orders.db.example.com"}, connWorld...)},
		{"conn-tls.yaml.golden", append([]string{"tls://orders.db.example.com", "-o", "yaml"}, connWorld...)},
		{"conn-tls-wildcard.golden", append([]string{"tls://billing.db.example.com:443"}, connWorld...)},
		{"conn-tls-terminate.golden", append([]string{"tls://mq.example.com:5671"}, connWorld...)},
		{"conn-tcp.golden", append([]string{"tcp://db.example.com:5432", "--gateway", "infra/l4"}, connWorld...)},
		{"conn-udp.golden", append([]string{"udp://10.0.0.10:53"}, connWorld...)},
		// An HTTP request without METHOD is a GET.
		{"shop-https.golden", append([]string{"https://shop.example.com/", "--gateway", "infra/edge"}, simWorld...)},
		// The app's actual request: CORS headers on the response, the
		// backend's health check on the way.
		{"filters-cors.golden", append([]string{"PUT", "http://shop.example.com/app/cart", "-H", "Origin: https://www.example.com"}, filterWorld...)},
		{"filters-cors-preflight.golden", append([]string{"OPTIONS", "http://shop.example.com/app/cart", "-H", "Origin: https://www.example.com", "-H", "Access-Control-Request-Method: PUT"}, filterWorld...)},
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
		{"conn-no-listener.golden", "error: tls://www.example.com: no listener of any Gateway accepts TLS connections for www.example.com on port 443\n",
			append([]string{"tls://www.example.com"}, connWorld...)},
		{"conn-refused.golden", "error: tls://b1.kafka.example.com:9093: none of the 1 routes attached to Gateway infra/l4#kafka serves TLS connections for b1.kafka.example.com: the Gateway refuses the connection\n",
			append([]string{"tls://b1.kafka.example.com:9093"}, connWorld...)},
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
		{"no URL", []string{"GET"}, `URL "GET": want an absolute http:// or https:// URL`},
		{"too many", []string{"GET", "http://a.example.com/", "x"}, "strata simulate takes [METHOD] URL"},
		{"method of a connection", []string{"GET", "tls://a.example.com"}, "GET: a tls:// URL is a connection, not an HTTP request: give no method"},
		{"header of a connection", []string{"tcp://:5432", "-H", "x: 1"}, "-H: a tcp:// URL is a connection, not an HTTP request: it has no headers"},
		{"no port", []string{"udp://dns.example.com"}, "want udp://HOST:PORT: a UDP connection has no default port"},
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
	for golden, command := range map[string]string{
		"filters-api.golden": "strata simulate GET 'http://shop.example.com/api/v1/items?id=7' -H 'x-debug: 1' -f examples/parable/kinds.yaml -f internal/cli/testdata/simulate/filters.yaml",
		"conn-tls.golden":    "strata simulate tls://orders.db.example.com -f internal/cli/testdata/simulate/connections.yaml",
	} {
		out, err := os.ReadFile("testdata/simulate/" + golden)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(doc), "$ "+command+"\n"+string(out)+"```") {
			t.Errorf("docs/cli.md does not quote testdata/simulate/%s as it is", golden)
		}
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
