package render

import (
	"runtime"
	"runtime/metrics"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkBudget renders each hostile template of budgetCases (one per
// budget) and reports, besides time and allocation per render, the CPU
// time (cpu-ms/op: user and system, all threads, so GC included) and the
// peak of live heap objects during the render (peak-heap-MiB, sampled
// every 100µs after a GC), to show that every budget ends a render far
// under 2 s and 256 MiB.
func BenchmarkBudget(b *testing.B) {
	for _, c := range budgetCases {
		b.Run(strings.ReplaceAll(c.name, " ", "_"), func(b *testing.B) {
			b.ReportAllocs()
			var peak uint64
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				runtime.GC()
				stop, done := make(chan struct{}), make(chan uint64)
				go sampleHeap(stop, done)
				before := cpuTime()
				b.StartTimer()
				err := renderBudgetCase(c)
				b.StopTimer()
				cpu += cpuTime() - before
				close(stop)
				peak = max(peak, <-done)
				if err == nil || !strings.Contains(err.Error(), c.err) {
					b.Fatalf("error %v, want %q", err, c.err)
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
		})
	}
}

// sampleHeap sends on done the most bytes of heap objects (live and not
// yet swept) seen until stop is closed.
func sampleHeap(stop <-chan struct{}, done chan<- uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	t := time.NewTicker(100 * time.Microsecond)
	defer t.Stop()
	for {
		metrics.Read(s)
		peak = max(peak, s[0].Value.Uint64())
		select {
		case <-stop:
			done <- peak
			return
		case <-t.C:
		}
	}
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
