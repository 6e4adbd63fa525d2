package files_test

import (
	"strings"
	"testing"

	"github.com/strata-dev/strata/pkg/source/files"
)

// Each object remembers the line its document starts on, so a finding
// can point into the file (`strata check`): after a "---" marker, on the
// marker's line for content written on it, the document's line for the
// items of a List, line 1 for a first document without a marker.
func TestDocumentLines(t *testing.T) {
	in := `# a comment before the first document
apiVersion: v1
kind: Namespace
metadata: {name: a}
---
apiVersion: v1
kind: Namespace
metadata: {name: b}
---

---
# a comment inside the document
apiVersion: v1
kind: Namespace
metadata: {name: c}
--- {apiVersion: v1, kind: Namespace, metadata: {name: d}}
---
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: e}}
- {apiVersion: v1, kind: Namespace, metadata: {name: f}}
`
	res, err := files.Read([]string{"-"}, strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"a": 1, "b": 6, "c": 12, "d": 16, "e": 18, "f": 18}
	for name, line := range want {
		d, ok := res.Places[files.Key{Kind: "Namespace", Name: name}]
		if !ok {
			t.Errorf("Namespace %s not read", name)
			continue
		}
		if d.Line != line {
			t.Errorf("Namespace %s: line %d, want %d", name, d.Line, line)
		}
	}
}
