package apis_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The API packages are types only (issue 12): a project that reads or
// writes Strata's objects links apimachinery and API types, never the
// engine, a sink or a client.
func TestAPIPackagesImportNoEngineOrClient(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch {
		case strings.HasPrefix(dep, "github.com/strata-dev/strata/") && !strings.HasPrefix(dep, "github.com/strata-dev/strata/pkg/apis"),
			strings.HasPrefix(dep, "k8s.io/client-go/"),
			strings.HasPrefix(dep, "sigs.k8s.io/controller-runtime"):
			t.Errorf("an API package depends on %s", dep)
		}
	}
}
