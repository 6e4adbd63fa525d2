package query

import (
	"slices"
	"strings"
)

// Suggest returns the candidates a mistyped name was probably meant to
// be, closest first, for "did you mean" hints: those within a small edit
// distance of typed (a third of its length, at least 1, at most 3:
// kubectl and cobra hint at distance 2), compared case-insensitively, or
// that start with it. At most three, sorted by distance then name; none
// when typed is itself a candidate.
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
		d := distance(t, lc)
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

// DidYouMean is Suggest as the end of a message: "; did you mean a or
// b?", or "" when nothing is close.
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

// distance is the Damerau-Levenshtein (optimal string alignment) edit
// distance between a and b in bytes: insertions, deletions,
// substitutions and transpositions of adjacent letters ("htpp") cost one.
func distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
