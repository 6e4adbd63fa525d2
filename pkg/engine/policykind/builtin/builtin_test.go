package builtin

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine/policykind"
)

// Every built-in declaration compiles, declares a kind of its own, is not
// managed (Strata does not enforce other projects' kinds), and cites its
// sources in a header comment.
func TestCatalogue(t *testing.T) {
	entries, err := Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 14 {
		t.Errorf("%d entries, want the 14 of issue 16", len(entries))
	}
	seen := map[schema.GroupKind]string{}
	for _, e := range entries {
		k, err := policykind.Compile(e.Declaration)
		if err != nil {
			t.Errorf("%s: %v", e.File, err)
			continue
		}
		if prev, dup := seen[k.Key()]; dup {
			t.Errorf("%s declares %s, as %s does", e.File, k.Key(), prev)
		}
		seen[k.Key()] = e.File
		if k.Managed {
			t.Errorf("%s: managed: true; built-in kinds are read, never enforced", e.File)
		}
		b, err := files.ReadFile(e.File)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), "#") || !strings.Contains(string(b), "Sources") {
			t.Errorf("%s: no header comment citing its sources", e.File)
		}
	}
}
