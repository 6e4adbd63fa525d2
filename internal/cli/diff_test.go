package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

const diffHead = "testdata/diff/head"

// strata diff on the parable and its edited copy (testdata/diff/head:
// baker-retries' attempts 3 -> 0, oven-health deleted, butter-health and
// baker-probe added), every format. The exit code is 0 unless
// --exit-code, and then 1 with the same output.
func TestDiffGolden(t *testing.T) {
	for _, c := range []struct{ golden, format string }{
		{"testdata/diff/parable.golden", ""},
		{"testdata/diff/parable.yaml.golden", "yaml"},
		{"testdata/diff/parable.json.golden", "json"},
		{"testdata/diff/parable.md.golden", "markdown"},
	} {
		t.Run(c.golden, func(t *testing.T) {
			args := []string{"diff", "-f", discParable, "--against", diffHead}
			if c.format != "" {
				args = append(args, "-o", c.format)
			}
			out, errOut, code := strata(t, "", args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			discoverGolden(t, c.golden, out)
			again, errOut, code := strata(t, "", append(args, "--exit-code")...)
			if code != 1 || again != out || !strings.Contains(errOut, "changes found (--exit-code): 45 effective target(s), 4 policy status(es)") {
				t.Errorf("--exit-code: exit %d, stderr %q, same stdout %v", code, errOut, again == out)
			}
		})
	}
}

// Identical inputs: "No change." and exit 0, even with --exit-code.
func TestDiffNoChange(t *testing.T) {
	for format, want := range map[string]string{
		"":         "No change.\n",
		"markdown": "### Strata: effective policy changes\n\nNo change.\n",
	} {
		out, errOut, code := strata(t, "", "diff", "-f", discParable, "--against", discParable, "--exit-code", "-o", format)
		if code != 0 || out != want {
			t.Errorf("-o %q: exit %d, stdout %q, stderr %q; want %q", format, code, out, errOut, want)
		}
	}
}

func TestDiffBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no head", []string{"diff", "-f", discParable}, "--against HEAD"},
		{"no base", []string{"diff", "--against", discParable}, "-f BASE"},
		{"both stdin", []string{"diff", "-f", "-", "--against", "-"}, "cannot both read stdin"},
		{"bad format", []string{"diff", "-f", discParable, "--against", discParable, "-o", "html"}, `--output "html"`},
		{"bad head", []string{"diff", "-f", discParable, "--against", "does-not-exist"}, "head (--against): "},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := strata(t, "", c.args...)
			if code != 1 || out != "" || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want %q", code, out, errOut, c.want)
			}
		})
	}
}

// docs/cli.md quotes the human golden of the four-edit diff whole (a
// transcript TestCLIDocTranscripts runs): its 42 routes changed the
// same way are one block.
func TestDiffDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("testdata/diff/parable.golden")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "$ strata diff -f examples/parable --against internal/cli/testdata/diff/head\n"+string(b)) {
		t.Errorf("docs/cli.md does not quote testdata/diff/parable.golden:\n%s", b)
	}
}

// Notes and warnings of each side's load name the side.
func TestDiffStderrNamesSide(t *testing.T) {
	dep := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x, namespace: baker}\n"
	out, errOut, code := strata(t, dep, "diff", "-f", discParable, "--against", discParable+",-")
	if code != 0 || out != "No change.\n" || errOut != "head: note: ignored objects of kinds outside Strata's hierarchy: Deployment.apps(1)\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// diff compares every namespace unless -n (-A, the default, may be
// given): diff -n NS lists exactly the complete diff's targets and
// policies in NS (or cluster-scoped), its counts are theirs, and
// --exit-code looks at them only. The head changes baker only.
func TestDiffInNamespace(t *testing.T) {
	type doc struct {
		Changed struct{ Targets, Contexts int }
		Targets []struct {
			Target   struct{ Namespace string }
			Contexts []json.RawMessage
		}
		Policies []struct{ Namespace string }
	}
	read := func(args ...string) (doc, []byte) {
		out, errOut, code := strata(t, "", append([]string{"diff", "-f", discParable, "--against", diffHead, "-o", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var d doc
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		return d, []byte(out)
	}
	all, allOut := read()
	if _, again := read("-A"); string(again) != string(allOut) {
		t.Errorf("diff -A differs from diff")
	}
	for _, ns := range []string{"baker", "frosting", "infra"} {
		got, _ := read("-n", ns)
		var targets, contexts, policies int
		for _, tg := range all.Targets {
			if n := tg.Target.Namespace; n == ns || n == "" {
				targets++
				contexts += len(tg.Contexts)
			}
		}
		for _, p := range all.Policies {
			if p.Namespace == ns || p.Namespace == "" {
				policies++
			}
		}
		if len(got.Targets) != targets || got.Changed.Targets != targets || got.Changed.Contexts != contexts || len(got.Policies) != policies {
			t.Errorf("diff -n %s: %d targets, changed %+v, %d policies; want %d targets in %d contexts, %d policies", ns, len(got.Targets), got.Changed, len(got.Policies), targets, contexts, policies)
		}
		for _, tg := range got.Targets {
			if n := tg.Target.Namespace; n != ns && n != "" {
				t.Errorf("diff -n %s lists a target in %s", ns, n)
			}
		}
	}
	if _, errOut, code := strata(t, "", "diff", "-f", discParable, "--against", diffHead, "-n", "frosting", "--exit-code"); code != 0 {
		t.Errorf("diff -n frosting --exit-code: exit %d, %s; nothing changes in frosting", code, errOut)
	}
}
