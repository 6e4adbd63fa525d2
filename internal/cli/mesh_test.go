package cli

import (
	"path/filepath"
	"testing"
)

// TestMeshGolden pins what Strata prints for a mesh (GAMMA, GEP-1426;
// issue 16 item 6; 001 "Policy Attachment for Mesh"): routes whose
// parentRef is a Service hang under that Service's frontend; the
// producer's policy on the Service reaches both routes, the consumer
// namespace's policies only the consumer route's context; status names
// the Service as the ancestor, once, and describe and graph show the
// frontend.
func TestMeshGolden(t *testing.T) {
	dir := "../../examples/gep-713/mesh"
	for _, c := range []struct {
		file string
		args []string
	}{
		{"status.golden", []string{"status", "-o", "yaml"}},
		{"effective.golden", []string{"effective", "-o", "yaml"}},
		{"describe-foo-a.golden", []string{"describe", "svc/foo-a", "-n", "producer"}},
		{"describe-split.golden", []string{"describe", "httproute/split", "-n", "consumer"}},
		{"explain-foo-a.golden", []string{"explain", "svc/foo-a", "-n", "producer", "--field", "/colors/accent"}},
		{"graph.mermaid.golden", []string{"graph", "-o", "mermaid"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			out, errOut, code := strata(t, "", append(c.args, "-f", dir)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if errOut != "" {
				t.Errorf("stderr %q, want none: the mesh parentRefs are part of the hierarchy", errOut)
			}
			discoverGolden(t, filepath.Join(dir, c.file), out)
		})
	}
}
