package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGraphAround: `graph KIND/NAME --depth N` draws one object's
// neighbourhood (issue 18), in every format, the namespace's policies
// included; svg and html need no Graphviz and no network.
func TestGraphAround(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"graph-baker-depth1.mermaid.golden", []string{"graph", "httproute/baker", "-n", "baker", "--depth", "1", "-o", "mermaid"}},
		{"graph-baker-depth0.dot.golden", []string{"graph", "httproute", "baker", "-n", "baker", "--depth", "0"}},
		{"graph-baker.svg.golden", []string{"graph", "httproute/baker", "-n", "baker", "-o", "svg"}},
		{"graph-baker.html.golden", []string{"graph", "httproute/baker", "-n", "baker", "-o", "html"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			out, errOut, code := strata(t, "", append(tc.args, "-f", discParable)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if strings.Contains(out, "http://") && !strings.Contains(out, "http://www.w3.org/2000/svg") {
				t.Errorf("the drawing fetches something: %s", out)
			}
			discoverGolden(t, "testdata/discover/"+tc.golden, out)
		})
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"graph", "-o", "svg"}, "--output svg draws one object's neighbourhood: give KIND/NAME"},
		{[]string{"graph", "retrypolicy/baker-retries", "-n", "baker"}, "is a policy"},
		{[]string{"graph", "httproute/baker", "-n", "baker", "--depth", "-1"}, "--depth -1: want 0 or more"},
		{[]string{"graph", "-o", "png"}, `--output "png": want dot, mermaid, svg or html`},
	} {
		_, errOut, code := strata(t, "", append(tc.args, "-f", discParable)...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestImpactAdd: `impact --add FILE` answers for a policy that does not
// exist yet (issue 18), in the namespace of -n when the file names none.
func TestImpactAdd(t *testing.T) {
	const add = `apiVersion: policies.cupcakes.example/v1
kind: RetryPolicy
metadata: {name: baker-route-retries}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: baker}]
  defaults: {attempts: 5}
`
	out, errOut, code := strata(t, add, "impact", "--add", "-", "-n", "baker", "-f", discParable)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	discoverGolden(t, "testdata/discover/impact-add.golden", out)

	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{strings.Replace(add, "baker-route-retries", "baker-retries", 1), []string{"impact", "--add", "-", "-n", "baker"}, "exists already: use impact retrypolicy/baker-retries --replace -"},
		{add, []string{"impact", "retrypolicy/baker-retries", "--add", "-", "-n", "baker"}, "--add FILE names the new policy itself"},
		{strings.Replace(add, "RetryPolicy", "NoSuchPolicy", 1), []string{"impact", "--add", "-", "-n", "baker"}, "is not a policy kind of the input"},
	} {
		_, errOut, code := strata(t, tc.stdin, append(tc.args, "-f", discParable)...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestDescribeSummary: a description of more than 20 contexts (the
// parable's Namespace: 142) shows a summary of its effective policies,
// the values in force counted in contexts, and how to see each context;
// --full lists them all, and --kind/--field narrow them, grouping the
// targets with the same effect when they are still many (issue 18,
// "Output that stays readable at scale").
func TestDescribeSummary(t *testing.T) {
	run := func(args ...string) string {
		t.Helper()
		out, errOut, code := strata(t, "", append(args, "-f", discParable)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return out
	}
	summary := run("describe", "namespace/baker")
	discoverGolden(t, "testdata/discover/describe-namespace-summary.golden", summary)
	if n := strings.Count(summary, "  via "); n != 0 {
		t.Errorf("the summary lists %d contexts", n)
	}
	if n := strings.Count(run("describe", "namespace/baker", "--full"), "  via "); n != 142 {
		t.Errorf("--full lists %d contexts, want 142", n)
	}
	// Narrowed to 42 contexts with the same effect: one block naming
	// the routes (docs/cli.md quotes it); --full lists each context.
	narrow := run("describe", "namespace/baker", "--kind", "RetryPolicy", "--field", "attempts")
	discoverGolden(t, "testdata/discover/describe-namespace-narrow.golden", narrow)
	if n := strings.Count(narrow, "  via "); n != 0 {
		t.Errorf("--kind RetryPolicy --field attempts lists %d contexts, want them grouped", n)
	}
	if strings.Contains(narrow, "/backoff") || strings.Contains(narrow, "TimeoutPolicy on") {
		t.Errorf("--kind/--field left other kinds or fields:\n%s", narrow)
	}
	if n := strings.Count(run("describe", "namespace/baker", "--kind", "RetryPolicy", "--field", "attempts", "--full"), "  via "); n != 42 {
		t.Errorf("--kind RetryPolicy --field attempts --full lists %d contexts, want 42", n)
	}
	// The Gateway's 48 routes are counted on its Children line, which
	// --full spells out.
	gw := run("describe", "gateway/storefront", "-n", "infra", "--kind", "RateLimitPolicy")
	discoverGolden(t, "testdata/discover/describe-gateway-narrow.golden", gw)
	if full := run("describe", "gateway/storefront", "-n", "infra", "--full"); strings.Count(full, "HTTPRoute ") < 48 || !strings.Contains(full, "Children:  HTTPRoute baker/allergens, HTTPRoute baker/baker,") {
		t.Errorf("--full does not name every child:\n%s", full[:min(len(full), 2000)])
	}
	// A small description is listed in full, as before.
	if n := strings.Count(run("describe", "httproute/baker", "-n", "baker"), "  via "); n == 0 {
		t.Error("describe httproute/baker lists no context")
	}
	_, errOut, code := strata(t, "", "describe", "namespace/baker", "--field", "bad..x", "-f", discParable)
	if code != 1 || !strings.Contains(errOut, "empty key in a dotted path") {
		t.Errorf("--field bad..x: exit %d, %q", code, errOut)
	}
}

// TestGraphScopedMatchesComplete: graph runs the engine scoped (a
// diagram with no effective policy, a drawing with only the effective
// targets below the policies it colours: web.Plan, whose own test
// compares every node's drawing); the complete run must print the same
// bytes, stderr and error. Checked for the whole of example 3 and the
// parable, and around every fourth of their nodes, in each format in
// turn.
func TestGraphScopedMatchesComplete(t *testing.T) {
	var calls [][]string
	formats := []string{"svg", "html", "dot", "mermaid"}
	for _, dir := range []string{discEx3, discParable} {
		calls = append(calls, []string{"-f", dir}, []string{"-f", dir, "-o", "mermaid"})
		res := loadForTest(t, dir)
		for i, n := range res.Graph.Nodes {
			arg, ns, ok := argOf(n.Ref)
			if !ok || i%4 != 0 {
				continue
			}
			calls = append(calls, []string{arg, "-n", ns, "-o", formats[i/4%len(formats)], "-f", dir})
		}
	}
	run := func(args []string, scoped bool) string {
		var out, errb bytes.Buffer
		c := newGraphScoped(Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, scoped)
		c.SetArgs(args)
		c.SilenceErrors, c.SilenceUsage = true, true
		err := c.Execute()
		return fmt.Sprintf("stdout:\n%s\nstderr:\n%s\nerror: %v\n", out.String(), errb.String(), err)
	}
	// -l and --field-selector choose the policies drawn.
	for _, format := range formats {
		calls = append(calls,
			[]string{"service/b1", "--depth", "4", "-l", "team=web", "-o", format, "-f", kubectlKind, "-f", kubectlWorld},
			[]string{"httproute/baker", "-n", "baker", "--field-selector", "metadata.namespace!=baker", "-o", format, "-f", discParable})
	}
	for _, args := range calls {
		if d := cmp.Diff(run(args, false), run(args, true)); d != "" {
			t.Errorf("strata graph %s: scoped run differs (-complete +scoped):\n%s", strings.Join(args, " "), d)
		}
	}
	t.Logf("%d commands compared", len(calls))
}

// graph KIND/NAME -A finds the object in whichever namespace holds it,
// as describe KIND/NAME -A does, and draws what -n with its namespace
// draws, to the byte, in every format.
func TestGraphEverywhereMatchesNamespace(t *testing.T) {
	for _, c := range []struct{ arg, ns string }{
		{"httproute/baker", "baker"},
		{"service/tint", "frosting"},
		{"gateway/storefront", "infra"},
	} {
		for _, format := range []string{"dot", "mermaid", "svg", "html"} {
			in, errIn, _ := strata(t, "", "graph", c.arg, "-n", c.ns, "-f", discParable, "-o", format)
			all, errAll, _ := strata(t, "", "graph", c.arg, "-A", "-f", discParable, "-o", format)
			if in != all || errIn != errAll || in == "" {
				t.Errorf("graph %s -o %s: -A differs from -n %s:\n%s", c.arg, format, c.ns, cmp.Diff(in+errIn, all+errAll))
			}
		}
	}
}
