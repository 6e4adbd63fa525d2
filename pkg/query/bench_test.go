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

// BenchmarkAdmit times the admission webhook's answer (query.Admit) to
// an update of one policy, on the performance world (20,000 HTTPRoutes,
// 5,000 policies): one kind's recomputation and the comparison with the
// run before. The webhook's budget is 100ms (docs/admission.md).
func BenchmarkAdmit(b *testing.B) {
	s := synth.Snapshot(1, 1)
	res, err := engine.Run(s, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	p := res.Policies[len(res.Policies)/2]
	u := p.Object.DeepCopy()
	u.SetGeneration(u.GetGeneration() + 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := query.Admit(res, query.Change{Operation: query.OpUpdate, Object: u, Old: p.Object}, query.AdmitOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
