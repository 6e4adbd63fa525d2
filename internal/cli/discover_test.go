package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-dev/strata/internal/enginetest"
	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/query"
)

const (
	discEx2     = "../../examples/gep-713/example-2"
	discEx3     = "../../examples/gep-713/example-3"
	discParable = "../../examples/parable"
	// discCatalogue holds one or two policies of each built-in kind, read
	// without any declaration in the input.
	discCatalogue = "../../examples/catalogue"
	// discChildMerge: Envoy Gateway route policies merged into a Gateway
	// policy (spec.childMerge, docs/merging.md "Child merge").
	discChildMerge = "../../examples/childmerge"
)

// discoverGolden compares got with a golden file, rewriting it with -update.
func discoverGolden(t *testing.T, file, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/cli -update)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s differs (-want +got):\n%s", file, d)
	}
}

// The discoverability commands' outputs, every format, on GEP-713's
// examples and on the parable (examples/parable/README.md quotes these
// files). They live beside the examples they document.
func TestDiscoverGolden(t *testing.T) {
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{discEx3 + "/describe-b2.golden", []string{"describe", "service/b2", "-f", discEx3}},
		{discEx3 + "/describe-b2.yaml.golden", []string{"describe", "service/b2", "-f", discEx3, "-o", "yaml"}},
		{discEx3 + "/describe-b2.json.golden", []string{"describe", "service/b2", "-f", discEx3, "-o", "json"}},
		{discEx3 + "/describe-r1.golden", []string{"describe", "httproute/r1", "-f", discEx3}},
		{discEx3 + "/explain-b2-colors-light.golden", []string{"explain", "service/b2", "--field", "/colors/light", "-f", discEx3}},
		{discEx3 + "/explain-b2-colors-light.json.golden", []string{"explain", "service/b2", "--field", "/colors/light", "-f", discEx3, "-o", "json"}},
		{discEx3 + "/explain-b2-colors-light.yaml.golden", []string{"explain", "service/b2", "--field", "colors.light", "-f", discEx3, "-o", "yaml"}},
		{discEx3 + "/describe-p3.golden", []string{"describe", "colorpolicy/p3", "-f", discEx3}},
		{discEx3 + "/describe-p3.yaml.golden", []string{"describe", "colorpolicy/p3", "-f", discEx3, "-o", "yaml"}},
		{discEx3 + "/get-policies.golden", []string{"get", "policies", "-f", discEx3}},
		{discEx3 + "/get-policies.yaml.golden", []string{"get", "policies", "-f", discEx3, "-o", "yaml"}},
		{discEx3 + "/impact-delete-p3.golden", []string{"impact", "colorpolicy/p3", "--delete", "-f", discEx3}},
		{discEx3 + "/impact-delete-p3.yaml.golden", []string{"impact", "colorpolicy/p3", "--delete", "-f", discEx3, "-o", "yaml"}},
		{discEx3 + "/impact-delete-p3.json.golden", []string{"impact", "colorpolicy/p3", "--delete", "-f", discEx3, "-o", "json"}},
		{discEx2 + "/graph.dot.golden", []string{"graph", "-f", discEx2, "-o", "dot"}},
		{discEx2 + "/graph.mermaid.golden", []string{"graph", "-f", discEx2, "-o", "mermaid"}},
		{discParable + "/describe-baker.golden", []string{"describe", "httproute/baker", "-n", "baker", "-f", discParable}},
		{discParable + "/describe-baker.yaml.golden", []string{"describe", "httproute/baker", "-n", "baker", "-f", discParable, "-o", "yaml"}},
		{discParable + "/describe-baker.json.golden", []string{"describe", "httproute/baker", "-n", "baker", "-f", discParable, "-o", "json"}},
		{discParable + "/describe-baker-retries.golden", []string{"describe", "retrypolicy/baker-retries", "-n", "baker", "-f", discParable}},
		{discParable + "/explain-baker-codes.golden", []string{"explain", "httproute/baker", "-n", "baker", "--field", "codes", "-f", discParable}},
		{discParable + "/get-policies.golden", []string{"get", "policies", "-A", "-f", discParable}},
		{discParable + "/get-policies.json.golden", []string{"get", "policies", "-A", "-f", discParable, "-o", "json"}},
		{discParable + "/impact-delete.golden", []string{"impact", "retrypolicy/baker-retries", "-n", "baker", "--delete", "-f", discParable}},
		{discParable + "/impact-delete.json.golden", []string{"impact", "retrypolicy/baker-retries", "-n", "baker", "--delete", "-f", discParable, "-o", "json"}},
		{discCatalogue + "/get-policies.golden", []string{"get", "policies", "-A", "-f", discCatalogue}},
		{discCatalogue + "/kinds.golden", []string{"kinds", "-f", discCatalogue}},
		{discChildMerge + "/describe-r1.golden", []string{"describe", "httproute/r1", "-f", discChildMerge}},
		{discChildMerge + "/describe-gw-btp.yaml.golden", []string{"describe", "backendtrafficpolicy/gw-btp", "-f", discChildMerge, "-o", "yaml"}},
		{discChildMerge + "/describe-r1-btp.yaml.golden", []string{"describe", "backendtrafficpolicy/r1-btp", "-f", discChildMerge, "-o", "yaml"}},
		{discChildMerge + "/get-policies.golden", []string{"get", "policies", "-A", "-f", discChildMerge}},
		{discParable + "/kinds.golden", []string{"kinds", "-f", discParable}},
		{"testdata/kinds/builtin.golden", []string{"kinds", "--builtin"}},
	} {
		t.Run(filepath.Base(filepath.Dir(c.golden))+"/"+filepath.Base(c.golden), func(t *testing.T) {
			out, errOut, code := strata(t, "", c.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if errOut != "" {
				t.Errorf("stderr: %q", errOut)
			}
			discoverGolden(t, c.golden, out)
		})
	}
}

