// Command test is the README's test command: it prepares what the tests
// need, then runs every test.
//
//	go run ./hack/test [go test flags and packages]
//
// First it makes sure kube-apiserver and etcd are built into bin/envtest
// (internal/testenv.Build: from Go modules, several minutes on the first
// run, printing progress; nothing on later runs). Only then does it run
// `go test`, with KUBEBUILDER_ASSETS pointing at them, so building never
// counts against a test's timeout, however slow or busy the machine. With
// no arguments it runs `go test -timeout 30m ./...`, then the same in
// each tool module under hack/ that has tests (hack/image builds the
// container image); arguments replace those and run in the root module
// only. Set KUBEBUILDER_ASSETS to use binaries of your own and skip the
// build.
package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/strata-dev/strata/internal/testenv"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "hack/test:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	start := time.Now()
	assets, err := testenv.Build(ctx, os.Stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "hack/test: test binaries ready in %s (%s)\n", assets, time.Since(start).Round(time.Second))
	all := len(args) == 0
	if all {
		args = []string{"-timeout", "30m", "./..."}
	}
	if err := goTest(ctx, "", assets, args); err != nil {
		return err
	}
	if !all {
		return nil
	}
	// The tool modules under hack/ are modules of their own, which
	// `./...` does not reach: their tests run here (the image build).
	for _, dir := range toolModules {
		if err := goTest(ctx, dir, assets, args); err != nil {
			return err
		}
	}
	return nil
}

// toolModules are the modules under hack/ that have tests.
var toolModules = []string{"hack/chart", "hack/image", "hack/promql", "hack/release"}

// goTest runs go test in dir (the repository root when empty); a failing
// test ends the process with go test's exit code.
func goTest(ctx context.Context, dir, assets string, args []string) error {
	cmd := exec.CommandContext(ctx, "go", append([]string{"test"}, args...)...)
	cmd.Dir = dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "KUBEBUILDER_ASSETS="+assets)
	fmt.Fprintf(os.Stderr, "hack/test: go test %v (in %s)\n", args, cmp.Or(dir, "."))
	if err := cmd.Run(); err != nil {
		if exit, ok := err.(*exec.ExitError); ok {
			os.Exit(exit.ExitCode())
		}
		return err
	}
	return nil
}
