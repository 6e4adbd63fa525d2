package query

import "testing"

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