// Errors are one line on stderr, exit code 1, nothing on stdout; their
// text is kept in testdata/discover/errors.golden.
func TestDiscoverErrors(t *testing.T) {
	errorsGolden(t, "testdata/discover/errors.golden", []errorCase{
		{"unknown kind", []string{"describe", "deployment/baker", "-n", "baker", "-f", discParable}},
		{"not found", []string{"describe", "httproute/baker", "-f", discParable}},
		{"no such section", []string{"describe", "gateway/storefront#https", "-n", "infra", "-f", discParable}},
		{"policy not found", []string{"impact", "retrypolicy/retry-all", "-n", "baker", "--delete", "-f", discParable}},
		{"not KIND/NAME", []string{"describe", "baker", "-f", discParable}},
		{"explain a policy", []string{"explain", "retrypolicy/baker-retries", "-n", "baker", "--field", "codes", "-f", discParable}},
		{"explain unknown field", []string{"explain", "httproute/baker", "-n", "baker", "--field", "retries", "-f", discParable}},
		{"explain without field", []string{"explain", "httproute/baker", "-n", "baker", "-f", discParable}},
		{"explain nothing reaches", []string{"explain", "service/stencil", "-n", "frosting", "--field", "path", "-f", discParable}},
		{"impact of an object", []string{"impact", "httproute/baker", "-n", "baker", "--delete", "-f", discParable}},
		{"impact without change", []string{"impact", "retrypolicy/baker-retries", "-n", "baker", "-f", discParable}},
		{"get other things", []string{"get", "routes", "-f", discParable}},
		{"get policies of a topology kind", []string{"get", "policies", "httproute", "-f", discParable}},
		{"bad output", []string{"describe", "httproute/baker", "-n", "baker", "-f", discParable, "-o", "xml"}},
		{"bad graph output", []string{"graph", "-f", discParable, "-o", "svg"}},
	})
}

// --replace takes the policy's new version from a file or stdin.
func TestImpactReplace(t *testing.T) {
	p3v2 := `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p3, creationTimestamp: "2026-01-02T00:02:00Z"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g2}]
  overrides: {colors: {dark: black}, strategy: patch}
`
	out, errOut, code := strata(t, p3v2, "impact", "colorpolicy/p3", "--replace", "-", "-f", discEx3)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	discoverGolden(t, discEx3+"/impact-replace-p3.golden", out)

	_, errOut, code = strata(t, p3v2+"---\n"+p3v2, "impact", "colorpolicy/p3", "--replace", "-", "-f", discEx3)
	if code != 1 || !strings.Contains(errOut, "want exactly one object") {
		t.Errorf("two objects: exit %d, %q", code, errOut)
	}
}

