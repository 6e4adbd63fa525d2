package blueprint_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The blueprint packages are a functional core (issue 12): `strata render`
// plans, merges and renders offline without linking a client or the
// controller. The caller passes what a render knows of the cluster's
// kinds (render.Kinds): a REST mapper or the generated table for scope,
// client-go's scheme for types.
func TestBlueprintPackagesImportNoClientOrController(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch {
		case strings.HasPrefix(dep, "github.com/strata-dev/strata/pkg/controller"),
			strings.HasPrefix(dep, "k8s.io/client-go/"),
			strings.HasPrefix(dep, "sigs.k8s.io/controller-runtime"):
			t.Errorf("a blueprint package depends on %s", dep)
		}
	}
}
