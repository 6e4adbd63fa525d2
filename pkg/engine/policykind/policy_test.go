package policykind

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestReadChildMerge reads the field a kind's spec.childMerge names: a
// mapped value is the policy's atomicity, not part of its spec proper;
// anything else makes it Invalid, naming the field and the values
// allowed.
func TestReadChildMerge(t *testing.T) {
	k, err := Compile(&Declaration{Spec: Spec{Group: "gateway.envoyproxy.io", Kind: "BackendTrafficPolicy",
		ChildMerge: &ChildMerge{Field: "spec.mergeType", Values: map[string]string{"JSONMerge": Patch, "StrategicMerge": StrategicMergePatch}}}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		mergeType   any // nil: unset
		wantMerge   string
		wantInvalid []string
	}{
		{"unset", nil, "", nil},
		{"JSONMerge", "JSONMerge", Patch, nil},
		{"StrategicMerge", "StrategicMerge", StrategicMergePatch, nil},
		{"not mapped", "Replace", "", []string{`spec.mergeType: "Replace" is not one of JSONMerge, StrategicMerge`}},
		{"not a string", int64(1), "", []string{`spec.mergeType: must be a string, one of JSONMerge, StrategicMerge`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := map[string]any{
				"targetRefs": []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute", "name": "r"}},
				"retry":      map[string]any{"numRetries": int64(3)},
			}
			if tt.mergeType != nil {
				spec["mergeType"] = tt.mergeType
			}
			u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "gateway.envoyproxy.io/v1alpha1", "kind": "BackendTrafficPolicy",
				"metadata": map[string]any{"name": "p", "namespace": "default"}, "spec": spec}}
			p := k.Read(u)
			if p.ChildMerge != tt.wantMerge {
				t.Errorf("ChildMerge %q, want %q", p.ChildMerge, tt.wantMerge)
			}
			if diff := cmp.Diff(tt.wantInvalid, p.Invalid); diff != "" {
				t.Errorf("Invalid (-want +got):\n%s", diff)
			}
			want := []Block{{Strategy: Strategy{Base: Defaults, Atomicity: Atomic}, Field: "spec", Values: map[string]any{"retry": map[string]any{"numRetries": int64(3)}}}}
			if diff := cmp.Diff(want, p.Blocks); diff != "" {
				t.Errorf("Blocks (-want +got): mergeType is not spec proper\n%s", diff)
			}
			if w := k.Unexpected(u); len(w) > 0 {
				t.Errorf("warnings %v", w)
			}
		})
	}
}

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