// The parable's README shows the real output of its commands: every
// golden it quotes must appear in it verbatim.
func TestParableReadme(t *testing.T) {
	readme, err := os.ReadFile(discParable + "/README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"describe-baker.golden", "describe-baker-retries.golden", "impact-delete.golden"} {
		want, err := os.ReadFile(filepath.Join(discParable, f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(readme), string(want)) {
			t.Errorf("README.md does not quote %s as it is now; paste it again", f)
		}
	}
}

// Human output carries no color codes unless stdout is a terminal.
func TestNoColorWhenPiped(t *testing.T) {
	out, _, _ := strata(t, "", "describe", "service/b2", "-f", discEx3)
	if regexp.MustCompile("\x1b\\[").MatchString(out) {
		t.Errorf("color codes in piped output: %q", out)
	}
}

// Same input, same bytes: reversing the order of the documents changes
// none of the discoverability outputs.
func TestDiscoverDeterministic(t *testing.T) {
	scenario, err := os.ReadFile(discEx3 + "/scenario.yaml")
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(scenario), "\n---\n")
	for i, j := 0, len(docs)-1; i < j; i, j = i+1, j-1 {
		docs[i], docs[j] = docs[j], docs[i]
	}
	reversed := strings.Join(docs, "\n---\n")
	for _, args := range [][]string{
		{"describe", "service/b1", "-o", "json"},
		{"describe", "ns/default"},
		{"explain", "service/b1", "--field", "/colors"},
		{"get", "policies", "-o", "yaml"},
		{"impact", "colorpolicy/p1", "--delete"},
		{"graph", "-o", "mermaid"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			a, errA, codeA := strata(t, "", append(args, "-f", discEx3+"/kind.yaml", "-f", discEx3+"/scenario.yaml")...)
			b, errB, codeB := strata(t, reversed, append(args, "-f", discEx3+"/kind.yaml", "-f", "-")...)
			if codeA != 0 || codeB != 0 {
				t.Fatalf("exit %d, %d: %s %s", codeA, codeB, errA, errB)
			}
			if a != b {
				t.Errorf("reordered input changed the output:\n%s", cmp.Diff(a, b))
			}
		})
	}
}

