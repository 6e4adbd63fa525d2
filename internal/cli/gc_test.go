package cli

import (
	"bytes"
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// TestCommandPutsBackTheCollector checks that a command leaves the
// collector as it found it: MainContext raises GOGC and sets a memory
// limit while a one-shot command runs, including one that fails, and puts
// both back, in a process that goes on.
func TestCommandPutsBackTheCollector(t *testing.T) {
	old := debug.SetGCPercent(123)
	defer debug.SetGCPercent(old)
	oldLimit := debug.SetMemoryLimit(3 << 30)
	defer debug.SetMemoryLimit(oldLimit)
	for _, c := range []struct {
		name string
		args []string
		exit int
	}{
		{"status", []string{"status", "-f", "../../examples/parable"}, 0},
		{"a failing command", []string{"describe", "httproute/nosuch", "-f", "../../examples/parable"}, 1},
		{"version", []string{"version"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := MainContext(context.Background(), c.args, Streams{Out: &out, Err: &errb}); code != c.exit {
				t.Fatalf("exit %d, want %d: %s", code, c.exit, errb.String())
			}
			if g := debug.SetGCPercent(123); g != 123 {
				t.Errorf("GOGC after the command = %d, want 123", g)
			}
			// A setting left behind by a cleanup would show after
			// the runtime's next collections.
			collectAutomatically(t, 2)
			if g := debug.SetGCPercent(123); g != 123 {
				t.Errorf("GOGC after the command and two collections = %d, want 123", g)
			}
			if l := debug.SetMemoryLimit(-1); l != 3<<30 {
				t.Errorf("memory limit after the command = %d, want %d", l, 3<<30)
			}
		})
	}
}

// garbage keeps collectAutomatically's last allocation reachable.
var garbage []byte

// collectAutomatically makes garbage until the runtime has started n
// collections of its own: counted, not timed.
func collectAutomatically(t *testing.T, n uint64) {
	t.Helper()
	s := []metrics.Sample{{Name: "/gc/cycles/automatic:gc-cycles"}}
	metrics.Read(s)
	start := s[0].Value.Uint64()
	for i := range 1 << 14 {
		garbage = make([]byte, 1<<20)
		if i%16 == 0 {
			runtime.Gosched() // let a cleanup run
			metrics.Read(s)
			if s[0].Value.Uint64() >= start+n {
				return
			}
		}
	}
	t.Fatalf("fewer than %d collections in 16 GiB of garbage", n)
}
