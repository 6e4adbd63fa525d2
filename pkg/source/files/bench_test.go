package files_test

import (
	"bufio"
	"bytes"
	"encoding/json"
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

// BenchmarkReadList times reading the same world as BenchmarkRead from
// one `kubectl get -o json` dump (a List of 46,000 items; compact, and
// indented as kubectl writes it), from a `kubectl get -o yaml` dump (the
// same List in YAML), and from a stream of JSON objects, one a line:
// issue 18 asks that dumps read at the speed of multi-document YAML.
func BenchmarkReadList(b *testing.B) {
	var y bytes.Buffer
	if err := synth.WriteYAML(&y, synth.Snapshot(1, 1)); err != nil {
		b.Fatal(err)
	}
	js, ys := listDumps(b, y.Bytes())
	var indented bytes.Buffer
	if err := json.Indent(&indented, js, "", "    "); err != nil {
		b.Fatal(err)
	}
	for _, format := range []struct {
		name string
		data []byte
	}{{"json", js}, {"yaml", ys}, {"json-indented", indented.Bytes()}, {"json-stream", jsonStream(b, js)}} {
		path := filepath.Join(b.TempDir(), "world."+format.name)
		if err := os.WriteFile(path, format.data, 0o600); err != nil {
			b.Fatal(err)
		}
		b.Run(format.name, func(b *testing.B) {
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
		})
	}
}
