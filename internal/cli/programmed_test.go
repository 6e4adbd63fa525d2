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
