package effectivepolicy

import (
	"encoding/json"
	"testing"
)

// A context's merged spec is written as a JSON object, {} when empty, with
// sorted keys (the CLI's golden files and the stored objects rely on both).
func TestObject(t *testing.T) {
	cases := []struct {
		name   string
		values map[string]any
		want   string
	}{
		{"nil", nil, `{}`},
		{"empty", map[string]any{}, `{}`},
		{"nested", map[string]any{"colors": map[string]any{"light": "yellow", "dark": "olive"}, "n": int64(3)}, `{"colors":{"dark":"olive","light":"yellow"},"n":3}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Context{ResultantPolicy: object(tc.values)}
			if got := string(c.ResultantPolicy.Raw); got != tc.want {
				t.Errorf("object(%v) = %s, want %s", tc.values, got, tc.want)
			}
			b, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			want := `{"path":null,"resultantPolicy":` + tc.want + `,"sources":null}`
			if string(b) != want {
				t.Errorf("Context encodes as %s, want %s", b, want)
			}
		})
	}
}
