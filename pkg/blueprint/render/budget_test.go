package render

import (
	"errors"
	"strings"
	"testing"
	"text/template"
	"time"
)

// budgetCase is a blueprint author's template that would run for minutes
// or take gigabytes without the render's budgets, and the error that ends
// it instead.
type budgetCase struct {
	name, template, err string
}

// budgetCases has one hostile template per budget (steps.go, cost.go,
// funcs.go): each ends with that budget's error.
var budgetCases = []budgetCase{
	// Work budget: growth.
	{"doubling string", `{{ $s := "x" }}{{ range until 40 }}{{ $s = cat $s $s }}{{ end }}`, "error calling cat: the result would exceed 8388608 bytes"},
	{"doubling string with printf", `{{ $s := "x" }}{{ range until 40 }}{{ $s = printf "%s%s" $s $s }}{{ end }}`, "error calling printf: the result would exceed 8388608 bytes"},
	{"doubling list printed", `{{ $l := list 1 }}{{ range until 40 }}{{ $l = list $l $l }}{{ end }}{{ $l }}`, "printing a value of more than 8388608 bytes"},
	{"doubling list encoded", `{{ $l := list 1 }}{{ range until 40 }}{{ $l = list $l $l }}{{ end }}{{ toJson $l }}`, "printing a value of more than 8388608 bytes"},
	{"doubling list in a function", `{{ $l := list 1 }}{{ range until 40 }}{{ $l = list $l $l }}{{ end }}{{ $n := len (toString $l) }}`, "error calling toString: the result would exceed 8388608 bytes"},
	{"doubling list by concat", `{{ $l := list 1 }}{{ range until 40 }}{{ $l = concat $l $l }}{{ end }}`, "error calling concat: the render exceeds its work budget"},
	{"doubling dict", `{{ $d := dict }}{{ range until 40 }}{{ $d = dict "a" $d "b" $d }}{{ end }}{{ $d | toYaml }}`, "printing a value of more than 8388608 bytes"},
	{"dict shared after it is built", `{{ $leaf := dict }}{{ $l := list $leaf }}{{ range until 16 }}{{ $l = concat $l $l }}{{ end }}{{ $_ := set $leaf "x" (repeat 1000000 "x") }}{{ $l }}`, "printing a value of more than 8388608 bytes"},
	{"deep nesting", `{{ $l := list }}{{ range until 20000 }}{{ $l = list $l }}{{ end }}{{ toJson $l }}`, "printing a value: the value nests more than 1000 deep"},
	{"deep nesting in a function", `{{ $l := list }}{{ range until 20000 }}{{ $l = list $l }}{{ end }}{{ $_ := deepCopy $l }}`, "error calling deepCopy: the value nests more than 1000 deep"},
	// Work budget: repeated costly work.
	{"hashing a big string in a loop", `{{ $s := repeat 8000000 "x" }}{{ range until 1000 }}{{ $_ := sha256sum $s }}{{ end }}`, "error calling sha256sum: the render exceeds its work budget of 67108864 units"},
	{"encoding a big string in a loop", `{{ $s := repeat 4000000 "x" }}{{ range until 1000 }}{{ $_ := b64enc $s }}{{ end }}`, "error calling b64enc: the render exceeds its work budget"},
	{"repeat in a loop", `{{ range until 65536 }}{{ $_ := repeat 8000000 "x" }}{{ end }}`, "error calling repeat: the render exceeds its work budget"},
	{"comparing big strings in a loop", `{{ $a := repeat 8000000 "x" }}{{ $b := repeat 8000000 "x" }}{{ range until 65536 }}{{ if eq $a $b }}{{ end }}{{ end }}`, "comparing or indexing with a string of 8000000 bytes: the render exceeds its work budget"},
	{"indexing with a big key in a loop", `{{ $k := repeat 8000000 "x" }}{{ $d := dict }}{{ range until 65536 }}{{ $_ := index $d $k }}{{ end }}`, "comparing or indexing with a string of 8000000 bytes: the render exceeds its work budget"},
	{"a wide loop body", `{{ range until 65536 }}` + strings.Repeat(`{{ if true }}{{ end }}`, 2000) + `{{ end }}`, "evaluating the template: the render exceeds its work budget"},
	{"ranging over a big dict in a loop", `{{ $d := dict }}{{ range $i := until 50000 }}{{ $_ := set $d (print $i) $i }}{{ end }}{{ range until 65536 }}{{ range $d }}{{ break }}{{ end }}{{ end }}`, "evaluating the template: the render exceeds its work budget"},
	{"sorting big keys in a loop", `{{ $d := dict }}{{ range $i := until 8 }}{{ $_ := set $d (printf "%s%d" (repeat 1000000 "k") $i) $i }}{{ end }}{{ range until 65536 }}{{ $_ := keys $d }}{{ end }}`, "error calling keys: the render exceeds its work budget"},
	{"uniq of a long list", `{{ $_ := uniq (until 65536) }}`, "error calling uniq: the render exceeds its work budget"},
	{"toYaml in a loop", `{{ $l := until 65536 }}{{ range until 65536 }}{{ $_ := toYaml $l }}{{ end }}`, "error calling toYaml: the render exceeds its work budget"},
	{"fromJson in a loop", `{{ $s := toJson (until 65536) }}{{ range until 65536 }}{{ $_ := fromJson $s }}{{ end }}`, "error calling fromJson: the render exceeds its work budget"},
	{"printing a big value in a loop", `{{ define "p" }}{{ . }}{{ end }}{{ $l := until 65536 }}{{ range until 65536 }}{{ $_ := include "p" $l }}{{ end }}`, "the render exceeds its work budget"},
	{"fromYaml alias bomb", `{{ $_ := fromYaml "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]" }}`, "excessive aliasing"},
	// Per-call limits: results over maxOutput.
	{"printf width", `{{ printf "%0999999999d" 1 }}`, "error calling printf: a width or precision over the limit of 1024 in the format"},
	{"printf width from an argument", `{{ printf "%*d" 999999 1 }}`, "error calling printf: a width or precision of 999999 (from *), over the limit of 1024"},
	{"printf precision", `{{ printf "%.999999f" 1.5 }}`, "a width or precision over the limit of 1024"},
	{"printf many widths", `{{ printf (repeat 100000 "%01000d") 1 }}`, "error calling printf: the result would exceed 8388608 bytes"},
	{"printf repeating an argument", `{{ printf (repeat 100 "%[1]s") (repeat 1000000 "x") }}`, "error calling printf: the result would exceed 8388608 bytes"},
	{"huge repeat", `{{ repeat 100000000 "ab" }}`, "error calling repeat: the result would exceed 8388608 bytes"},
	{"huge indent", `{{ indent 100000 (repeat 1000 "\n") }}`, "error calling indent: the result would exceed 8388608 bytes"},
	{"replace multiplying", `{{ replace "" (repeat 1000 "y") (repeat 100000 "x") }}`, "error calling replace: the result would exceed 8388608 bytes"},
	{"join with a big separator", `{{ join (repeat 1000000 "x") (until 1000) }}`, "error calling join: the result would exceed 8388608 bytes"},
	{"wrapWith a big separator", `{{ wrapWith 1 (repeat 1000 "y") (repeat 100000 "x") }}`, "error calling wrapWith: the result would exceed 8388608 bytes"},
	{"quoting a big value", `{{ $s := repeat 4000000 "\x00" }}{{ $q := quote $s }}`, "error calling quote: the result would exceed 8388608 bytes"},
	{"split into runes", `{{ $s := repeat 8000000 "x" }}{{ range until 100 }}{{ $_ := splitList "" $s }}{{ end }}`, "error calling splitList: the render exceeds its work budget"},
	// Regular expressions.
	{"regex on a huge input", `{{ $s := repeat 8000000 "a" }}{{ regexMatch "(a|aa)*b" $s }}`, "error calling regexMatch: the render exceeds its work budget"},
	{"regex in a loop", `{{ $s := repeat 100000 "a" }}{{ range until 65536 }}{{ $_ := regexFindAll "(a|aa)*b" $s -1 }}{{ end }}`, "error calling regexFindAll: the render exceeds its work budget"},
	{"huge regex pattern", `{{ regexMatch (repeat 5000 "a") "x" }}`, "error calling regexMatch: a pattern of 5000 bytes, over the limit of 4096"},
	{"huge regex program", `{{ regexMatch (repeat 100 "((a{10}){10}){10}") "x" }}`, "error calling regexMatch: the pattern compiles to about"},
	{"regex replacement multiplying", `{{ regexReplaceAll "" (repeat 100000 "x") (repeat 1000 "$0") }}`, "error calling regexReplaceAll: replacing in 100000 bytes with a 2000-byte replacement could write more than 8388608 bytes"},
	{"semver of a huge string", `{{ semver (repeat 100000 "1") }}`, "error calling semver: a version or constraint of 100000 bytes, over the limit of 1024"},
	// Removed functions.
	{"derivePassword loop", `{{ range until 1000 }}{{ derivePassword 1 "long" "pw" "user" "site" }}{{ end }}`, `function "derivePassword" not defined`},
	// Steps and depth (steps.go).
	{"deep include recursion", `{{ define "r" }}{{ include "r" . }}{{ end }}{{ include "r" . }}`, "templates call templates more than 1000 deep"},
	{"doubling include", `{{ define "r" }}{{ if lt . 40 }}{{ include "r" (add . 1) }}{{ include "r" (add . 1) }}{{ end }}{{ end }}{{ include "r" 0 }}`, "the render exceeds its work budget"},
	{"doubling include output", `{{ define "r" }}{{ if lt . 40 }}{{ include "r" (add . 1) }}{{ include "r" (add . 1) }}{{ else }}{{ repeat 1000 "x" }}{{ end }}{{ end }}{{ include "r" 0 }}`, "the render exceeds its work budget"},
	{"range over a huge until", `{{ range until 100000000 }}{{ end }}`, "error calling until: untilStep 0 100000000 1: more than 65536 items"},
	{"nested ranges", `{{ $l := until 65536 }}{{ range $l }}{{ range $l }}{{ end }}{{ end }}`, "the render took more than 2097152 steps"},
	// Output (funcs.go's limitWriter).
	{"output over maxOutput", `{{ range until 65536 }}{{ repeat 1000 "x" }}{{ end }}`, "rendered output exceeds 8388608 bytes"},
	// The largest output a template may render (65536 keys in 7.5 MB):
	// decoding it is charged per YAML node (holes.go, yamlNodeCost).
	{"output near maxOutput decoded", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\ndata:\n{{ range $i := until 65536 }}  k{{ $i }}: \"{{ repeat 100 \"x\" }}\"\n{{ end }}", "decoding the rendered YAML: the render exceeds its work budget"},
}

