package engine_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The engine is a functional core (docs/layout.md): it stands on API
// types and schema libraries only. No stage may reach a source, a sink,
// a query, the CLI or anything internal/, nor link a client, a command
// line or a metrics library: a program that embeds the engine decides
// those for itself.
//
// Two rules, because one schema library legitimately drags in what we
// forbid: admitting a policy against its CRD's schema, as the API server
// would (crdschema), links k8s.io/apiextensions-apiserver's validation
// and CEL packages, which reach github.com/spf13/cobra and
// github.com/prometheus/... through k8s.io/component-base (flags and
// metrics of the API server's own binary). So:
//   - every Strata package the engine links is in pkg/engine/... or
//     pkg/apis/..., and none of them imports cobra or prometheus itself;
//   - nothing the engine links, directly or not, is a client
//     (client-go, controller-runtime, cli-runtime).
//
// Test files are not linked into a program and are not checked.
func TestEngineImportsOnlyTypesAndSchemas(t *testing.T) {
	const module = "github.com/strata-dev/strata/"
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	client := func(p string) bool {
		for _, c := range []string{"k8s.io/client-go", "sigs.k8s.io/controller-runtime", "k8s.io/cli-runtime"} {
			if p == c || strings.HasPrefix(p, c+"/") {
				return true
			}
		}
		return false
	}
	direct := func(p string) bool {
		return client(p) || p == "github.com/spf13/cobra" || strings.HasPrefix(p, "github.com/spf13/cobra/") || strings.HasPrefix(p, "github.com/prometheus/")
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, imports := fields[0], fields[1:]
		if client(pkg) {
			t.Errorf("the engine links the client package %s", pkg)
		}
		if !strings.HasPrefix(pkg, module) {
			continue
		}
		if pkg != module+"pkg/engine" && !strings.HasPrefix(pkg, module+"pkg/engine/") && !strings.HasPrefix(pkg, module+"pkg/apis/") {
			t.Errorf("the engine links %s: only pkg/engine/... and pkg/apis/... may be", pkg)
		}
		for _, imp := range imports {
			if direct(imp) {
				t.Errorf("%s imports %s", pkg, imp)
			}
		}
	}
}
