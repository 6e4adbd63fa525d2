package printer_test

import (
	"io"
	"testing"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/sink/printer"
)

// BenchmarkDiagram times `strata graph` of everything after the engine,
// on the performance world (synth.Snapshot(1, 1): 120,000 nodes, 5,000
// policies): query.Map, then DOT and Mermaid. The end-to-end command,
// reading included, is internal/cli's BenchmarkEveryCommand/graph.
func BenchmarkDiagram(b *testing.B) {
	res, err := engine.RunScoped(synth.Snapshot(1, 1), engine.Options{}, query.NoTargets)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("Map", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			query.Map(res)
		}
	})
	d := query.Map(res)
	for _, format := range []string{printer.DOT, printer.Mermaid} {
		b.Run(format, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := printer.PrintDiagram(io.Discard, d, format); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
