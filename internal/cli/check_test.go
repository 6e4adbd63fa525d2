package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"
)

const checkDir = "testdata/check"

// checkArgs reads the test world: ColorPolicy as example 3 declares it,
// and one policy of each finding class beside one that is fine.
func checkArgs(extra ...string) []string {
	return append([]string{"check", "-f", "../../examples/gep-713/example-3/kind.yaml", "-f", checkDir + "/world.yaml", "-f", checkDir + "/policies.yaml"}, extra...)
}

// strata check prints one line per finding, file:line first, in every
// output format; the exit code is 1 exactly when a finding is of a
// --fail-on class, with one line on stderr saying how many and which.
func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name    string
		args    []string
		golden  string
		code    int
		errLine string
	}{
		{"text, default --fail-on", checkArgs(), checkDir + "/check.golden", 1,
			"error: 3 finding(s) of --fail-on classes (targetnotfound, invalid, conflicted)\n"},
		{"every class fails", checkArgs("--fail-on", "invalid,conflicted,targetnotfound,overridden,unused"), checkDir + "/check.golden", 1,
			"error: 5 finding(s) of --fail-on classes (targetnotfound, unused, overridden, invalid, conflicted)\n"},
		{"only overridden fails", checkArgs("--fail-on", "overridden"), checkDir + "/check.golden", 1,
			"error: 1 finding(s) of --fail-on classes (overridden)\n"},
		{"nothing fails", checkArgs("--fail-on", ""), checkDir + "/check.golden", 0, ""},
		{"json", checkArgs("-o", "json", "--fail-on", ""), checkDir + "/check.json.golden", 0, ""},
		{"sarif", checkArgs("-o", "sarif", "--fail-on", "invalid,conflicted"), checkDir + "/check.sarif.golden", 1,
			"error: 2 finding(s) of --fail-on classes (invalid, conflicted)\n"},
		{"a world without findings", []string{"check", "-f", discEx3}, checkDir + "/none.golden", 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := strata(t, "", c.args...)
			if code != c.code || errOut != c.errLine {
				t.Fatalf("exit %d, stderr %q; want %d, %q", code, errOut, c.code, c.errLine)
			}
			discoverGolden(t, c.golden, out)
		})
	}
}

// The JSON and SARIF outputs parse, and SARIF's levels follow --fail-on:
// error for a failing class, warning for the others.
func TestCheckMachineOutputs(t *testing.T) {
	out, _, _ := strata(t, "", checkArgs("-o", "json", "--fail-on", "")...)
	var found []struct {
		Class string `json:"class"`
		File  string `json:"file"`
		Line  int    `json:"line"`
	}
	if err := json.Unmarshal([]byte(out), &found); err != nil || len(found) != 5 {
		t.Fatalf("json: %v, %d findings", err, len(found))
	}
	for _, f := range found {
		if f.File != checkDir+"/policies.yaml" || f.Line == 0 {
			t.Errorf("%s finding at %s:%d", f.Class, f.File, f.Line)
		}
	}
	out, _, _ = strata(t, "", checkArgs("-o", "sarif", "--fail-on", "invalid,conflicted")...)
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
				Level  string `json:"level"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &log); err != nil || log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("sarif: %v, %+v", err, log)
	}
	// Valid against the SARIF 2.1.0 schema, which writeSARIF leaves to
	// this test.
	rep, err := sarif.FromString(out)
	if err != nil {
		t.Fatalf("sarif: %v", err)
	}
	if err := rep.Validate(); err != nil {
		t.Fatalf("sarif: %v", err)
	}
	for _, r := range log.Runs[0].Results {
		want := "warning"
		if r.RuleID == "invalid" || r.RuleID == "conflicted" {
			want = "error"
		}
		if r.Level != want {
			t.Errorf("%s: level %s, want %s", r.RuleID, r.Level, want)
		}
	}
}

func TestCheckRefuses(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{checkArgs("--fail-on", "overriden"), `--fail-on "overriden": want any of invalid, conflicted, targetnotfound, overridden, unused`},
		{checkArgs("-o", "yaml"), `--output "yaml": want text, json or sarif`},
	} {
		out, errOut, code := strata(t, "", c.args...)
		if code != 1 || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", c.args, code, out, errOut, c.want)
		}
	}
}

// check looks at every namespace unless -n (-A, the default, may be
// given); -n NS checks NS's policies (and cluster-scoped ones, as get
// policies -n), -l and --field-selector choose policies. The lines kept
// are the complete check's, exit code included.
func TestCheckChoosesPolicies(t *testing.T) {
	const (
		conflicted = "../../examples/parable/policies.yaml:445: HealthCheckPolicy.policies.cupcakes.example frosting/tint-health-v2: conflicted:"
		notFound   = "../../examples/parable/policies.yaml:429: TimeoutPolicy.policies.cupcakes.example frosting/sprinkle-timeout: targetnotfound:"
		dangling   = checkDir + "/policies.yaml:26: ColorPolicy.policies.controller.io default/dangling: targetnotfound:"
		sideways   = checkDir + "/policies.yaml:18: ColorPolicy.policies.controller.io default/sideways: invalid:"
	)
	for _, c := range []struct {
		args []string
		want []string
		code int
	}{
		{[]string{"check", "-f", discParable}, []string{conflicted, notFound}, 1},
		{[]string{"check", "-f", discParable, "-A"}, []string{conflicted, notFound}, 1},
		{[]string{"check", "-f", discParable, "-n", "baker"}, nil, 0},
		{[]string{"check", "-f", discParable, "-n", "frosting"}, []string{conflicted, notFound}, 1},
		{[]string{"check", "-f", discParable, "-n", "baker", "-A"}, []string{conflicted, notFound}, 1},
		{[]string{"check", "-f", discParable, "--field-selector", "metadata.name=sprinkle-timeout"}, []string{notFound}, 1},
		{checkArgs("-l", "team=web"), []string{dangling, sideways}, 1},
		{checkArgs("-l", "team=ops", "--fail-on", "unused"), []string{checkDir + "/policies.yaml:34: ColorPolicy.policies.controller.io default/idle: unused:"}, 1},
		{checkArgs("-l", "team=nobody"), nil, 0},
	} {
		out, errOut, code := strata(t, "", c.args...)
		var got []string
		for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if line != "" {
				got = append(got, line)
			}
		}
		ok := code == c.code && len(got) == len(c.want)
		for i := 0; ok && i < len(got); i++ {
			ok = strings.HasPrefix(got[i], c.want[i])
		}
		if !ok {
			t.Errorf("%v: exit %d (want %d), stderr %q, lines:\n%s\nwant lines starting:\n%s", c.args, code, c.code, errOut, out, strings.Join(c.want, "\n"))
		}
	}
}
