package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestListenerSetGolden pins what Strata prints for a ListenerSet
// (GEP-1713, issue 16 item 1): a policy on a ListenerSet reaches the
// routes of its listeners only, not those of the parent Gateway's own
// listeners; a ListenerSet its Gateway does not allow
// (spec.allowedListeners) is reported and its routes reach nothing; the
// status ancestors and the describe and graph views name the ListenerSet.
func TestListenerSetGolden(t *testing.T) {
	dir := "../../examples/gep-713/listenerset"
	for _, c := range []struct {
		file string
		args []string
	}{
		{"status.golden", []string{"status", "-o", "yaml"}},
		{"effective.golden", []string{"effective", "-o", "yaml"}},
		{"describe-team-a.golden", []string{"describe", "lset/team-a", "-n", "infra"}},
		{"graph.mermaid.golden", []string{"graph", "-o", "mermaid"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			out, errOut, code := strata(t, "", append(c.args, "-f", dir)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if want := `ListenerSet team-b/team-b: spec.parentRef: Gateway infra/gw does not allow ListenerSets from namespace "team-b"`; !strings.Contains(errOut, want) {
				t.Errorf("stderr %q does not report %q", errOut, want)
			}
			golden := filepath.Join(dir, c.file)
			if *update {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/cli -update)", err)
			}
			if d := cmp.Diff(string(want), out); d != "" {
				t.Errorf("%s differs (-want +got):\n%s", golden, d)
			}
		})
	}
}
