package query

import (
	"slices"
	"strings"

	"github.com/strata-dev/strata/pkg/engine/spelling"
)

// Suggest returns the candidates a mistyped name was probably meant to
// be, closest first, for "did you mean" hints: those within a small edit
// distance of typed (a third of its length, at least 1, at most 3:
// kubectl and cobra hint at distance 2), compared case-insensitively, or
// that start with it.
func Suggest(typed string, candidates []string) []string {
	t := strings.ToLower(typed)
	limit := min(max(len(t)/3, 1), 3)
	type scored struct {
		name string
		d    int
	}
	var found []scored
	seen := map[string]bool{}
	for _, c := range candidates {
		lc := strings.ToLower(c)
		if lc == t {
			return nil
		}
		if seen[c] {
			continue
		}
		seen[c] = true
		d := spelling.Distance(t, lc)
		if d <= limit || (len(t) >= 2 && strings.HasPrefix(lc, t)) {
			found = append(found, scored{c, d})
		}
	}
	slices.SortFunc(found, func(a, b scored) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.name, b.name)
	})
	out := make([]string, 0, 3)
	for _, f := range found[:min(len(found), 3)] {
		out = append(out, f.name)
	}
	return out
}

// DidYouMean is Suggest as the end of a message, or "" when nothing is close.
func DidYouMean(typed string, candidates []string) string {
	return didYouMean(Suggest(typed, candidates))
}

// didYouMean is the hint naming suggestions s, "" for none.
func didYouMean(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return "; did you mean " + s[0] + "?"
	}
	return "; did you mean " + strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1] + "?"
}
