package cli

import (
	"strings"
	"testing"
)

// How the commands read the names a user types (kinds, KIND/NAME, field
// paths, --sort-by, simulate's --gateway and --route) and what they answer
// to a mistake: one error line naming what is wrong, with "did you mean"
// and where the object is, never an empty answer that reads as a fact,
// nor a library's log line. The messages are kept in
// testdata/naming/errors.golden.
func TestNamingErrors(t *testing.T) {
	var all strings.Builder
	for _, c := range []struct {
		name string
		args []string
	}{
		// describe --kind reads kinds as explain --kind does.
		{"describe --kind typo", []string{"describe", "httproute/baker", "-n", "baker", "-f", discParable, "--kind", "retrypolcy"}},
		{"describe --kind of the hierarchy", []string{"describe", "httproute/baker", "-n", "baker", "-f", discParable, "--kind", "httproute"}},
		{"describe --kind among several", []string{"describe", "httproute/baker", "-n", "baker", "-f", discParable, "--kind", "retrypolicy", "--kind", "timeoutpolicys"}},
		// describe --field: a field no context sets.
		{"describe --field typo", []string{"describe", "httproute/baker", "-n", "baker", "-f", discParable, "--field", "atempts"}},
		{"describe --field typo of a kind", []string{"describe", "httproute/baker", "-n", "baker", "-f", discParable, "--kind", "RetryPolicies", "--field", "atempts"}},
		{"describe --field element not there", []string{"describe", "httproute/baker", "-n", "baker", "-f", discParable, "--field", "/codes/7"}},
		{"describe KIND --field typo", []string{"describe", "service", "-n", "baker", "-f", discParable, "--field", "intervalSecond"}},
	} {
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
	discoverGolden(t, "testdata/naming/errors.golden", strings.ReplaceAll(all.String(), "../../examples/", "examples/"))
}

// describe --kind takes every name explain --kind and describe KIND/NAME
// take: the kind, its plural, kind.group and resource.group, in any case.
// Each narrows to the same answer as the kind's own name.
func TestDescribeKindNames(t *testing.T) {
	base := []string{"describe", "httproute/baker", "-n", "baker", "-f", discParable, "--kind"}
	want, errOut, code := strata(t, "", append(base, "RetryPolicy")...)
	if code != 0 || !strings.Contains(want, "RetryPolicy on HTTPRoute baker/baker") {
		t.Fatalf("--kind RetryPolicy: exit %d, %s%s", code, want, errOut)
	}
	for _, name := range []string{"retrypolicy", "retrypolicies", "RetryPolicies", "retrypolicy.policies.cupcakes.example", "retrypolicies.policies.cupcakes.example"} {
		t.Run(name, func(t *testing.T) {
			got, errOut, code := strata(t, "", append(base, name)...)
			if code != 0 || got != want {
				t.Errorf("--kind %s: exit %d, stderr %q; stdout differs from --kind RetryPolicy's:\n%s", name, code, errOut, got)
			}
		})
	}
}

// What the names read answer: a field below one the contexts list (an
// element of an atomic list) as explain --field shows it, a Gateway by
// kubectl's resource.group, one policy by get policies KIND/NAME.
func TestNamingGolden(t *testing.T) {
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"describe-field-element", []string{"describe", "httproute/baker", "-n", "baker", "--field", "/codes/0", "-f", discParable}},
		{"describe-field-element.json", []string{"describe", "httproute/baker", "-n", "baker", "--field", "codes.1", "-f", discParable, "-o", "json"}},
	} {
		t.Run(c.golden, func(t *testing.T) {
			out, errOut, code := strata(t, "", c.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			discoverGolden(t, "testdata/naming/"+c.golden+".golden", "$ strata "+strings.ReplaceAll(strings.Join(c.args, " "), "../../examples/", "examples/")+"\n"+out)
		})
	}
}
