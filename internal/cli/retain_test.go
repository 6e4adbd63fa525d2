package cli

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/strata-dev/strata/internal/synth"
)

// TestCommandsLetGo checks that a command holds nothing of the world it
// read once it returns, so that a process running many commands (the
// tests, BenchmarkEveryCommand) does not pile worlds up: cobra keeps every
// flag's completion function for the life of the process
// (sourceFlags.completeFlag).
func TestCommandsLetGo(t *testing.T) {
	s := synth.Generate(synth.Sizes{Namespaces: 4, Gateways: 20, Routes: 3000, Services: 3000, Policies: 600}, 2)
	path := filepath.Join(t.TempDir(), "world.yaml")
	file, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(file)
	if err := synth.WriteYAML(w, s); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := file.Close(); err != nil {
		t.Fatal(err)
	}
	s = nil
	route := "httproute/route-000000"
	live := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	run := func() {
		for _, args := range [][]string{
			{"get", "policies", "-A"},
			{"describe", route, "-n", "ns-0000"},
			{"explain", route, "-n", "ns-0000", "--field", "colors"},
		} {
			if _, errOut, code := strata(t, "", append(args, "-f", path)...); code != 0 && code != 1 {
				t.Fatalf("strata %v: exit %d: %s", args, code, errOut)
			}
		}
	}
	run() // what stays once: caches, types
	before := live()
	for range 5 {
		run()
	}
	grown := int64(live()) - int64(before)
	t.Logf("live heap grown by %d KiB over 5 rounds", grown/1024)
	if grown > 8<<20 {
		t.Errorf("live heap grew by %d MiB over 5 rounds of commands: they keep what they read", grown>>20)
	}
}
