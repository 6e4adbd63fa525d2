package files_test

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/source/files"
)

// BenchmarkRead times reading the performance world of
// docs/performance.md (synth.Snapshot(1, 1): 20,000 HTTPRoutes, 5,000
// policies, 46,000 documents in 15 MB of YAML as sigs.k8s.io/yaml writes
// it) from one file into a snapshot. The end-to-end `strata describe` on
// it is internal/cli's BenchmarkDescribeRoute.
func BenchmarkRead(b *testing.B) {
	path := filepath.Join(b.TempDir(), "world.yaml")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if err := synth.WriteYAML(w, synth.Snapshot(1, 1)); err != nil {
		b.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		res, err := files.Read([]string{path}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Snapshot.HTTPRoutes) != 20000 {
			b.Fatalf("%d routes", len(res.Snapshot.HTTPRoutes))
		}
	}
}
