package outcome_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/outcome"
	"github.com/strata-dev/strata/pkg/engine/policykind"
)

// programmed is the condition list of a policy of a Programmed kind: one
// Programmed condition next to Accepted (docs/status.md "Vocabularies").
func programmed(status, reason, msg string) []string {
	return []string{
		"Accepted=True Accepted 3: accepted",
		fmt.Sprintf("Programmed=%s %s 3: %s", status, reason, msg),
	}
}

// TestVocabularies runs the same worlds with a kind of each vocabulary
// (PolicyKind spec.status.vocabulary): the default and Enforced write
// GEP-713's Enforced, PartiallyEnforced and Overridden ("Metaresource
// status"); Programmed writes Programmed=True Programmed or
// PartiallyProgrammed, or Programmed=False Overridden. Accepted, and a
// refusal (Conflicted), read the same in both.
func TestVocabularies(t *testing.T) {
	k := "TestPolicy"
	type scene struct {
		name     string
		policies []string
		// want per vocabulary: ancestor ref -> conditions of p.
		enforced, programmed map[string][]string
	}
	worlds := []scene{{
		name:     "enforced",
		policies: []string{pol(k, "web", "p", "01", fmt.Sprintf(toRoute, "web"), "  defaults: {a: p}")},
		enforced: map[string][]string{
			"Gateway edge/edge": enforced("fully enforced in 1 context"),
			"Gateway infra/gw":  enforced("fully enforced in 1 context"),
		},
		programmed: map[string][]string{
			"Gateway edge/edge": programmed("True", "Programmed", "fully programmed in 1 context"),
			"Gateway infra/gw":  programmed("True", "Programmed", "fully programmed in 1 context"),
		},
	}, {
		name: "partially enforced",
		policies: []string{
			pol(k, "web", "p", "01", fmt.Sprintf(toRoute, "web"), "  defaults: {a: p, b: p}"),
			pol(k, "infra", "o", "02", fmt.Sprintf(toGW, "gw"), "  overrides: {a: o}\n  strategy: PatchOverrides"),
		},
		enforced: map[string][]string{
			"Gateway edge/edge": enforced("fully enforced in 1 context"),
			"Gateway infra/gw":  partially("superseded by infra/o in 1 of 1 context (fields /a)"),
		},
		programmed: map[string][]string{
			"Gateway edge/edge": programmed("True", "Programmed", "fully programmed in 1 context"),
			"Gateway infra/gw":  programmed("True", "PartiallyProgrammed", "superseded by infra/o in 1 of 1 context (fields /a)"),
		},
	}, {
		name: "overridden",
		policies: []string{
			pol(k, "web", "p", "01", fmt.Sprintf(toRoute, "other"), "  defaults: {a: p}"),
			pol(k, "infra", "o", "02", fmt.Sprintf(toGW, "gw"), "  overrides: {a: o}\n  strategy: PatchOverrides"),
		},
		enforced: map[string][]string{
			"Gateway infra/gw": overridden("overridden by infra/o in its only context"),
		},
		programmed: map[string][]string{
			"Gateway infra/gw": programmed("False", "Overridden", "overridden by infra/o in its only context"),
		},
	}, {
		// Nothing reached yet is no pending state: nothing is
		// superseded, so the policy is Programmed, not Reconciling.
		name:     "no effective target reached yet",
		policies: []string{pol(k, "infra", "p", "01", fmt.Sprintf(toGW, "idle"), "  defaults: {a: p}")},
		enforced: map[string][]string{
			"Gateway infra/idle": enforced("no HTTPRoute is reached through Gateway infra/idle yet; nothing is superseded"),
		},
		programmed: map[string][]string{
			"Gateway infra/idle": programmed("True", "Programmed", "no HTTPRoute is reached through Gateway infra/idle yet; nothing is superseded"),
		},
	}, {
		name:     "refused: Accepted alone, in both",
		policies: []string{pol(k, "web", "p", "01", `{group: gateway.networking.k8s.io, kind: HTTPRoute, name: nope}`, "  defaults: {a: p}")},
		enforced: map[string][]string{
			"HTTPRoute web/nope": {"Accepted=False TargetNotFound 3: spec.targetRef: HTTPRoute web/nope not found"},
		},
		programmed: map[string][]string{
			"HTTPRoute web/nope": {"Accepted=False TargetNotFound 3: spec.targetRef: HTTPRoute web/nope not found"},
		},
	}}
	vocabularies := []struct {
		name, status string
		want         func(scene) map[string][]string
	}{
		{"default", "", func(w scene) map[string][]string { return w.enforced }},
		{"Enforced", "  status: {vocabulary: Enforced}\n", func(w scene) map[string][]string { return w.enforced }},
		{"Programmed", "  status: {vocabulary: Programmed}\n", func(w scene) map[string][]string { return w.programmed }},
	}
	for _, v := range vocabularies {
		for _, w := range worlds {
			t.Run(v.name+"/"+w.name, func(t *testing.T) {
				_, o := run(t, append([]string{world, kindDecl(k, "HTTPRoute", patch+v.status)}, w.policies...)...)
				got := ancestors(t, o, "p")
				if want := v.want(w); !reflect.DeepEqual(got, want) {
					t.Errorf("ancestors of p\n got: %v\nwant: %v", got, want)
				}
				// Reading the conditions back gives the standing whatever
				// the vocabulary.
				for _, ps := range o.Policies {
					for _, a := range ps.Ancestors {
						st, ok := outcome.StandingOf(a.Conditions)
						accepted := a.Conditions[0].Status == "True"
						if ok != accepted {
							t.Errorf("StandingOf(%s of %s) = %q, %v; Accepted=%v", a.Ref, ps.Policy.ID(), st, ok, accepted)
						}
					}
				}
			})
		}
	}
}

