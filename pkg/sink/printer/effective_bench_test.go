package printer_test

import (
	"io"
	"testing"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/sink/effectivepolicy"
	"github.com/strata-dev/strata/pkg/sink/printer"
)

// BenchmarkPrintEffective times printing `strata effective` of the
// performance world (synth.Snapshot(1, 1): 20,000 targets, 56,000
// contexts, 82 MB of YAML) after the engine: the EffectivePolicies made
// and written by a ListWriter on every core, as the command streams them.
// The end-to-end command, reading included, is internal/cli's
// BenchmarkEveryProcess/effective.
//
//	go test -run '^$' -bench BenchmarkPrintEffective -benchmem ./pkg/sink/printer/
func BenchmarkPrintEffective(b *testing.B) {
	res, err := engine.Run(synth.Snapshot(1, 1), engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	n, at := effectivepolicy.Indexed(res)
	for _, format := range []string{printer.YAML, printer.JSON} {
		b.Run(format, func(b *testing.B) {
			var out countingWriter
			b.ReportAllocs()
			for b.Loop() {
				out = 0
				lw, err := printer.NewListWriter(&out, format)
				if err != nil {
					b.Fatal(err)
				}
				if err := lw.ItemsBy(n, func() func(int) any {
					var scratch effectivepolicy.Scratch
					return func(i int) any { return at(i, &scratch) }
				}); err != nil {
					b.Fatal(err)
				}
				if err := lw.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(out))
		})
	}
}

// countingWriter discards what it is given and counts the bytes.
type countingWriter int64

func (w *countingWriter) Write(p []byte) (int, error) {
	*w += countingWriter(len(p))
	return len(p), nil
}

var _ io.Writer = (*countingWriter)(nil)
