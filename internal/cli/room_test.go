package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStatusRoom: offline, `strata status` fits Strata's conditions into
// the room the files' stored conditions leave (8 in a Gateway's
// status.conditions, less its controller's 2), prints the
// strata.dev/omitted-conditions annotation the controller would write,
// and warns on stderr naming each object; describe says what an object
// records it has no room for (issue 43, "Status the API accepts";
// docs/status.md, "Room").
func TestStatusRoom(t *testing.T) {
	dir := filepath.Join("testdata", "room")
	world := filepath.Join(dir, "world.yaml")
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"status.golden", []string{"status", "-f", world, "-o", "yaml"}},
		{"describe-g2.golden", []string{"describe", "gateway", "g2", "-n", "ns", "-f", world}},
	} {
		t.Run(c.golden, func(t *testing.T) {
			out, errOut, code := strata(t, "", c.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for name, got := range map[string]string{c.golden: out, strings.TrimSuffix(c.golden, ".golden") + ".stderr.golden": errOut} {
				golden := filepath.Join(dir, name)
				if *update {
					if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test ./internal/cli -run TestStatusRoom -update)", err)
				}
				if d := cmp.Diff(string(want), got); d != "" {
					t.Errorf("%s differs (-want +got):\n%s", golden, d)
				}
			}
		})
	}
}
