package emit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	goyaml "go.yaml.in/yaml/v2"

	"github.com/strata-dev/strata/internal/enginetest"
	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/query"
)

// libraryYAML is the library YAMLEncoder stands for: v's JSON read back
// by encoding/json with go-yaml's number types (sigs.k8s.io/yaml's
// JSONToYAML reads the JSON with go-yaml itself, which refuses keys over
// 1024 characters), written by go-yaml v2.
func libraryYAML(v any) ([]byte, error) {
	js, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var g any
	if err := dec.Decode(&g); err != nil {
		return nil, err
	}
	return goyaml.Marshal(yamlNumbers(g))
}

// libraryJSON is the library JSONEncoder stands for: v's JSON read back
// into an any and written by json.MarshalIndent.
func libraryJSON(v any, prefix string) ([]byte, error) {
	js, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var g any
	if err := json.Unmarshal(js, &g); err != nil {
		return nil, err
	}
	return json.MarshalIndent(g, prefix, "  ")
}

// same checks that both encoders, reused from value to value as a
// printer's worker reuses them, write their library's bytes for v (or
// fail where it fails).
func same(t *testing.T, y *YAMLEncoder, j *JSONEncoder, name string, v any) {
	t.Helper()
	want, wantErr := libraryYAML(v)
	got, gotErr := y.Append(nil, v)
	if (wantErr != nil) != (gotErr != nil) {
		t.Fatalf("%s: YAML error %v, want %v", name, gotErr, wantErr)
	}
	if wantErr == nil && !bytes.Equal(got, want) {
		t.Fatalf("%s: YAML differs from go-yaml:\n--- go-yaml\n%s\n--- emit\n%s", name, want, got)
	}
	want, wantErr = libraryJSON(v, "    ")
	got, gotErr = j.Append(nil, v)
	if (wantErr != nil) != (gotErr != nil) {
		t.Fatalf("%s: JSON error %v, want %v", name, gotErr, wantErr)
	}
	if wantErr == nil && !bytes.Equal(got, want) {
		t.Fatalf("%s: JSON differs from MarshalIndent:\n--- MarshalIndent\n%s\n--- emit\n%s", name, want, got)
	}
}

// TestIsLibrary compares both encoders with their libraries on random
// values made of the pieces that change go-yaml's choices, at every
// depth, as generic values and inside typed ones (which go through their
// JSON); on EffectivePolicies with every field filled, resultant
// policies with repeated names and numbers in every notation; and on
// keys that become one another once made valid UTF-8.
func TestIsLibrary(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	y, j := NewYAMLEncoder(), NewJSONEncoder("    ")
	for i := range 3000 {
		v := randomValue(r, 0)
		same(t, y, j, fmt.Sprintf("value %d", i), v)
		same(t, y, j, fmt.Sprintf("typed %d", i), struct {
			V any `json:"v"`
			B int `json:"b,omitempty"`
		}{v, r.IntN(2)})
		same(t, y, j, fmt.Sprintf("list %d", i), []any{v, map[string]any{"a": v, randomString(r, 2): randomValue(r, 1)}})
	}
	raws := []string{
		`{"b":1,"a":2,"b":3}`, `{"x":{"k":"v","k":"w"},"y":[1.0,1e3,-0,0.000001,1e-7,12345678901234567,1E+2,-1.5e-10]}`,
		`{"\u00e9":"<&>","\u2028":"\ud800"}`, `[]`, `{}`, `null`, `"s"`, `  { "a" : [ 1 , 2 ] }  `,
	}
	for i, ep := range enginetest.FilledEffectivePolicies(61, 500, raws...) {
		same(t, y, j, fmt.Sprintf("effective policy %d", i), ep)
	}
	// Impacts, wide ones rendered on every core.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for i := range 1000 {
		im := randomImpact(r)
		same(t, y, j, fmt.Sprintf("impact %d", i), im)
		same(t, y, j, fmt.Sprintf("impact value %d", i), *im)
	}
	for _, n := range []int{itemsOnCoresFrom - 1, itemsOnCoresFrom, 3*itemsOnCoresFrom + 5, 1000} {
		same(t, y, j, fmt.Sprintf("wide impact %d", n), wideImpact(r, n))
		same(t, y, j, fmt.Sprintf("wide impacts %d", n), []any{wideImpact(r, n), map[string]any{"x": wideImpact(r, n)}})
	}
	same(t, y, j, "nil impact", (*query.Impact)(nil))
	same(t, y, j, "invalid keys", map[string]any{"a\xff": 1, "a\xfe": 2, "b": map[string]any{"\xff": "x"}})
	same(t, y, j, "integers", map[string]any{"a": int64(1) << 53, "b": int64(1)<<53 + 1, "c": -(int64(1) << 62), "d": int32(-5), "e": json.Number("9007199254740993")})
	same(t, y, j, "long key", map[string]any{strings.Repeat("/k", 600): 1})
	same(t, y, j, "not JSON", map[string]any{"f": math.Inf(1)})
}

// FuzzIsLibrary: a string as a value, as a key, in a list, at three
// depths (so at different columns), inside a typed value, encodes as the
// libraries encode it.
//
//	go test -fuzz FuzzIsLibrary ./pkg/sink/printer/internal/emit/
func FuzzIsLibrary(f *testing.F) {
	for _, p := range pieces {
		f.Add(p)
		f.Add("x" + p + "y")
		f.Add(p + strings.Repeat(" word", 20) + p)
	}
	y, j := NewYAMLEncoder(), NewJSONEncoder("    ")
	f.Fuzz(func(t *testing.T, s string) {
		same(t, y, j, fmt.Sprintf("%q", s), []any{
			s,
			map[string]any{"k": s, s: "v"},
			[]any{s, []any{s}},
			map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": s, s: []any{}}}}},
			struct {
				S string         `json:"s"`
				M map[string]any `json:"m"`
			}{s, map[string]any{s: s}},
		})
	})
}

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

// randomImpact is an Impact with every member set or left out at random,
// strings of every kind the emitter quotes, and before and after values
// of any shape (randomValue).
func randomImpact(r *rand.Rand) *query.Impact {
	str := func() string {
		if r.IntN(3) == 0 {
			return ""
		}
		return randomString(r, 4)
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
					f.Before = randomValue(r, 2)
				}
				if r.IntN(4) != 0 {
					f.After = randomValue(r, 2)
				}
				c.Fields = append(c.Fields, f)
			}
			t.Contexts = append(t.Contexts, c)
		}
		im.Targets = append(im.Targets, t)
	}
	return im
}

// wideImpact is a random Impact with n targets or more, enough for its
// targets to be rendered on every core (itemsOnCores), some of which end
// on a line break (the target's last field, its section name, in a block
// scalar that keeps its breaks), the last one always.
func wideImpact(r *rand.Rand, n int) *query.Impact {
	im := randomImpact(r)
	im.Targets = []query.TargetChange{}
	for len(im.Targets) < n {
		im.Targets = append(im.Targets, randomImpact(r).Targets...)
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
