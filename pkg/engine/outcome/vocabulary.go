package outcome

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/policykind"
)

// word is how one standing of a policy at an ancestor is written: the
// condition that is True (or, for Programmed's Overridden, False) and its
// reason.
type word struct {
	typ    string
	status bool
	reason string
}

func (w word) conditionStatus() metav1.ConditionStatus {
	if w.status {
		return metav1.ConditionTrue
	}
	return metav1.ConditionFalse
}

// vocabulary is one way of writing a policy's standing next to Accepted
// (PolicyKind spec.status.vocabulary; docs/status.md "Vocabularies").
type vocabulary struct {
	// types are the conditions written, in order; those that do not
	// carry the standing are False with reason NotApplicable.
	types []string
	// words says which condition, status and reason carry each standing.
	words map[effective.Standing]word
	// verb completes "fully ... in N contexts".
	verb string
}

// vocabularies is the one table of the vocabularies: everything that
// writes or reads a standing as conditions derives from it.
//
//	standing           Enforced (default)         Programmed
//	Enforced           Enforced=True Enforced     Programmed=True Programmed
//	PartiallyEnforced  PartiallyEnforced=True     Programmed=True PartiallyProgrammed
//	Overridden         Overridden=True            Programmed=False Overridden
//
// GEP-713 "Metaresource status" names Enforced, PartiallyEnforced and
// Overridden. Reconciling has no standing: the engine has no data plane
// between it and the snapshot, so it is never written (docs/status.md).
var vocabularies = map[policykind.Vocabulary]vocabulary{
	policykind.VocabularyEnforced: {
		types: []string{Enforced, PartiallyEnforced, Overridden},
		words: map[effective.Standing]word{
			effective.Enforced:          {Enforced, true, ReasonEnforced},
			effective.PartiallyEnforced: {PartiallyEnforced, true, ReasonPartially},
			effective.Overridden:        {Overridden, true, ReasonOverridden},
		},
		verb: "enforced",
	},
	policykind.VocabularyProgrammed: {
		types: []string{Programmed},
		words: map[effective.Standing]word{
			effective.Enforced:          {Programmed, true, ReasonProgrammed},
			effective.PartiallyEnforced: {Programmed, true, ReasonPartiallyProgrammed},
			effective.Overridden:        {Programmed, false, ReasonOverridden},
		},
		verb: "programmed",
	},
}

// vocabularyOf is the vocabulary of a kind (Enforced for a nil kind).
func vocabularyOf(k *policykind.Kind) vocabulary {
	return vocabularies[k.Vocabulary()]
}

// Term is what the vocabulary v calls a standing: the reason of the
// condition that carries it; Conflicted in both.
func Term(v policykind.Vocabulary, s effective.Standing) string {
	if w, ok := vocabularies[v].words[s]; ok {
		return w.reason
	}
	return string(s)
}

// StandingOf reads back the standing an ancestor's conditions carry, in
// either vocabulary; false when they carry none.
func StandingOf(conds []metav1.Condition) (effective.Standing, bool) {
	for _, c := range conds {
		for _, v := range vocabularies {
			for st, w := range v.words {
				if c.Type == w.typ && c.Reason == w.reason && c.Status == w.conditionStatus() {
					return st, true
				}
			}
		}
	}
	return "", false
}

// StandingOfTerm reads back a standing from its word (Term) in either
// vocabulary; false for a word of neither.
func StandingOfTerm(term string) (effective.Standing, bool) {
	if term == string(effective.Conflicted) {
		return effective.Conflicted, true
	}
	for _, v := range vocabularies {
		for st, w := range v.words {
			if w.reason == term {
				return st, true
			}
		}
	}
	return "", false
}

// VocabularyOfTerm names the vocabulary a word belongs to alone; false
// for the words both share (Overridden, Conflicted) and for others.
func VocabularyOfTerm(term string) (policykind.Vocabulary, bool) {
	var found []policykind.Vocabulary
	for name, v := range vocabularies {
		for _, w := range v.words {
			if w.reason == term {
				found = append(found, name)
			}
		}
	}
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}
