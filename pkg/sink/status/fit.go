package status

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/outcome"
)

// Fit chooses which of a policy's ancestors (sorted by ref) fit in room
// entries of status.ancestors: those with a problem first, so a policy in
// trouble never hides it, the kept ones in ref order, each Accepted
// message saying how many were left out (GEP-713 "Metaresource status"
// asks for every ancestor; the CRD bounds the list).
func Fit(ancestors []outcome.Ancestor, room int) []outcome.Ancestor {
	if len(ancestors) <= room {
		return ancestors
	}
	if room <= 0 {
		return nil
	}
	order := make([]int, 0, len(ancestors))
	for i, a := range ancestors {
		if Problem(a.Conditions) {
			order = append(order, i)
		}
	}
	problems := len(order)
	for i, a := range ancestors {
		if !Problem(a.Conditions) {
			order = append(order, i)
		}
	}
	kept := slices.Clone(order[:room])
	slices.Sort(kept)
	leftProblems := max(problems-room, 0)
	left := len(ancestors) - room
	note := fmt.Sprintf("; %d more %s not listed (room for %d in status.ancestors), %s",
		left, noun(left, "ancestor", "ancestors"), room, problemsText(leftProblems))
	out := make([]outcome.Ancestor, 0, room)
	for _, i := range kept {
		a := ancestors[i]
		conds := slices.Clone(a.Conditions)
		for j := range conds {
			if conds[j].Type == outcome.Accepted {
				conds[j].Message = outcome.Clip(conds[j].Message, outcome.MaxMessage-len(note)) + note
			}
		}
		out = append(out, outcome.Ancestor{Ref: a.Ref, Conditions: conds})
	}
	return out
}

// Problem reports whether an ancestor's conditions say something is
// wrong: not Accepted (Conflicted, Invalid, TargetNotFound), or Accepted
// but PartiallyEnforced or Overridden, in either vocabulary
// (PartiallyProgrammed, Programmed=False Overridden: outcome.StandingOf).
func Problem(conds []metav1.Condition) bool {
	if !meta.IsStatusConditionTrue(conds, outcome.Accepted) {
		return true
	}
	st, _ := outcome.StandingOf(conds)
	return st == effective.PartiallyEnforced || st == effective.Overridden
}

func problemsText(n int) string {
	switch n {
	case 0:
		return "none with a problem"
	case 1:
		return "1 with a problem"
	}
	return fmt.Sprintf("%d with problems", n)
}

func noun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
