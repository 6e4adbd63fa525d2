package cli

import (
	"path/filepath"
	"testing"
)

// TestProgrammedGolden pins what Strata prints for a kind of the
// Programmed vocabulary (PolicyKind spec.status.vocabulary, issue 16
// item 7): GEP-713's Example 2 again, whose policies are Programmed,
// PartiallyProgrammed and Overridden (Programmed=False) in status, and
// in the words of get policies, describe and the EffectivePolicy
// records' results.
func TestProgrammedGolden(t *testing.T) {
	dir := "../../examples/gep-713/programmed"
	for _, c := range []struct {
		file string
		args []string
	}{
		{"status.golden", []string{"status", "-o", "yaml"}},
		{"effective.golden", []string{"effective", "-o", "yaml"}},
		{"get-policies.golden", []string{"get", "policies"}},
		{"get-policies.yaml.golden", []string{"get", "policies", "-o", "yaml"}},
		{"describe-p1.golden", []string{"describe", "colorpolicy/p1"}},
		{"describe-p4.golden", []string{"describe", "colorpolicy/p4"}},
		{"describe-b1.golden", []string{"describe", "service/b1"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			out, errOut, code := strata(t, "", append(c.args, "-f", dir)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if errOut != "" {
				t.Errorf("stderr: %q", errOut)
			}
			discoverGolden(t, filepath.Join(dir, c.file), out)
		})
	}
}

// TestEnforcementWords: the roll-up of published results (EffectivePolicy
// records, which a reader may hold without the PolicyKind) answers in the
// words the records use, as get policies does from status.
func TestEnforcementWords(t *testing.T) {
	for _, c := range []struct {
		results map[string]int
		want    string
	}{
		{map[string]int{"Enforced": 2}, "Enforced"},
		{map[string]int{"Enforced": 1, "Overridden": 1}, "PartiallyEnforced"},
		{map[string]int{"Overridden": 2}, "Overridden"},
		{map[string]int{"Conflicted": 1}, "Overridden"},
		{map[string]int{"Programmed": 2}, "Programmed"},
		{map[string]int{"Programmed": 1, "Overridden": 1}, "PartiallyProgrammed"},
		{map[string]int{"PartiallyProgrammed": 1}, "PartiallyProgrammed"},
		{map[string]int{"PartiallyEnforced": 1, "Conflicted": 1}, "PartiallyEnforced"},
	} {
		if got := enforcement(c.results); got != c.want {
			t.Errorf("enforcement(%v) = %s, want %s", c.results, got, c.want)
		}
	}
	for term, want := range map[string]bool{"Enforced": true, "PartiallyEnforced": true, "Programmed": true, "PartiallyProgrammed": true, "Overridden": false, "Conflicted": false} {
		if got := inForce(term); got != want {
			t.Errorf("inForce(%s) = %v, want %v", term, got, want)
		}
	}
}
