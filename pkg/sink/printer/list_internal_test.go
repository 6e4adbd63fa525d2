package printer

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// A List printed item by item is byte for byte the List printed whole, in
// both formats: long strings wrap where they wrap in the whole document,
// empty lists and maps, numbers of every kind, keys that need quoting.
func TestPrintListIsPrintWhole(t *testing.T) {
	type typed struct {
		Name    string         `json:"name"`
		Message string         `json:"message,omitempty"`
		Count   int            `json:"count"`
		Spec    map[string]any `json:"spec,omitempty"`
	}
	long := strings.Repeat("superseded by team-a/policy in 3 of 4 contexts (fields /a/b, /c) ", 4)
	cases := map[string][]any{
		"empty":     {},
		"one typed": {typed{Name: "a", Message: long, Count: 3}},
		"mixed": {
			typed{Name: "a", Spec: map[string]any{"x": []any{}, "y": map[string]any{}, "z": nil}},
			map[string]any{"kind": "Thing", "n": 1.5, "big": uint64(1 << 63), "neg": -7, "s": "yes", "k: v": "quoted key", "e": ""},
			"a bare string item: with a colon",
			[]any{1, "two", map[string]any{"three": long}},
		},
	}
	r := rand.New(rand.NewPCG(1, 2))
	var random []any
	for i := range 50 {
		m := map[string]any{"i": i}
		for j := range r.IntN(6) {
			m[fmt.Sprintf("k%d", j)] = strings.Repeat("word ", r.IntN(40))
		}
		random = append(random, map[string]any{"nested": m, "list": []any{m, long[:r.IntN(len(long))]}})
	}
	cases["random"] = random
	for name, items := range cases {
		for _, format := range []string{YAML, JSON} {
			t.Run(name+"/"+format, func(t *testing.T) {
				l := List(items)
				var whole, list bytes.Buffer
				if err := printWhole(&whole, l, format); err != nil {
					t.Fatal(err)
				}
				if err := Print(&list, l, format); err != nil {
					t.Fatal(err)
				}
				if whole.String() != list.String() {
					t.Errorf("item by item differs from whole:\n--- whole\n%s\n--- item by item\n%s", whole.String(), list.String())
				}
			})
		}
	}
}
