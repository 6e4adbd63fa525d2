package render

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestRemovedFuncs(t *testing.T) {
	m := funcMap()
	for _, name := range removedFuncs {
		if _, ok := m[name]; ok {
			t.Errorf("%s is still in the function map", name)
		}
		if _, err := newTemplate("t", "{{ "+name+" }}", &budget{}); err == nil || !strings.Contains(err.Error(), "not defined") {
			t.Errorf("%s: parse error %v, want not defined", name, err)
		}
	}
	for _, name := range append(replacedFuncs, "toYaml", "fromYaml", "required", "date", "toJson", "b64enc", "sha256sum", "print", "printf", "html") {
		if _, ok := m[name]; !ok {
			t.Errorf("%s is missing from the function map", name)
		}
	}
}

// TestFuncs runs template expressions with the blueprint functions.
func TestFuncs(t *testing.T) {
	data := map[string]any{
		"ts":   "2026-03-04T05:06:07Z",
		"secs": int64(86400),
		"f":    float64(86400),
		"half": 1.5,
		"m":    map[string]any{"b": 2, "a": 1, "c": map[string]any{"d": "e"}},
		"big":  math.MaxInt,
		"min":  math.MinInt,
	}
	cases := []struct{ tmpl, want, err string }{
		{`{{ date "2006-01-02 15:04" .ts }}`, "2026-03-04 05:06", ""},
		{`{{ date "2006-01-02" .secs }}`, "1970-01-02", ""},
		{`{{ date "2006-01-02" .f }}`, "1970-01-02", ""},
		{`{{ date "2006-01-02" .half }}`, "", "want whole seconds"},
		{`{{ date "2006" "yesterday" }}`, "", "want an RFC 3339 time"},
		{`{{ date "2006" .m }}`, "", "want a time"},
		{`{{ htmlDate .ts }}`, "2026-03-04", ""},
		{`{{ toDate "2006-01-02" "2026-03-04" | unixEpoch }}`, "1772582400", ""},
		{`{{ mustToDate "2006-01-02" "x" }}`, "", "cannot parse"},
		{`{{ toDate "2006-01-02" "2026-03-04" | dateModify "24h" | date "2006-01-02" }}`, "2026-03-05", ""},
		{`{{ durationRound "2h30m" }}`, "2h", ""},
		{`{{ durationRound (toDate "2006" "2020") }}`, "", "measure it from now"},
		{`{{ keys .m | join "," }}`, "a,b,c", ""},
		{`{{ keys .m (dict "0" 1) | join "," }}`, "0,a,b,c", ""},
		{`{{ values .m | toJson }}`, `[1,2,{"d":"e"}]`, ""},
		{`{{ toYaml .m }}`, "a: 1\nb: 2\nc:\n  d: e", ""},
		{`{{ (fromYaml "a: [1, 2]").a | toJson }}`, "[1,2]", ""},
		{`{{ fromYaml "a: [" }}`, "", "yaml"},
		{`{{ fromYaml "7: a\n'7': b" }}`, "", `the integer 7 and the string "7" are both the JSON key "7"`},
		{`{{ index (fromYaml "1: one\n'2': two") "1" }}`, "one", ""},
		{`{{ required "need x" (index .m "x") }}`, "", "need x"},
		{`{{ required "need x" "" }}`, "", "need x"},
		{`{{ required "need a" .m.a }}`, "1", ""},
		{`{{ repeat 3 "ab" }}`, "ababab", ""},
		{`{{ repeat -1 "ab" }}`, "", "zero or more"},
		{`{{ repeat .big "ab" }}`, "", "would exceed"},
		{`{{ indent 2 "a\nb" }}`, "  a\n  b", ""},
		{`{{ nindent 2 "a" }}`, "\n  a", ""},
		{`{{ indent .big "a\nb" }}`, "", "would exceed"},
		{`{{ indent -3 "a" }}`, "", "zero or more"},
		{`{{ until 3 | toJson }}`, "[0,1,2]", ""},
		{`{{ until -2 | toJson }}`, "[0,-1]", ""},
		{`{{ until .big }}`, "", "more than"},
		{`{{ untilStep 0 10 3 | toJson }}`, "[0,3,6,9]", ""},
		{`{{ untilStep 10 0 -4 | toJson }}`, "[10,6,2]", ""},
		{`{{ untilStep 0 10 0 | toJson }}`, "[]", ""},
		{`{{ untilStep -5 .min .min | toJson }}`, "[-5]", ""},
		{`{{ untilStep 5 .big .big | toJson }}`, "[5]", ""},
		{`{{ seq 3 }}`, "1 2 3", ""},
		{`{{ seq 2 -1 }}`, "2 1 0 -1", ""},
		{`{{ seq 0 2 7 }}`, "0 2 4 6", ""},
		{`{{ seq 5 1 0 }}`, "", ""},
		{`{{ seq .big }}`, "", "more than"},
		{`{{ seq .min .big }}`, "", "more than"},
		{`{{ $d := dict "a" 1 }}{{ $_ := set $d "b" 2 }}{{ toJson $d }}`, `{"a":1,"b":2}`, ""},
		{`{{ $d := dict }}{{ set $d "self" $d }}`, "", "contains the dict itself"},
		{`{{ $d := dict }}{{ set $d "l" (list 1 (dict "x" $d)) }}`, "", "contains the dict itself"},
		{`{{ set . "self" . }}`, "", "contains the dict itself"},
		{`{{ $a := dict "x" (dict) }}{{ merge $a.x $a }}`, "", "contains the destination"},
		{`{{ $a := dict "x" (dict) }}{{ mustMergeOverwrite $a.x $a }}`, "", "contains the destination"},
		{`{{ merge (dict "a" 1) (dict "a" 2 "b" 3) | toJson }}`, `{"a":1,"b":3}`, ""},
		{`{{ mergeOverwrite (dict "a" 1) (dict "a" 2) | toJson }}`, `{"a":2}`, ""},
		{`{{ define "x" }}<{{ . }}>{{ end }}{{ include "x" 3 | upper }}`, "<3>", ""},
		{`{{ define "loop" }}{{ include "loop" . }}{{ end }}{{ include "loop" . }}`, "", "more than 1000 deep"},
		{`{{ include "nope" . }}`, "", "no template"},
		{`{{ "a" | sha256sum | trunc 8 }}`, "ca978112", ""},
		{`{{ base "a/b/c.txt" }}`, "c.txt", ""},
		{`{{ chunk 0 (list 1 2) }}`, "", "error calling chunk"},
		{`{{ deepCopy .m | toJson }}`, `{"a":1,"b":2,"c":{"d":"e"}}`, ""},
	}
	for i, c := range cases {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			tm, err := newTemplate("t", c.tmpl, &budget{})
			if err != nil {
				t.Fatalf("%s: %v", c.tmpl, err)
			}
			var b strings.Builder
			err = tm.Execute(&b, data)
			switch {
			case c.err == "" && err != nil:
				t.Errorf("%s: %v", c.tmpl, err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("%s: error %v, want one containing %q", c.tmpl, err, c.err)
			case c.err == "" && b.String() != c.want:
				t.Errorf("%s = %q, want %q", c.tmpl, b.String(), c.want)
			}
		})
	}
}