// renderBudgetCase renders c's template as a Gateway's resource template.
func renderBudgetCase(c budgetCase) error {
	in := Input{Blueprint: testBlueprint("", "cm", c.template), Gateway: testGateway(), Values: map[string]any{}}
	_, err := render(in, testKinds, &budget{})
	return err
}

// TestBudgets renders every hostile template: each fails with its
// budget's error, as an *Error naming the template, and quickly.
func TestBudgets(t *testing.T) {
	for _, c := range budgetCases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			err := renderBudgetCase(c)
			took := time.Since(start)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
			if e.Template != "gatewayTemplate.resourceTemplates[cm]" {
				t.Errorf("error names template %q: %v", e.Template, err)
			}
			if !strings.Contains(err.Error(), c.err) {
				t.Errorf("error %q does not contain %q", err, c.err)
			}
			// The budgets are a few hundred milliseconds (BenchmarkBudget);
			// this bound leaves room for -race and a busy machine.
			if took > 20*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
}

// TestWork checks what the functions cost and that normal use stays far
// inside the budget.
func TestWork(t *testing.T) {
	cases := []struct {
		tmpl    string
		maxWork int64 // the work it may spend
	}{
		{`{{ "a" | sha256sum | trunc 8 }}`, 1000},
		{`{{ printf "%s-%d" "a" 3 }}`, 1000},
		{`{{ range $i := until 100 }}{{ $i }}{{ end }}`, 100 * 300},
		{`{{ toJson (dict "a" (list 1 2 3)) }}`, 2000},
	}
	for _, c := range cases {
		b := &budget{}
		tm, err := newTemplate("t", c.tmpl, b)
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		if err := tm.Execute(&out, map[string]any{}); err != nil {
			t.Fatalf("%s: %v", c.tmpl, err)
		}
		if b.work <= 0 || b.work > c.maxWork {
			t.Errorf("%s spent %d, want 1 to %d", c.tmpl, b.work, c.maxWork)
		}
	}
}

