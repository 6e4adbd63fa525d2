package routing

import (
	"testing"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
)

// BenchmarkRoute times Route alone on 20,000 HTTPRoutes on one listener
// that all match every request (synth.Routes): every one a candidate,
// decided by namespace/name.
func BenchmarkRoute(b *testing.B) {
	s, err := synth.GenerateShape(synth.Routes, 20000)
	if err != nil {
		b.Fatal(err)
	}
	res, err := engine.Run(s, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	req, err := NewRequest("GET", "http://any.example.com/", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if tr, err := Route(res.Graph, req, ""); err != nil || tr.Failure != "" {
			b.Fatal(err, tr.Failure)
		}
	}
}
