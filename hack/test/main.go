// Command test is the README's test command: it builds kube-apiserver and
// etcd into bin/envtest (internal/testenv.Build; minutes on a first run)
// and makes sure a Chromium is there for the web view's browser tests
// (STRATA_CHROMIUM, else /usr/bin/chromium, else Debian's package when
// root and apt-get allow; otherwise it says what to install), then runs
// `go test` with KUBEBUILDER_ASSETS set, so building never counts against
// a test's timeout. With no arguments it runs `go test -timeout 30m ./...`
// and the same in each tool module under hack/ that has tests; arguments
// replace those and run in the root module only.
//
//	go run ./hack/test [go test flags and packages]
package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
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
	if err := ensureChromium(ctx, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "hack/test: %v\n", err)
	}
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
	// `./...` does not reach the tool modules under hack/.
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

// chromiumPath is where the browser tests look for Chromium when
// STRATA_CHROMIUM is not set: Debian's chromium package puts it there.
const chromiumPath = "/usr/bin/chromium"

// ensureChromium makes sure the browser the web view's tests drive is
// installed, or returns an error naming what to install.
func ensureChromium(ctx context.Context, w io.Writer) error {
	if p := os.Getenv("STRATA_CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("STRATA_CHROMIUM=%s: %w; the browser tests will fail", p, err)
		}
		return nil
	}
	if _, err := os.Stat(chromiumPath); err == nil {
		return nil
	}
	const advice = "install it (apt-get install chromium) or set STRATA_CHROMIUM=/path/to/chromium; the browser tests will fail until then"
	apt, err := exec.LookPath("apt-get")
	if err != nil || os.Geteuid() != 0 {
		return fmt.Errorf("%s not found and this machine does not let hack/test install it (needs root and apt-get): %s", chromiumPath, advice)
	}
	fmt.Fprintf(w, "hack/test: %s not found: installing Debian's chromium package for the browser tests\n", chromiumPath)
	for _, args := range [][]string{{"update"}, {"install", "-y", "--no-install-recommends", "chromium"}} {
		cmd := exec.CommandContext(ctx, apt, args...)
		cmd.Stdout, cmd.Stderr = w, w
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		fmt.Fprintf(w, "hack/test: apt-get %s\n", strings.Join(args, " "))
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("apt-get %s: %w: %s", strings.Join(args, " "), err, advice)
		}
	}
	if _, err := os.Stat(chromiumPath); err != nil {
		return fmt.Errorf("installed chromium, yet %s is missing: %s", chromiumPath, advice)
	}
	return nil
}
