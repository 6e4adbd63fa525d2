package merge_test

import (
	"os/exec"
	"strings"
	"testing"
)

// merge is a leaf of the engine: its sources are opaque values
// (merge.Source), so it needs no policy kinds, no topology, nothing of the
// stages that use it (issue 12 §1).
func TestImportsNoOtherEnginePackage(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/strata-dev/strata/") && dep != "github.com/strata-dev/strata/pkg/engine/merge" {
			t.Errorf("merge depends on %s", dep)
		}
	}
}
