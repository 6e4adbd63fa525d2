package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// beforeEnv names a strata binary to measure beside this tree's;
// afterEnv, when set, the binary to measure instead of this tree's.
const (
	beforeEnv = "STRATA_BENCH_BEFORE"
	afterEnv  = "STRATA_BENCH_AFTER"
)

// buildStrata builds this tree's strata as the image does (no cgo,
// trimmed paths, stripped), so it is measured beside a binary built the
// same way and not as this test binary, which carries the tests too.
func buildStrata(b *testing.B) string {
	b.Helper()
	out := filepath.Join(b.TempDir(), "strata")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, "github.com/strata-dev/strata/cmd/strata")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, msg)
	}
	return out
}

// BenchmarkBeside runs each command of BenchmarkEveryProcess twice an
// iteration, once as the binary STRATA_BENCH_BEFORE names (a previous
// build) and once as this tree's strata (built as the image builds it,
// or STRATA_BENCH_AFTER), in alternating order, so both
// see the same hour of a machine whose speed swings by 2x. It reports
// each one's CPU (user and system) and peak RSS, and their ratios
// (after/before): the side-by-side figures docs/performance.md ("How to
// compare a change") asks of a change.
//
//	git worktree add /tmp/before HEAD~1
//	CGO_ENABLED=0 go -C /tmp/before build -trimpath -ldflags='-s -w' -o /tmp/strata-before ./cmd/strata
//	STRATA_BENCH_BEFORE=/tmp/strata-before go test -run '^$' -bench BenchmarkBeside -benchtime 3x ./internal/cli/
func BenchmarkBeside(b *testing.B) {
	before := os.Getenv(beforeEnv)
	if before == "" {
		b.Skipf("set %s to a strata binary to measure beside this tree", beforeEnv)
	}
	after := os.Getenv(afterEnv)
	if after == "" {
		after = buildStrata(b)
	}
	path, commands := everyCommand(b)
	for _, c := range commands {
		b.Run(c.name, func(b *testing.B) {
			out := outputFile(b)
			var cpu [2]time.Duration
			var rss [2]int64
			run := func(i int, name string, env []string) {
				rewind(b, out)
				var errb bytes.Buffer
				cmd := exec.Command(name, append(c.args, "-f", path)...)
				cmd.Env = env
				cmd.Stdout, cmd.Stderr = out, &errb
				err := cmd.Run()
				var exit *exec.ExitError
				switch {
				case errors.As(err, &exit) && exit.ExitCode() == c.exit:
				case err != nil || c.exit != 0:
					b.Fatalf("%s: %v, want exit %d: %s", name, err, c.exit, errb.String())
				}
				cpu[i] += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				if u, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
					rss[i] = max(rss[i], u.Maxrss)
				}
			}
			both := func(first int) {
				for k := range 2 {
					if (first+k)%2 == 0 {
						run(0, before, os.Environ())
					} else {
						run(1, after, os.Environ())
					}
				}
			}
			// One untimed round first: the world file and both binaries
			// into the page cache, so neither pays for the other's
			// first read.
			both(0)
			cpu, rss = [2]time.Duration{}, [2]int64{}
			n := 0
			for b.Loop() {
				both(n % 2)
				n++
			}
			b.ReportMetric(cpu[0].Seconds()/float64(n), "before-cpu-s/op")
			b.ReportMetric(cpu[1].Seconds()/float64(n), "cpu-s/op")
			b.ReportMetric(cpu[1].Seconds()/cpu[0].Seconds(), "cpu-ratio")
			b.ReportMetric(float64(rss[0])/1024, "before-maxrss-MB")
			b.ReportMetric(float64(rss[1])/1024, "maxrss-MB")
		})
	}
}