// TestTerm pins the words each vocabulary gives a standing.
func TestTerm(t *testing.T) {
	for _, c := range []struct {
		v    policykind.Vocabulary
		s    effective.Standing
		want string
	}{
		{policykind.VocabularyEnforced, effective.Enforced, "Enforced"},
		{policykind.VocabularyEnforced, effective.PartiallyEnforced, "PartiallyEnforced"},
		{policykind.VocabularyEnforced, effective.Overridden, "Overridden"},
		{policykind.VocabularyEnforced, effective.Conflicted, "Conflicted"},
		{policykind.VocabularyProgrammed, effective.Enforced, "Programmed"},
		{policykind.VocabularyProgrammed, effective.PartiallyEnforced, "PartiallyProgrammed"},
		{policykind.VocabularyProgrammed, effective.Overridden, "Overridden"},
		{policykind.VocabularyProgrammed, effective.Conflicted, "Conflicted"},
	} {
		if got := outcome.Term(c.v, c.s); got != c.want {
			t.Errorf("Term(%s, %s) = %s, want %s", c.v, c.s, got, c.want)
		}
	}
}

// TestTermsReadBack: every word reads back to its standing, and names
// its vocabulary unless both vocabularies use it.
func TestTermsReadBack(t *testing.T) {
	for _, c := range []struct {
		term     string
		standing effective.Standing
		vocab    policykind.Vocabulary // "" when shared
	}{
		{"Enforced", effective.Enforced, policykind.VocabularyEnforced},
		{"PartiallyEnforced", effective.PartiallyEnforced, policykind.VocabularyEnforced},
		{"Programmed", effective.Enforced, policykind.VocabularyProgrammed},
		{"PartiallyProgrammed", effective.PartiallyEnforced, policykind.VocabularyProgrammed},
		{"Overridden", effective.Overridden, ""},
		{"Conflicted", effective.Conflicted, ""},
	} {
		if st, ok := outcome.StandingOfTerm(c.term); !ok || st != c.standing {
			t.Errorf("StandingOfTerm(%s) = %s, %v; want %s", c.term, st, ok, c.standing)
		}
		if v, ok := outcome.VocabularyOfTerm(c.term); v != c.vocab || ok != (c.vocab != "") {
			t.Errorf("VocabularyOfTerm(%s) = %s, %v; want %q", c.term, v, ok, c.vocab)
		}
	}
	if _, ok := outcome.StandingOfTerm("Reconciling"); ok {
		t.Errorf("StandingOfTerm(Reconciling): no standing is Reconciling")
	}
}
