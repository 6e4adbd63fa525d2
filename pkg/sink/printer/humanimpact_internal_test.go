package printer

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/strata-dev/strata/pkg/sink/printer/internal/samples"
)

// TestHumanImpactOnCores checks that an impact for people is its first
// line and its groups' blocks written one after another, whatever
// GOMAXPROCS is, with colors and without; and that a failing writer's
// error is returned.
func TestHumanImpactOnCores(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 73))
	for _, n := range []int{1, 63, 300, 2000} {
		im := samples.WideImpact(r, n)
		im.Changed.Targets = len(im.Targets)
		for _, h := range []Human{{}, {Color: true}} {
			// The blocks one after another, on this goroutine.
			var want bytes.Buffer
			ew := &errWriter{w: &want}
			head := *im
			head.Targets = nil
			h.impact(ew, &head) // the first line alone

			for _, g := range groupImpact(im) {
				h.impactGroup(ew, im, g)
			}
			if ew.err != nil {
				t.Fatal(ew.err)
			}
			for _, procs := range []int{1, 4} {
				func() {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					var got bytes.Buffer
					if err := PrintHuman(&got, im, h); err != nil {
						t.Fatal(err)
					}
					if got.String() != want.String() {
						t.Fatalf("%d targets on %d cores (color %v): differs from the blocks one after another:\n--- want\n%.600s\n--- got\n%.600s", n, procs, h.Color, want.String(), got.String())
					}
				}()
			}
		}
		if err := PrintHuman(&failingWriter{after: 1000}, im, Human{}); err == nil && n > 10 {
			t.Errorf("%d targets: a failing writer's error is lost", n)
		}
	}
}

// failingWriter fails every write after the first after bytes.
type failingWriter struct{ after int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.after < len(p) {
		return 0, errors.New("disk full")
	}
	f.after -= len(p)
	return len(p), nil
}