// describe and explain run the engine for their subject only
// (engine.RunScoped); the complete run must give the same bytes on stdout
// and stderr, and the same error. Checked on every describe and explain of
// the examples' goldens and errors, on every node of the examples, and on
// many objects of a synthetic world.
func TestScopedMatchesComplete(t *testing.T) {
	var calls [][]string
	// The goldens and errors of TestDiscoverGolden and TestDiscoverErrors.
	calls = append(calls,
		[]string{"describe", "service/b2", "-f", discEx3},
		[]string{"describe", "service/b2", "-f", discEx3, "-o", "json"},
		[]string{"describe", "httproute/r1", "-f", discEx3},
		[]string{"explain", "service/b2", "--field", "/colors/light", "-f", discEx3},
		[]string{"explain", "service/b2", "--field", "colors.light", "-f", discEx3, "-o", "yaml"},
		[]string{"describe", "colorpolicy/p3", "-f", discEx3},
		[]string{"describe", "httproute/baker", "-n", "baker", "-f", discParable},
		[]string{"describe", "httproute/baker", "-n", "baker", "-f", discParable, "-o", "json"},
		[]string{"describe", "retrypolicy/baker-retries", "-n", "baker", "-f", discParable},
		[]string{"explain", "httproute/baker", "-n", "baker", "--field", "codes", "-f", discParable},
		[]string{"describe", "deployment/baker", "-n", "baker", "-f", discParable},
		[]string{"describe", "httproute/baker", "-f", discParable},
		[]string{"describe", "gateway/storefront#https", "-n", "infra", "-f", discParable},
		[]string{"describe", "baker", "-f", discParable},
		[]string{"explain", "retrypolicy/baker-retries", "-n", "baker", "--field", "codes", "-f", discParable},
		[]string{"explain", "httproute/baker", "-n", "baker", "--field", "retries", "-f", discParable},
		[]string{"explain", "service/stencil", "-n", "frosting", "--field", "path", "-f", discParable},
		// Subjects that name nothing, whose scoped run computes nothing
		// (subjectScope): the same "not found" and hints.
		[]string{"describe", "httproute/bakr", "-n", "baker", "-f", discParable},
		[]string{"describe", "httproute/baker", "-n", "frosting", "-f", discParable},
		[]string{"describe", "gateway/storefront#htps", "-n", "infra", "-f", discParable},
		[]string{"describe", "gatway/storefront", "-n", "infra", "-f", discParable},
		[]string{"explain", "httproute/bakr", "-n", "baker", "--field", "codes", "-f", discParable},
		[]string{"explain", "service/b3", "--field", "/colors/light", "-f", discEx3},
		// Several subjects: the union of their scopes, or the complete
		// run when one is a policy; one not found is the error.
		[]string{"describe", "service", "baker", "batter", "-n", "baker", "-f", discParable},
		[]string{"describe", "httproute/tint", "service/tint", "gateway/storefront", "-A", "-f", discParable, "-o", "json"},
		[]string{"describe", "service/tint", "retrypolicy/icing-retries", "-n", "frosting", "-f", discParable},
		[]string{"describe", "service", "baker", "bater", "-n", "baker", "-f", discParable},
		[]string{"describe", "service/baker", "httproute/bakr", "-A", "-f", discParable},
		// Every object of a kind (kindScope): in a namespace, in all,
		// chosen by labels or fields, none; policies of a kind.
		[]string{"describe", "httproute", "-n", "baker", "-f", discParable},
		[]string{"describe", "service", "-A", "-f", discParable, "-o", "json"},
		[]string{"describe", "namespace", "-A", "-f", discParable, "-o", "json"},
		[]string{"describe", "gateway", "-A", "-f", discParable},
		[]string{"describe", "httproute", "-A", "-l", "app=baker", "-f", discParable, "-o", "json"},
		[]string{"describe", "service", "-A", "--field-selector", "metadata.namespace=frosting", "-f", discParable},
		[]string{"describe", "httproute", "-n", "nowhere", "-f", discParable},
		[]string{"describe", "retrypolicy", "-A", "-f", discParable, "-o", "json"},
		[]string{"describe", "colorpolicy", "-f", discEx3},
	)
	// Every node of the examples, by its locator's kind/name#section (the
	// human output is a function of the JSON one).
	for _, dir := range []string{discEx2, discEx3, "../../examples/gep-713/example-1", discParable} {
		res := loadForTest(t, dir)
		for _, n := range res.Graph.Nodes {
			arg, ns, ok := argOf(n.Ref)
			if !ok {
				continue
			}
			calls = append(calls, []string{"describe", arg, "-n", ns, "-f", dir, "-o", "json"})
		}
	}
	// A synthetic world: every Gateway and namespace, every third listener,
	// every seventh route, rule, Service and port, the GatewayClass and
	// some policies.
	world := filepath.Join(t.TempDir(), "world.yaml")
	s := synth.Generate(synth.Sizes{Namespaces: 4, Gateways: 8, Routes: 160, Services: 160, Policies: 120}, 3)
	var buf bytes.Buffer
	if err := synth.WriteYAML(&buf, s); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(world, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	res := loadForTest(t, world)
	for i, n := range res.Graph.Nodes {
		arg, ns, ok := argOf(n.Ref)
		switch {
		case !ok:
			continue
		case n.Ref.Kind == "Gateway" && n.Ref.Section != "" && i%3 != 0:
			continue
		case (n.Ref.Kind == "HTTPRoute" || n.Ref.Kind == "Service") && i%7 != 0:
			continue
		}
		calls = append(calls, []string{"describe", arg, "-n", ns, "-f", world, "-o", "json"})
		if i%5 == 0 {
			calls = append(calls, []string{"describe", arg, "-n", ns, "-f", world})
		}
		if n.Ref.Kind == "Service" && n.Ref.Section == "" {
			calls = append(calls, []string{"explain", arg, "-n", ns, "-f", world, "--field", "/colors/light"})
		}
	}
	for i, p := range res.Policies {
		if i%20 == 0 {
			calls = append(calls, []string{"describe", strings.ToLower(p.Kind.Kind) + "/" + p.Name, "-n", p.Namespace, "-f", world, "-o", "json"})
		}
	}
	for _, kind := range []string{"httproute", "service", "gateway", "namespace", "colorpolicy"} {
		calls = append(calls, []string{"describe", kind, "-A", "-f", world, "-o", "json"},
			[]string{"describe", kind, "-n", res.Graph.Nodes[len(res.Graph.Nodes)/2].Ref.Namespace, "-f", world, "-o", "json"})
	}

	// Commands share nothing: run them on every core.
	diffs := make([]string, len(calls))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(calls); i = int(next.Add(1)) - 1 {
				diffs[i] = cmp.Diff(runScoped(calls[i], false), runScoped(calls[i], true))
			}
		})
	}
	wg.Wait()
	for i, d := range diffs {
		if d != "" {
			t.Errorf("strata %s: scoped run differs (-complete +scoped):\n%s", strings.Join(calls[i], " "), d)
		}
	}
	t.Logf("%d commands compared", len(calls))
}

