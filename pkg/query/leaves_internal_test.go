package query

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// leafPointers keeps the pointers with none below them, as comparing
// each with every other does: for random sets of pointers made of
// segments that are prefixes of one another (a, ab), list items
// ([name=x]) and keys that merely hold a "[" (a[0], siblings, not
// items), and for a policy of 20,000 fields.
func TestLeafPointers(t *testing.T) {
	segments := []string{"/a", "/ab", "/a[0]", "[name=x]", "[name=x]x", "/b", "/", "/a~1b"}
	r := rand.New(rand.NewPCG(43, 47))
	for i := range 3000 {
		set := map[string]bool{}
		for range r.IntN(12) {
			var b strings.Builder
			for range 1 + r.IntN(4) {
				b.WriteString(segments[r.IntN(len(segments))])
			}
			set[b.String()] = true
		}
		ptrs := slices.Sorted(func(yield func(string) bool) {
			for p := range set {
				if !yield(p) {
					return
				}
			}
		})
		want := slices.DeleteFunc(slices.Clone(ptrs), func(p string) bool {
			return slices.ContainsFunc(ptrs, func(o string) bool { return under(o, p) })
		})
		if got := leafPointers(ptrs); !slices.Equal(got, want) {
			t.Fatalf("case %d, %q: got %q, want %q", i, ptrs, got, want)
		}
	}
	var wide []string
	for i := range 20000 {
		wide = append(wide, fmt.Sprintf("/f/%05d", i))
	}
	wide = append([]string{"/f"}, wide...)
	if got := leafPointers(wide); len(got) != 20000 || got[0] != "/f/00000" {
		t.Fatalf("20,000 fields: %d leaves, first %q", len(got), got[0])
	}
}
