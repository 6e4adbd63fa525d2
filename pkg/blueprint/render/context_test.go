package render

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// TestJSONValueIsTheRoundTrip pins jsonValue to what encoding the value to
// JSON and decoding it with util/json gives, types included: templates
// read the context in that form (`eq .Values.port 80`, `int`, printf).
func TestJSONValueIsTheRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
	}{
		{"nil", nil},
		{"string", "a"},
		{"bad UTF-8", "a\xff\xfeb"},
		{"bool", true},
		{"int", 3},
		{"int32", int32(-7)},
		{"int64 max", int64(math.MaxInt64)},
		{"uint64 over int64", uint64(math.MaxUint64)},
		{"whole float", 80.0},
		{"negative zero", math.Copysign(0, -1)},
		{"fraction", 0.1},
		{"small", 1e-7},
		{"int64 min as float", float64(math.MinInt64)},
		{"2^63 as float", -float64(math.MinInt64)},
		{"2^60 as float", float64(1 << 60)},
		{"-(2^53+2)", -float64(1<<53 + 2)},
		{"1e20", 1e20},
		{"1e21", 1e21},
		{"float32", float32(0.1)},
		{"nil map", map[string]any(nil)},
		{"nil list", []any(nil)},
		{"empty", map[string]any{"m": map[string]any{}, "l": []any{}}},
		{"nested", map[string]any{"a": []any{1.0, 2.5, "x", map[string]any{"b": int64(4), "c": nil}}}},
		{"bad key", map[string]any{"\xff": 1.0, "\xfe": 2.0}},
		{"typed", map[string]any{"s": []string{"a"}, "m": map[string]int{"x": 1}, "p": &struct {
			A int `json:"a"`
		}{A: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			var want any
			if err := utiljson.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			got, err := jsonValue(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("jsonValue(%#v) (-round trip +got):\n%s", tc.v, diff)
			}
		})
	}
	if _, err := jsonValue(map[string]any{"x": math.NaN()}); err == nil {
		t.Error("NaN: want the encoder's error")
	}
}
