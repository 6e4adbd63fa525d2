package engine_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
)

// BenchmarkModel times Model.Apply on the synthetic world of scale 1
// (20,000 routes, 5,000 policies) beside a full Run in the same process,
// for the ratios (docs/performance.md, "The live model"):
//
//   - policy: one policy of either kind updated, round robin over the
//     policies not attached to the GatewayClass; the Apply includes the
//     status delta (every status it renders again);
//   - class-wide: one policy attached to the GatewayClass, which reaches
//     every target;
//   - route: one HTTPRoute moved to another Gateway;
//   - listener: one Gateway listener's hostname changed, which moves
//     the routes that name the Gateway;
//   - route-labels: one HTTPRoute's labels changed (a full run).
//
// Each reports of-full-run, its time over a full Run's measured just
// before it, and model-B / result-B, the heap a Model and a Result of
// Run retain. Run it on one core:
//
//	go test -run '^$' -bench BenchmarkModel -benchtime 20x -cpu 1 ./pkg/engine/
func BenchmarkModel(b *testing.B) {
	s := synth.Snapshot(1, 1)
	base := liveHeap()
	m, err := engine.NewModel(s, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	modelB := liveHeap() - base
	res := m.Result()
	var narrow, wide []*unstructured.Unstructured
	for _, p := range res.Policies {
		classWide := false
		for _, kr := range res.Kinds {
			for _, a := range kr.Attachments.ByPolicy[p] {
				if res.Graph.Node(a.Node).Ref.GroupKind() == hierarchy.GatewayClassKind {
					classWide = true
				}
			}
		}
		if classWide {
			wide = append(wide, p.Object)
		} else {
			narrow = append(narrow, p.Object)
		}
	}
	if len(narrow) == 0 || len(wide) == 0 {
		b.Fatalf("%d policies, %d of them class-wide: the world lacks one sort", len(res.Policies), len(wide))
	}
	full := func() time.Duration {
		start := time.Now()
		if _, err := engine.Run(s, engine.Options{}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	cases := []struct {
		name   string
		change func(i int) snapshot.Change
	}{
		{"policy", func(i int) snapshot.Change { return snapshot.Change{Object: edited(narrow[(i*7919)%len(narrow)], i)} }},
		{"class-wide", func(i int) snapshot.Change { return snapshot.Change{Object: edited(wide[i%len(wide)], i)} }},
		{"route", func(i int) snapshot.Change {
			r := s.HTTPRoutes[(i*7919)%len(s.HTTPRoutes)].DeepCopy()
			gw := s.Gateways[(i*31)%len(s.Gateways)]
			ns := gwv1.Namespace(gw.Namespace)
			r.Spec.ParentRefs = []gwv1.ParentReference{{Name: gwv1.ObjectName(gw.Name), Namespace: &ns}}
			r.Generation++
			return snapshot.Change{Object: r}
		}},
		{"listener", func(i int) snapshot.Change {
			gw := s.Gateways[(i*7919)%len(s.Gateways)].DeepCopy()
			h := gwv1.Hostname(fmt.Sprintf("edit-%d.example.com", i))
			gw.Spec.Listeners[0].Hostname = &h
			gw.Generation++
			return snapshot.Change{Object: gw}
		}},
		{"route-labels", func(i int) snapshot.Change {
			r := s.HTTPRoutes[(i*7919)%len(s.HTTPRoutes)].DeepCopy()
			r.Labels = map[string]string{"edit": fmt.Sprint(i)}
			return snapshot.Change{Object: r}
		}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			runtime.GC()
			baseline := min(full(), full())
			changes := make([]snapshot.Change, 0, 64)
			for i := range 64 {
				changes = append(changes, tc.change(i))
			}
			i := 0
			runtime.GC()
			b.ResetTimer()
			for b.Loop() {
				if _, _, err := m.Apply(changes[i%len(changes)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(baseline), "of-full-run")
		})
	}
	b.Run("memory", func(b *testing.B) {
		for b.Loop() {
		}
		before := liveHeap()
		r, err := engine.Run(s, engine.Options{})
		if err != nil {
			b.Fatal(err)
		}
		resultB := liveHeap() - before
		runtime.KeepAlive(r)
		runtime.KeepAlive(m)
		b.ReportMetric(float64(modelB), "model-B")
		b.ReportMetric(float64(resultB), "result-B")
	})
}

// edited is a copy of policy u with one spec value changed, as an edit
// would.
func edited(u *unstructured.Unstructured, i int) *unstructured.Unstructured {
	c := u.DeepCopy()
	_ = unstructured.SetNestedField(c.Object, fmt.Sprintf("edit-%d", i), "spec", "note")
	c.SetGeneration(c.GetGeneration() + 1)
	return c
}