// TestWorkLimit checks that a lowered budget is the one enforced, and
// that the error says which function ran out.
func TestWorkLimit(t *testing.T) {
	b := &budget{workMax: 10000}
	tm, err := newTemplate("t", `{{ range until 1000 }}{{ $_ := upper "abc" }}{{ end }}`, b)
	if err != nil {
		t.Fatal(err)
	}
	err = tm.Execute(&strings.Builder{}, nil)
	if err == nil || !strings.Contains(err.Error(), "work budget of 10000 units") {
		t.Errorf("error %v, want the work budget of 10000", err)
	}
}

// TestBudgetTransparent renders templates with the budget's charges
// planted and its wrappers, and with plain text/template (its own print,
// printf, ...): the output is the same.
func TestBudgetTransparent(t *testing.T) {
	data := map[string]any{
		"s": "text", "n": 3, "f": 1.5, "nil": nil, "l": []any{"b", "a", 2},
		"m": map[string]any{"b": 2, "a": map[string]any{"x": nil}}, "empty": map[string]any{},
	}
	cases := []string{
		`{{ .s }}|{{ .n }}|{{ .f }}|{{ .nil }}|{{ .l }}|{{ .m }}|{{ . | len }}`,
		`{{ printf "%5.2f|%-6s|%[1]v|%x|%q|%*d" .f .s 42 "é" 4 7 }}{{ printf "%d" }}{{ printf "%d" 1 2 }}`,
		`{{ print .s .n }}{{ println .l }}{{ html "<a>" }}{{ js "'" }}{{ urlquery "a b" .s }}`,
		`{{ if eq .s "text" }}y{{ end }}{{ if eq .nil nil }}nil{{ end }}{{ if ne .n 4 }}ne{{ end }}{{ if lt .n 4 }}lt{{ end }}{{ .s | eq "text" }}`,
		`{{ index .m "a" "x" }}|{{ index .l 1 }}|{{ .m.a.x }}|{{ with .nil }}x{{ else }}none{{ end }}`,
		`{{ range $k, $v := .m }}{{ $k }}={{ $v }};{{ end }}{{ range .empty }}x{{ else }}empty{{ end }}{{ range $i, $e := .l }}{{ $i }}{{ $e }}{{ end }}{{ range 3 }}.{{ end }}`,
		`{{ range .l }}{{ if eq . "a" }}{{ break }}{{ end }}{{ . }}{{ end }}`,
		`{{ include "d" .s | upper }}{{ template "d" .n }}`,
		`{{ toJson .m }}|{{ toYaml .l }}|{{ .m | toPrettyJson }}|{{ quote .s .n }}|{{ squote .nil }}`,
		`{{ $d := dict "k" .s }}{{ $_ := set $d "n" .n }}{{ toJson $d }}{{ $l := list 1 2 | append .l }}{{ $l }}`,
		`{{ join "," (list 1 "a" .nil) }}|{{ splitList "," "a,b" }}|{{ regexReplaceAll "([a-z])" .s "<$1>" }}|{{ sha256sum .s | trunc 8 }}`,
		`{{ repeat 3 .s }}|{{ indent 2 "a\nb" }}|{{ nindent 2 .s }}|{{ replace "t" "T" .s }}|{{ wrapWith 2 "/" "abcd" }}`,
		`{{ default "d" .nil }}|{{ empty .empty }}|{{ coalesce .nil .s }}|{{ ternary 1 2 true }}|{{ first .l }}|{{ keys .m }}`,
		`{{ .s | printf "%s!" }}|{{ (.s) }}|{{ (printf "%s" .s).x }}`,
	}
	for _, src := range cases {
		var plain *template.Template
		fm := funcMap()
		for _, builtin := range []string{"print", "printf", "println", "html", "js", "urlquery"} {
			delete(fm, builtin) // text/template's own
		}
		fm["include"] = func(name string, data any) (string, error) {
			var b strings.Builder
			err := plain.ExecuteTemplate(&b, name, data)
			return b.String(), err
		}
		plain, err := template.New("t").Option("missingkey=error").Funcs(fm).Parse(`{{ define "d" }}[{{ . }}]{{ end }}` + src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		var want strings.Builder
		wantErr := plain.Execute(&want, data)
		tm, err := newTemplate("t", `{{ define "d" }}[{{ . }}]{{ end }}`+src, &budget{})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		var got strings.Builder
		gotErr := tm.Execute(&got, data)
		if got.String() != want.String() || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("%s:\n got %q, %v\nwant %q, %v", src, got.String(), gotErr, want.String(), wantErr)
		}
	}
}
