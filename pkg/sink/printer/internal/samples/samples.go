// Package samples makes random values and query results of every shape
// the printers write, with the strings that change go-yaml's choices,
// for the differential tests of the printer and its encoders.
package samples

import (
	"math"
	"math/rand/v2"
	"strings"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/query"
)

// Pieces are the characters and words that change how go-yaml writes a
// string: indicators, quotes, breaks of every kind, spaces (single,
// double, leading, trailing), characters that are not printable or not
// ASCII, and words that read back as something other than a string.
var Pieces = []string{
	"a", "b", "word", "Z", " ", " ", " ", "  ", "\n", "\n\n", "\r", "\t", ":", ": ", "#", " #", "-", "- ", "?", "? ",
	"'", `"`, `\`, ",", "[", "]", "{", "}", "&", "*", "!", "|", ">", "%", "@", "`", "0", "7", "12", ".", "_", "e",
	"é", "日本", "\u0085", "\u00a0", "\u2028", "\u2029", "\ufeff", "\uffff", "😀", "\x00", "\x07", "\x1b", "\x7f", "\xff",
	"true", "no", "null", "~", "1e3", "0x1F", "0b101", "-0b11", "2006-01-02", "2001-12-14t21:59:43.10-05:00", "1:20",
	"+.inf", ".5", "<<", "---", "...",
}

// String joins up to n Pieces, sometimes words of a sentence long
// enough to fold.
func String(r *rand.Rand, n int) string {
	var b strings.Builder
	if r.IntN(4) == 0 {
		for range r.IntN(40) {
			b.WriteString(strings.Repeat("x", r.IntN(12)))
			b.WriteString(Pieces[r.IntN(8)+4]) // mostly spaces
		}
		return b.String()
	}
	for range r.IntN(n + 1) {
		b.WriteString(Pieces[r.IntN(len(Pieces))])
	}
	return b.String()
}

// Value is a JSON-like value of any shape, made of Pieces and numbers
// at the edges of their types, nested up to about five levels.
func Value(r *rand.Rand, depth int) any {
	k := r.IntN(10)
	if depth > 4 {
		k = r.IntN(6)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return []any{-7, 0, int64(1) << 62, uint64(1<<64 - 1), 1.5, 1e21, 1e18, 1e-7, math.Copysign(0, -1), 123456789.125}[r.IntN(10)]
	case 3, 4, 5:
		return String(r, 6)
	case 6, 7:
		m := map[string]any{}
		for range r.IntN(5) {
			key := String(r, 3)
			if r.IntN(20) == 0 {
				key = strings.Repeat("k", 120+r.IntN(20)) // around the 128 of simple keys
			}
			m[key] = Value(r, depth+1)
		}
		return m
	default:
		var l []any
		for range r.IntN(4) {
			l = append(l, Value(r, depth+1))
		}
		if l == nil {
			l = []any{}
		}
		return l
	}
}

// Impact is an Impact with every member set or left out at random,
// strings of every kind the emitter quotes, and before and after values
// of any shape (Value).
func Impact(r *rand.Rand) *query.Impact {
	str := func() string {
		if r.IntN(3) == 0 {
			return ""
		}
		return String(r, 4)
	}
	pref := func() query.PolicyRef {
		return query.PolicyRef{Group: str(), Kind: str(), Namespace: str(), Name: str()}
	}
	ref := func() strata.Ref {
		return strata.Ref{Group: str(), Kind: str(), Namespace: str(), Name: str(), SectionName: str(), Role: str()}
	}
	im := &query.Impact{
		TypeMeta: query.TypeMeta{APIVersion: str(), Kind: str()},
		Policy:   pref(),
		Change:   str(),
		Changed:  query.Count{Targets: r.IntN(1 << 20), Contexts: []int{0, 7, 1 << 53, 1<<53 + 1, 1 << 62, -1}[r.IntN(6)]},
	}
	if r.IntN(3) == 0 {
		im.Also = []query.PolicyRef{}
		for range r.IntN(3) {
			im.Also = append(im.Also, pref())
		}
	}
	if r.IntN(5) != 0 {
		im.Targets = []query.TargetChange{}
	}
	for range r.IntN(4) {
		t := query.TargetChange{PolicyKind: query.GroupKind{Group: str(), Kind: str()}, Target: ref()}
		if r.IntN(5) != 0 {
			t.Contexts = []query.ContextChange{}
		}
		for range r.IntN(3) {
			c := query.ContextChange{}
			if r.IntN(5) != 0 {
				c.Path = []strata.Ref{}
				for range r.IntN(3) {
					c.Path = append(c.Path, ref())
				}
			}
			if r.IntN(5) != 0 {
				c.Fields = []query.FieldChange{}
			}
			for range r.IntN(4) {
				f := query.FieldChange{Field: str(), BeforeSetBy: str(), AfterSetBy: str()}
				if r.IntN(4) != 0 {
					f.Before = Value(r, 2)
				}
				if r.IntN(4) != 0 {
					f.After = Value(r, 2)
				}
				c.Fields = append(c.Fields, f)
			}
			t.Contexts = append(t.Contexts, c)
		}
		im.Targets = append(im.Targets, t)
	}
	return im
}

// WideImpact is a random Impact with n targets or more, some of which end
// on a line break (the target's last field, its section name, in a block
// scalar that keeps its breaks), the last one always.
func WideImpact(r *rand.Rand, n int) *query.Impact {
	im := Impact(r)
	im.Targets = []query.TargetChange{}
	for len(im.Targets) < n {
		im.Targets = append(im.Targets, Impact(r).Targets...)
	}
	for i := range im.Targets {
		switch r.IntN(8) {
		case 0:
			im.Targets[i].Target.SectionName = "kept\n\n"
		case 1:
			im.Targets[i].Target.SectionName = "kept\n\u2028"
		case 2:
			im.Targets[i].Target.SectionName = "\n\n\n"
		}
	}
	im.Targets[len(im.Targets)-1].Target.SectionName = "last\n\n"
	return im
}