// runScoped runs describe or explain, scoped or not, and returns what it
// wrote and its error.
func runScoped(args []string, scoped bool) string {
	var out, errb bytes.Buffer
	s := Streams{In: strings.NewReader(""), Out: &out, Err: &errb}
	c := newDescribeScoped(s, scoped)
	if args[0] == "explain" {
		c = newExplainScoped(s, scoped)
	}
	c.SetArgs(args[1:])
	c.SilenceErrors, c.SilenceUsage = true, true
	err := c.Execute()
	return fmt.Sprintf("stdout:\n%s\nstderr:\n%s\nerror: %v\n", out.String(), errb.String(), err)
}

// argOf is the KIND/NAME[#SECTION] argument and namespace naming a node.
func argOf(r topology.Ref) (arg, ns string, ok bool) {
	kind := strings.ToLower(r.Kind)
	if _, known := map[string]bool{"gateway": true, "gatewayclass": true, "httproute": true, "grpcroute": true, "service": true, "namespace": true, "tcproute": true, "tlsroute": true, "udproute": true}[kind]; !known {
		return "", "", false
	}
	arg = kind + "/" + r.Name
	if r.Section != "" {
		arg += "#" + r.Section
	}
	ns = r.Namespace
	if ns == "" {
		ns = "default"
	}
	return arg, ns, true
}

func loadForTest(t *testing.T, paths ...string) *engine.Result {
	t.Helper()
	return enginetest.Run(t, nil, paths...)
}

// errorCase is a command line that must fail.
type errorCase struct {
	name string
	args []string
}

// errorsGolden runs each case, which must exit 1 with nothing on stdout
// and one error line on stderr, and compares the transcript of them all
// with golden.
func errorsGolden(t *testing.T, golden string, cases []errorCase) {
	t.Helper()
	var all strings.Builder
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := strata(t, "", c.args...)
			if code != 1 {
				t.Errorf("exit code %d, want 1", code)
			}
			if out != "" {
				t.Errorf("stdout not empty: %q", out)
			}
			if strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "error: ") {
				t.Errorf("want one error line on stderr, got %q", errOut)
			}
			all.WriteString("$ strata " + strings.Join(c.args, " ") + "\n" + errOut)
		})
	}
	discoverGolden(t, golden, strings.ReplaceAll(all.String(), "../../examples/", "examples/"))
}

// A subject that names nothing (a kind, an object or a section not
// found) is answered with its error from a run that computes no
// effective policy and no status; a policy or a Namespace needs the
// complete run; any other subject, its own scope.
func TestSubjectScopeOfNothing(t *testing.T) {
	res := loadForTest(t, discParable)
	f := &sourceFlags{}
	for _, c := range []struct {
		arg, ns string
		want    string // nothing, complete or scoped
	}{
		{"httproute/bakr", "baker", "nothing"},
		{"httproute/baker", "frosting", "nothing"},
		{"gateway/storefront#htps", "infra", "nothing"},
		{"gatway/storefront", "infra", "nothing"},
		{"retrypolicy/baker-retries", "baker", "complete"},
		{"namespace/baker", "", "scoped"}, // the objects in it and below them (query.Scope)
		{"httproute/baker", "baker", "scoped"},
	} {
		if got := scopeOf(res, subjectScope(f, c.arg, c.ns)); got != c.want {
			t.Errorf("%s -n %s: scope is %s, want %s", c.arg, c.ns, got, c.want)
		}
	}
	for _, c := range []struct {
		kind, name string
		want       string
	}{
		{"httproute", "bakr", "nothing"},
		{"httproute", "baker#nope", "nothing"},
		{"gatway", "storefront", "nothing"},
		{"retrypolicy", "baker-retries", "complete"},
		{"httproute", "baker", "scoped"},
	} {
		if got := scopeOf(res, everywhereScope(f, c.kind, c.name)); got != c.want {
			t.Errorf("%s/%s -A: scope is %s, want %s", c.kind, c.name, got, c.want)
		}
	}
}

// scopeOf says what scope gives on res: the complete run (nil), nothing
// (query.NoTargets) or a scope.
func scopeOf(res *engine.Result, scope func(*engine.Result) []topology.NodeID) string {
	switch nodes := scope(res); {
	case nodes == nil:
		return "complete"
	case slices.Equal(nodes, query.NoTargets(res)):
		return "nothing"
	}
	return "scoped"
}
