package query_test

import (
	"testing"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/query/routing"
)

// BenchmarkSimulate times the query alone, Simulate of one request, on
// engine runs over the performance world (synth.Snapshot(1, 1): 20,000
// HTTPRoutes over 50 Gateways, 5,000 policies) and over 20,000 HTTPRoutes
// on one listener that all match every request (synth.Routes): every one
// a candidate, decided by namespace/name.
func BenchmarkSimulate(b *testing.B) {
	routes, err := synth.GenerateShape(synth.Routes, 20000)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name, url string
		world     func() *engine.Result
	}{
		{"perf-world", "http://app-100.gw-00000.example.com/", func() *engine.Result {
			res, err := engine.Run(synth.Snapshot(1, 1), engine.Options{})
			if err != nil {
				b.Fatal(err)
			}
			return res
		}},
		{"routes-20000", "http://any.example.com/", func() *engine.Result {
			res, err := engine.Run(routes, engine.Options{})
			if err != nil {
				b.Fatal(err)
			}
			return res
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			res := c.world()
			req, err := routing.NewRequest("GET", c.url, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				s, err := query.Simulate(res, req, "")
				if err != nil || s.Failure != "" {
					b.Fatalf("%v %s", err, s.Failure)
				}
			}
		})
	}
}
