package engine_test

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/outcome"
)

// BenchmarkRun times the whole functional core (topology, attachment,
// effective policies, outcome) on the synthetic world of internal/synth at
// 1x, 2x and 4x the workload, so cost per object can be compared
// across scales. Besides ns/op, B/op and allocs/op
// it reports:
//
//   - peak-heap-B: the largest GC heap goal reached during the timed
//     runs (see heapWatch): the size the whole heap (input snapshot, live
//     result and garbage not yet collected) grows to under the default
//     GOGC=100.
//   - input-B: heap held by the input snapshot.
//   - result-B: heap retained by one Result after a GC, i.e. what a
//     caller keeps alive (measured on one extra, untimed run).
//
// Run it on one core: go test -run '^$' -bench BenchmarkRun -benchmem -cpu 1 ./pkg/engine/
func BenchmarkRun(b *testing.B) {
	for _, scale := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("scale=%d", scale), func(b *testing.B) {
			base := liveHeap()
			s := synth.Snapshot(scale, 1)
			input := liveHeap() // also resets the heap goal to the input's
			w := watchHeap()
			b.ReportAllocs()
			for b.Loop() {
				// No result outlives its iteration, so the heap never
				// holds two of them.
				if _, err := engine.Run(s, engine.Options{}); err != nil {
					b.Fatal(err)
				}
				w.sample()
			}
			b.StopTimer()
			peak := w.stop()

			// One more run, untimed, to weigh what a Result retains.
			before := liveHeap()
			res, err := engine.Run(s, engine.Options{})
			if err != nil {
				b.Fatal(err)
			}
			after := liveHeap()
			runtime.KeepAlive(res)
			runtime.KeepAlive(s)
			// Bytes, like B/op, so benchstat scales them (KiB, MiB, GiB).
			b.ReportMetric(float64(peak), "peak-heap-B")
			b.ReportMetric(float64(input)-float64(base), "input-B")
			b.ReportMetric(float64(after)-float64(before), "result-B")
		})
	}
}

// liveHeap collects garbage and returns the bytes of live heap objects.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// heapWatch records the largest GC heap goal ("/gc/heap/goal:bytes") seen
// at the end of every GC cycle while it is armed. The pacer lets the heap,
// live objects and garbage together, grow to that goal before a cycle
// completes, so its maximum is the run's peak heap up to the pacer's small
// overshoot; unlike MemStats.HeapSys it is not a process-wide high-water
// mark left over from earlier benchmarks.
type heapWatch struct {
	mu      sync.Mutex
	peak    uint64
	stopped bool
}

func watchHeap() *heapWatch {
	w := &heapWatch{}
	w.sample()
	w.arm()
	return w
}

// arm schedules a sample for the end of the next GC cycle: the cleanup of
// an object nobody references runs once that cycle has found it dead, and
// re-arms itself until the watch is stopped.
func (w *heapWatch) arm() {
	runtime.AddCleanup(new([64]byte), func(w *heapWatch) {
		if w.sample() {
			w.arm()
		}
	}, w)
}

// sample records the current heap goal and reports whether the watch is
// still armed.
func (w *heapWatch) sample() bool {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	w.mu.Lock()
	defer w.mu.Unlock()
	if s[0].Value.Kind() == metrics.KindUint64 {
		w.peak = max(w.peak, s[0].Value.Uint64())
	}
	return !w.stopped
}

// stop disarms the watch and returns the peak.
func (w *heapWatch) stop() uint64 {
	w.sample()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopped = true
	return w.peak
}

