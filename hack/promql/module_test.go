package promql

import (
	"os"
	"strings"
	"testing"
)

// TestModuleVersionsMatchRoot: Strata's packages compile here (through
// the replace directive) with the Kubernetes libraries Strata itself
// uses; Prometheus' requirements must not raise them.
func TestModuleVersionsMatchRoot(t *testing.T) {
	root, mine := requires(t, "../../go.mod"), requires(t, "go.mod")
	for _, path := range []string{"k8s.io/api", "k8s.io/apimachinery", "k8s.io/client-go", "k8s.io/apiserver", "sigs.k8s.io/controller-runtime", "sigs.k8s.io/gateway-api"} {
		if root[path] == "" || root[path] != mine[path] {
			t.Errorf("%s: %q in hack/promql/go.mod, %q in go.mod; keep them equal", path, mine[path], root[path])
		}
	}
}

// requires reads a go.mod's require lines: module path to version.
func requires(t *testing.T, file string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "require ")
		if f := strings.Fields(line); len(f) >= 2 && strings.Contains(f[0], ".") && strings.HasPrefix(f[1], "v") {
			out[f[0]] = f[1]
		}
	}
	return out
}
