package files_test

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-dev/strata/pkg/source/files"
)

// TestPlacesInOrderAcrossBatches checks that the places recorded on the
// placer's goroutine, a batch at a time, give what placing the objects
// one after another gave: every place, the first duplicate in the
// input's order whatever batch it falls in, and an object that does not
// decode reported rather than a duplicate after it, but not before.
func TestPlacesInOrderAcrossBatches(t *testing.T) {
	service := func(i, name int) files.Document {
		return files.Document{File: "-", Index: i, Object: &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Service",
			"metadata": map[string]any{"name": fmt.Sprintf("svc-%04d", name), "namespace": "ns"},
		}}}
	}
	nameless := func(i int) files.Document {
		return files.Document{File: "-", Index: i, Object: &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
			"metadata": map[string]any{"namespace": "ns"}, "spec": map[string]any{"gatewayClassName": "gc"},
		}}}
	}
	// world is n Services, then the documents of more, numbered on.
	world := func(n int, more ...func(i int) files.Document) []files.Document {
		var docs []files.Document
		for i := 1; i <= n; i++ {
			docs = append(docs, service(i, i))
		}
		for _, m := range more {
			docs = append(docs, m(len(docs)+1))
		}
		return docs
	}
	again := func(name int) func(int) files.Document { return func(i int) files.Document { return service(i, name) } }
	twice := func(name, first, second int) string {
		return fmt.Sprintf("Service ns/svc-%04d is given twice, in -: document %d and in -: document %d: keep one (kubectl apply would keep the last one silently)", name, first, second)
	}
	tests := []struct {
		name string
		docs []files.Document
		want string
	}{
		{"two duplicates after three batches: the first", world(1500, again(700), again(100)), twice(700, 700, 1501)},
		{"a duplicate in the first batch, found last", world(1500, again(3)), twice(3, 3, 1501)},
		{"a duplicate before an object that does not decode", world(1000, again(5), nameless), twice(5, 5, 1001)},
		{"an object that does not decode before a duplicate", append(append(world(600), nameless(601)), world(1000)[1:]...), "-: document 601 (Gateway): metadata.name is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := files.Decode(tc.docs)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Decode: %v\nwant %s", err, tc.want)
			}
		})
	}
	t.Run("every place", func(t *testing.T) {
		res, err := files.Decode(world(1500))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Places) != 1500 {
			t.Fatalf("%d places, want 1500", len(res.Places))
		}
		for i := 1; i <= 1500; i++ {
			k := files.Key{Kind: "Service", Namespace: "ns", Name: fmt.Sprintf("svc-%04d", i)}
			if got, want := res.Where(k), fmt.Sprintf("-: document %d (%s)", i, k); got != want {
				t.Fatalf("Where(%s) = %q, want %q", k, got, want)
			}
		}
		if !strings.Contains(res.Where(files.Key{Kind: "Service", Namespace: "ns", Name: "none"}), "Service ns/none") {
			t.Error("an object not read is named by its key")
		}
	})
}
