package policykind

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadTargetRefIsTheDecoder pins readTargetRef to what decoding the
// entry with encoding/json gives, errors included: they reach status.
func TestReadTargetRefIsTheDecoder(t *testing.T) {
	for i, r := range []any{
		map[string]any{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "gw", "sectionName": "http"},
		map[string]any{"kind": "Namespace", "name": "ns", "namespace": nil, "extra": 1},
		map[string]any{"kind": int64(5), "name": "x"},
		map[string]any{"kind": "Gateway", "name": []any{"x"}},
		map[string]any{"Kind": "Gateway", "NAME": "x"},
		map[string]any{"Kind": "A", "kind": "B", "name": "x"},
		map[string]any{"kind": "Gateway", "selector": map[string]any{"matchLabels": map[string]any{"a": "b"}}},
		map[string]any{"kind": "Gateway", "selector": "bad"},
		map[string]any{"kind": "Gateway", "selector": nil, "name": "x"},
		"a string",
		int64(3),
		nil,
	} {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			var want targetRefFields
			wantErr := decodeJSON(r, &want)
			got, err := readTargetRef(r)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("error %v, want %v", err, wantErr)
			}
			if wantErr != nil {
				return
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-decoder +got):\n%s", diff)
			}
		})
	}
}
