package cli

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/strata-dev/strata/internal/synth"
)

// BenchmarkDescribeRoute times `strata describe httproute/NAME -n NS -f
// world.yaml` end to end (reading and decoding the YAML, the engine run,
// the query and the human printer) on the performance world of
// docs/performance.md: synth.Snapshot(1, 1), 20,000 HTTPRoutes and 5,000
// policies, written once to a temporary file outside the timer.
func BenchmarkDescribeRoute(b *testing.B) {
	s := synth.Snapshot(1, 1)
	path := filepath.Join(b.TempDir(), "world.yaml")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if err := synth.WriteYAML(w, s); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	route := s.HTTPRoutes[len(s.HTTPRoutes)/2]
	args := []string{"describe", "httproute/" + route.Name, "-n", route.Namespace, "-f", path}
	s = nil // the world lives in the file now; let the collector have it
	for b.Loop() {
		var out, errb bytes.Buffer
		if code := Main(args, Streams{Out: &out, Err: &errb}); code != 0 {
			b.Fatalf("exit %d: %s", code, errb.String())
		}
		if out.Len() == 0 {
			b.Fatal("no output")
		}
	}
}
