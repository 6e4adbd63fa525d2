package render

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// TestTypeErrorNamesTheValue: a field of the wrong type is named with the
// indexes of its lists, as a field path and as the JSON pointer that
// blame matches against the holes' landings; encoding/json's own field
// path leaves the indexes out, so a tenant's value in a list (a
// container's image) was not found behind the error.
func TestTypeErrorNamesTheValue(t *testing.T) {
	for _, tc := range []struct {
		name           string
		obj            map[string]any
		field, pointer string
	}{{
		name: "a number where a string goes, in a list",
		obj: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "d"},
			"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{
				map[string]any{"name": "a", "image": "x"},
				map[string]any{"name": "b", "image": int64(0)},
			}}}}},
		field: "spec.template.spec.containers[1].image", pointer: "/spec/template/spec/containers/1/image",
	}, {
		name: "an object where a number goes",
		obj: map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "s"},
			"spec": map[string]any{"ports": []any{map[string]any{"port": map[string]any{"a": []any{int64(1)}}}}}},
		field: "spec.ports[0].port", pointer: "/spec/ports/0/port",
	}, {
		name: "a list where a string goes",
		obj: map[string]any{"apiVersion": "v1", "kind": "Service", "metadata": map[string]any{"name": "s"},
			"spec": map[string]any{"ports": []any{}, "type": []any{"x", []any{}}}},
		field: "spec.type", pointer: "/spec/type",
	}, {
		name: "a key with a slash",
		obj: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c"},
			"data": map[string]any{"a/b": true}},
		field: "data.a/b", pointer: "/data/a~1b",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkTyped(clientgoscheme.Scheme, &unstructured.Unstructured{Object: tc.obj})
			te, ok := errors.AsType[*TypeError](err)
			if !ok {
				t.Fatalf("error %v, want a *TypeError", err)
			}
			if te.Field != tc.field || te.Pointer != tc.pointer {
				t.Errorf("field %q pointer %q, want %q %q (%v)", te.Field, te.Pointer, tc.field, tc.pointer, err)
			}
		})
	}
}
