package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `strata kinds --builtin -o yaml` prints the catalogue as PolicyKind
// objects a user may apply or edit: read back as input, they declare the
// same kinds, now from PolicyKinds, with the same columns.
func TestKindsYAMLRoundTrip(t *testing.T) {
	out, errOut, code := strata(t, "", "kinds", "--builtin", "-o", "yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	file := filepath.Join(t.TempDir(), "kinds.yaml")
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	// The input declares the kinds but has no policy of them: kinds of
	// a PolicyKind are listed whether or not the input uses them.
	again, errOut, code := strata(t, "", "kinds", "-f", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	builtin, _, _ := strata(t, "", "kinds", "--builtin")
	if n, m := strings.Count(again, "\n"), strings.Count(builtin, "\n"); n != m || n != 15 {
		t.Errorf("%d lines read back, %d built in; want 15 (a header and 14 kinds)", n, m)
	}
	for _, line := range strings.Split(strings.TrimSpace(again), "\n")[1:] {
		if !strings.Contains(line, "PolicyKind ") {
			t.Errorf("not declared by the PolicyKind read back: %s", line)
		}
	}
}

// A PolicyKind of the input overrides a built-in entry, and --builtin
// reads no input.
func TestKindsOverrideAndRefusals(t *testing.T) {
	override := `apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: backendtlspolicies.gateway.networking.k8s.io}
spec:
  group: gateway.networking.k8s.io
  kind: BackendTLSPolicy
  class: Direct
  managed: true
  targetKinds: [{group: "", kind: Service}]
`
	out, errOut, code := strata(t, override, "kinds", "-f", "-", "-f", discCatalogue)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "BackendTLSPolicy ") {
			line = l
		}
	}
	if !strings.Contains(line, "true") || !strings.Contains(line, "PolicyKind backendtlspolicies.gateway.networking.k8s.io") {
		t.Errorf("BackendTLSPolicy: %q, want managed by the input's PolicyKind", line)
	}
	_, errOut, code = strata(t, "", "kinds", "--builtin", "-f", discCatalogue)
	if code != 1 || !strings.Contains(errOut, "--builtin reads no input") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}
