package query_test

import (
	"testing"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/query"
)

// BenchmarkDescribe times the query alone, Describe of one HTTPRoute, on
// an engine run over the performance world (synth.Snapshot(1, 1): 20,000
// HTTPRoutes, 5,000 policies). The end-to-end command, reading included,
// is internal/cli's BenchmarkDescribeRoute.
func BenchmarkDescribe(b *testing.B) {
	s := synth.Snapshot(1, 1)
	res, err := engine.Run(s, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	route := s.HTTPRoutes[len(s.HTTPRoutes)/2]
	subj, err := query.Resolve(res, "httproute/"+route.Name, route.Namespace)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if d := query.Describe(res, subj.Node); len(d.Effective) == 0 {
			b.Fatal("nothing in force")
		}
	}
}