// TestSyntheticWorld guards the benchmark's input: a generator that
// silently produced an empty world (routes attached nowhere, policies
// reaching no Service) would make BenchmarkRun measure nothing.
func TestSyntheticWorld(t *testing.T) {
	cases := []struct {
		name  string
		sizes synth.Sizes
	}{
		{"tiny", synth.Sizes{Namespaces: 4, Gateways: 8, Routes: 160, Services: 160, Policies: 200}},
		{"tenth of scale 1", synth.Sizes{Namespaces: 10, Gateways: 100, Routes: 2000, Services: 2000, Policies: 500}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := synth.Generate(tc.sizes, 1)
			if got, want := len(s.Gateways)*len(s.Gateways[0].Spec.Listeners), tc.sizes.Gateways*synth.ListenersPerGateway; got != want {
				t.Errorf("listeners = %d, want %d", got, want)
			}
			if len(s.HTTPRoutes) != tc.sizes.Routes || len(s.Services) != tc.sizes.Services || len(s.Policies) != tc.sizes.Policies {
				t.Fatalf("got %d routes, %d services, %d policies; want %+v", len(s.HTTPRoutes), len(s.Services), len(s.Policies), tc.sizes)
			}
			res, err := engine.Run(s, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Graph.Problems) > 0 {
				t.Errorf("topology problems, first: %v", res.Graph.Problems[0])
			}

			// Most routes attach to some listener, and most Services are
			// reached by some route rule.
			attached, reached := 0, 0
			for _, id := range res.Graph.ByKind(hierarchy.HTTPRouteKind) {
				if len(res.Graph.Node(id).Parents) > 0 {
					attached++
				}
			}
			for _, id := range res.Graph.ByKind(hierarchy.ServiceKind) {
				if len(res.Graph.Node(id).Parents) > 0 {
					reached++
				}
			}
			if attached < tc.sizes.Routes*9/10 {
				t.Errorf("%d of %d routes attached to a listener, want at least 90%%", attached, tc.sizes.Routes)
			}
			if reached < tc.sizes.Services*9/10 {
				t.Errorf("%d of %d services are backends of a rule, want at least 90%%", reached, tc.sizes.Services)
			}

			// Both kinds have effective targets with contexts.
			for i, k := range res.Kinds {
				contexts := 0
				for _, tg := range res.Kinds[i].Effective.Targets {
					contexts += len(tg.Contexts)
				}
				if len(res.Kinds[i].Effective.Targets) == 0 || contexts == 0 {
					t.Errorf("%s: %d effective targets, %d contexts; want some", k.Kind.Kind, len(res.Kinds[i].Effective.Targets), contexts)
				}
			}
			if res.Outcome.NumTargets() == 0 {
				t.Error("no target is affected by any policy")
			}

			// Every policy has a status, and the statuses cover the
			// interesting outcomes.
			if len(res.Outcome.Policies) != len(s.Policies) {
				t.Fatalf("%d policy statuses, want %d", len(res.Outcome.Policies), len(s.Policies))
			}
			seen := map[string]int{}
			for _, ps := range res.Outcome.Policies {
				if len(ps.Ancestors) == 0 {
					t.Errorf("%s %s: no ancestors in status", ps.Policy.Kind.Kind, ps.Policy.ID())
					continue
				}
				for _, a := range ps.Ancestors {
					for _, c := range a.Conditions {
						if c.Status == metav1.ConditionTrue || c.Type == outcome.Accepted {
							seen[c.Type+"/"+c.Reason]++
						}
					}
				}
			}
			for _, want := range []string{
				outcome.Accepted + "/" + outcome.ReasonAccepted,
				outcome.Accepted + "/" + outcome.ReasonConflicted,
				outcome.Enforced + "/" + outcome.ReasonEnforced,
				outcome.PartiallyEnforced + "/" + outcome.ReasonPartially,
				outcome.Overridden + "/" + outcome.ReasonOverridden,
			} {
				if seen[want] == 0 {
					t.Errorf("no policy ancestor with condition %s; seen %v", want, seen)
				}
			}
		})
	}
}

// shapeBase is the 1x size of each shape of BenchmarkShapes: 20,000
// policies or 100,000 of anything else at 4x (issue 11, "No cliffs").
func shapeBase(sh synth.Shape) int {
	switch sh {
	case synth.PoliciesSameField, synth.PoliciesDistinctFields, synth.PoliciesMixed,
		synth.PoliciesConflicts, synth.PoliciesRouteEffective:
		return 5000
	case synth.EmptyDocuments:
		return 250000
	}
	return 25000
}

// BenchmarkShapes times engine.Run on each shape of internal/synth at 1x,
// 2x and 4x its base size, so that a cost that is not linear in one count
// (policies on one Gateway, routes, listeners, Services, targetRefs of
// one policy) shows as time per item growing with the scale. Empty
// documents do not reach the engine; internal/cli's BenchmarkShapeCommands
// reads them.
//
// go test -run '^$' -bench BenchmarkShapes -benchmem -cpu 1 ./pkg/engine/
func BenchmarkShapes(b *testing.B) {
	for _, sh := range synth.Shapes() {
		if sh == synth.EmptyDocuments {
			continue
		}
		for _, scale := range []int{1, 2, 4} {
			n := shapeBase(sh) * scale
			b.Run(fmt.Sprintf("%s/n=%d", sh, n), func(b *testing.B) {
				s, err := synth.GenerateShape(sh, n)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := engine.Run(s, engine.Options{}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/item")
			})
		}
	}
}
