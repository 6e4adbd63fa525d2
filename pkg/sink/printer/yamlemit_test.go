package printer

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// pieces are the characters and words that change how go-yaml writes a
// string: indicators, quotes, breaks of every kind, spaces (single,
// double, leading, trailing), characters that are not printable or not
// ASCII, and words that read back as something other than a string.
var pieces = []string{
	"a", "b", "word", "Z", " ", " ", " ", "  ", "\n", "\n\n", "\r", "\t", ":", ": ", "#", " #", "-", "- ", "?", "? ",
	"'", `"`, `\`, ",", "[", "]", "{", "}", "&", "*", "!", "|", ">", "%", "@", "`", "0", "7", "12", ".", "_", "e",
	"é", "日本", "\u0085", "\u00a0", "\u2028", "\u2029", "\ufeff", "\uffff", "😀", "\x00", "\x07", "\x1b", "\x7f", "\xff",
	"true", "no", "null", "~", "1e3", "0x1F", "0b101", "-0b11", "2006-01-02", "2001-12-14t21:59:43.10-05:00", "1:20",
	"+.inf", ".5", "<<", "---", "...",
}

// randomString joins up to n pieces, sometimes words of a sentence long
// enough to fold.
func randomString(r *rand.Rand, n int) string {
	var b strings.Builder
	if r.IntN(4) == 0 {
		for range r.IntN(40) {
			b.WriteString(strings.Repeat("x", r.IntN(12)))
			b.WriteString(pieces[r.IntN(8)+4]) // mostly spaces
		}
		return b.String()
	}
	for range r.IntN(n + 1) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func randomValue(r *rand.Rand, depth int) any {
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
		return randomString(r, 6)
	case 6, 7:
		m := map[string]any{}
		for range r.IntN(5) {
			key := randomString(r, 3)
			if r.IntN(20) == 0 {
				key = strings.Repeat("k", 120+r.IntN(20)) // around the 128 of simple keys
			}
			m[key] = randomValue(r, depth+1)
		}
		return m
	default:
		var l []any
		for range r.IntN(4) {
			l = append(l, randomValue(r, depth+1))
		}
		if l == nil {
			l = []any{}
		}
		return l
	}
}

// The emitter writes what go-yaml v2 writes (through goYAML, the path
// Print took before it), for random values made of the pieces that change
// go-yaml's choices, at every depth.
func TestEmitterIsGoYAML(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := range 3000 {
		var items []any
		for range 1 + r.IntN(3) {
			v := randomValue(r, 0)
			// Typed values go through their JSON (jsonTree), generic ones not.
			items = append(items, v, struct {
				V any `json:"v"`
			}{v})
		}
		assertSameYAML(t, fmt.Sprintf("case %d", i), items)
	}
}

// FuzzEmitter: a string as a value, as a key, in a list, at three depths
// (so at different columns), prints as go-yaml prints it.
//
//	go test -fuzz FuzzEmitter ./pkg/sink/printer/
func FuzzEmitter(f *testing.F) {
	for _, p := range pieces {
		f.Add(p)
		f.Add("x" + p + "y")
		f.Add(p + strings.Repeat(" word", 20) + p)
	}
	f.Fuzz(func(t *testing.T, s string) {
		items := []any{
			s,
			map[string]any{"k": s, s: "v"},
			[]any{s, []any{s}},
			map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": s, s: []any{}}}}},
			struct {
				S string         `json:"s"`
				M map[string]any `json:"m"`
			}{s, map[string]any{s: s}},
		}
		assertSameYAML(t, fmt.Sprintf("%q", s), items)
	})
}

func assertSameYAML(t *testing.T, name string, items []any) {
	t.Helper()
	l := List(items)
	var want, got bytes.Buffer
	if err := goYAML(&want, l); err != nil {
		t.Fatalf("%s: go-yaml: %v", name, err)
	}
	if err := Print(&got, l, YAML); err != nil {
		t.Fatalf("%s: emitter: %v", name, err)
	}
	if want.String() != got.String() {
		t.Fatalf("%s: emitter differs from go-yaml:\n--- go-yaml\n%s\n--- emitter\n%s", name, want.String(), got.String())
	}
}

// BenchmarkPrintList prints a List of 2,000 status-like items with the
// emitter (Print) and with go-yaml (goYAML, the path before it); bytes
// per op are the heap each needs for the same output.
//
//	go test -run '^$' -bench BenchmarkPrintList -benchmem ./pkg/sink/printer/
func BenchmarkPrintList(b *testing.B) {
	var items []any
	for i := range 2000 {
		items = append(items, map[string]any{
			"apiVersion": "strata.dev/v1alpha1", "kind": "ColorPolicy",
			"metadata": map[string]any{"name": fmt.Sprintf("color-%06d", i), "namespace": "ns-0000", "generation": int64(1)},
			"status": map[string]any{"ancestors": []any{map[string]any{
				"ancestorRef":    map[string]any{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "gw-00000"},
				"controllerName": "strata.dev/policy-controller",
				"conditions": []any{map[string]any{
					"type": "Accepted", "status": "True", "reason": "Accepted", "lastTransitionTime": "2026-01-01T00:00:00Z",
					"message": "Policy has been accepted and is in force in 3 of 4 contexts; superseded by ns-0000/color-000001 in the others",
				}},
			}}},
		})
	}
	l := List(items)
	for _, c := range []struct {
		name  string
		print func(*bytes.Buffer) error
	}{
		{"emitter", func(w *bytes.Buffer) error { return Print(w, l, YAML) }},
		{"go-yaml", func(w *bytes.Buffer) error { return goYAML(w, l) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			var out bytes.Buffer
			for b.Loop() {
				out.Reset()
				if err := c.print(&out); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(out.Len()))
		})
	}
}
