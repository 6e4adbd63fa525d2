// Package testenv runs a real kube-apiserver and etcd for Strata's
// integration tests (controller-runtime envtest), with the Gateway API CRDs
// of the pinned gateway-api module and Strata's own CRDs installed. The
// binaries are built from the tools module in hack/envtest into
// bin/envtest by Build, which the README's test command (hack/test) calls
// before go test; tests only look them up (Assets).
package testenv

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// KubernetesVersion is the kube-apiserver built for tests; it must match
// the k8s.io/kubernetes requirement of hack/envtest/go.mod.
const KubernetesVersion = "v1.37.1"

// Root returns the repository root (the folder holding go.mod).
func Root() (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("testenv: cannot locate source file")
	}
	return filepath.Abs(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Assets returns the folder holding kube-apiserver and etcd: the folder
// KUBEBUILDER_ASSETS names, else bin/envtest when Build has made it for
// the current hack/envtest module. Tests never build (a build takes
// minutes): a missing or stale build is an error that says what to run.
func Assets() (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, nil
	}
	root, err := Root()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "bin", "envtest")
	if ok, _, err := built(root, dir); err != nil || !ok {
		if err != nil {
			return "", err
		}
		return "", fmt.Errorf("testenv: kube-apiserver and etcd are not built for this checkout in %s; "+
			"run the README's test command (go run ./hack/test), which builds them before it runs go test, "+
			"or `go run ./hack/test -run '^$' ./internal/testenv` to build them only, or set KUBEBUILDER_ASSETS", dir)
	}
	return dir, nil
}

// stampFile records, in bin/envtest, what the binaries were built from.
const stampFile = ".built-from"

// built reports whether dir holds binaries built from the current module,
// and the stamp they must have.
func built(root, dir string) (bool, string, error) {
	want, err := stamp(root)
	if err != nil {
		return false, "", err
	}
	got, err := os.ReadFile(filepath.Join(dir, stampFile))
	return err == nil && string(got) == want, want, nil
}

// stamp is what the binaries are built from: the Kubernetes version and a
// digest of the hack/envtest module (go.mod, go.sum, the etcd command).
func stamp(root string) (string, error) {
	h := sha256.New()
	fmt.Fprintln(h, KubernetesVersion)
	for _, f := range []string{"go.mod", "go.sum", filepath.Join("etcd", "main.go")} {
		b, err := os.ReadFile(filepath.Join(root, "hack", "envtest", f))
		if err != nil {
			return "", fmt.Errorf("testenv: %w", err)
		}
		fmt.Fprintf(h, "%s %d\n", f, len(b))
		h.Write(b)
	}
	return fmt.Sprintf("%s %x\n", KubernetesVersion, h.Sum(nil)), nil
}

// Build builds kube-apiserver and etcd from the tools module in
// hack/envtest into bin/envtest, unless KUBEBUILDER_ASSETS is set or they
// are built from the current module, and returns their folder. Progress
// goes to w, a line every 30 s; no deadline but ctx's. A file lock makes
// concurrent callers wait for one build.
func Build(ctx context.Context, w io.Writer) (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		fmt.Fprintf(w, "testenv: using KUBEBUILDER_ASSETS=%s\n", dir)
		return dir, nil
	}
	root, err := Root()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "bin", "envtest")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("testenv: lock %s: %w", lock.Name(), err)
	}
	defer func() { _ = syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) }()

	ok, want, err := built(root, dir)
	if err != nil {
		return "", err
	}
	if ok {
		return dir, nil
	}
	tools := filepath.Join(root, "hack", "envtest")
	v := "k8s.io/component-base/version"
	builds := []struct{ out, pkg, ldflags string }{
		{"etcd", "./etcd", "-s -w"},
		{"kube-apiserver", "k8s.io/kubernetes/cmd/kube-apiserver", strings.Join([]string{"-s -w",
			"-X " + v + ".gitVersion=" + KubernetesVersion,
			"-X " + v + ".gitMajor=1", "-X " + v + ".gitMinor=37",
			"-X " + v + ".gitTreeState=clean"}, " ")},
	}
	for _, b := range builds {
		if err := build(ctx, w, tools, filepath.Join(dir, b.out), b.pkg, b.ldflags); err != nil {
			return "", err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, stampFile), []byte(want), 0o644); err != nil {
		return "", err
	}
	return dir, nil
}

// build runs one `go build` in the tools module, reporting every 30 s.
func build(ctx context.Context, w io.Writer, tools, out, pkg, ldflags string) error {
	start := time.Now()
	name := filepath.Base(out)
	fmt.Fprintf(w, "testenv: building %s from Go modules (once per checkout; minutes on a first run)...\n", name)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", ldflags, "-o", out+".tmp", pkg)
	cmd.Dir = tools
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("testenv: build %s in %s: %w", name, tools, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(30 * time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("testenv: build %s in %s: %w", name, tools, err)
			}
			if err := os.Rename(out+".tmp", out); err != nil {
				return err
			}
			fmt.Fprintf(w, "testenv: built %s in %s\n", name, time.Since(start).Round(time.Second))
			return nil
		case <-tick.C:
			fmt.Fprintf(w, "testenv: still building %s (%s so far)\n", name, time.Since(start).Round(time.Second))
		}
	}
}

// CRDPaths are the CRD folders every test server gets: the Gateway API
// standard channel of the pinned module and Strata's own CRDs.
func CRDPaths() ([]string, error) { return ChannelCRDPaths("standard") }

// ChannelCRDPaths are CRDPaths with the Gateway API CRDs of channel
// ("standard" or "experimental", a superset: install one, not both).
func ChannelCRDPaths(channel string) ([]string, error) {
	root, err := Root()
	if err != nil {
		return nil, err
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/gateway-api").Output()
	if err != nil {
		return nil, fmt.Errorf("testenv: locate sigs.k8s.io/gateway-api: %w", err)
	}
	gw := strings.TrimSpace(string(out))
	return []string{
		filepath.Join(gw, "config", "crd", channel),
		filepath.Join(root, "config", "crd", "bases"),
	}, nil
}

// Env is a running API server.
type Env struct {
	Config *rest.Config
	env    *envtest.Environment
}

// Start runs kube-apiserver and etcd with the CRDs installed, plus any
// extra CRD folders or files.
func Start(extraCRDs ...string) (*Env, error) {
	paths, err := CRDPaths()
	if err != nil {
		return nil, err
	}
	return StartWith(Options{CRDs: append(paths, extraCRDs...)})
}

// Options are what StartWith runs.
type Options struct {
	// CRDs are the CRD folders or files to install.
	CRDs []string
	// APIServerArgs are extra kube-apiserver flags, by name without the
	// dashes, such as {"runtime-config": {"api/all=true"}}.
	APIServerArgs map[string][]string
	// RBAC runs kube-apiserver with --authorization-mode=RBAC explicitly,
	// so a test of refusals cannot pass on a server that allows
	// everything. There is no aggregation controller (see Aggregate).
	RBAC bool
}

// StartWith runs kube-apiserver and etcd as o says.
func StartWith(o Options) (*Env, error) {
	assets, err := Assets()
	if err != nil {
		return nil, err
	}
	e := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     o.CRDs,
		ErrorIfCRDPathMissing: true,
		// A bound on a hang: envtest's 20 s are overrun on loaded cores.
		ControlPlaneStartTimeout: 5 * time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
	for name, values := range o.APIServerArgs {
		e.ControlPlane.GetAPIServer().Configure().Append(name, values...)
	}
	if o.RBAC {
		e.ControlPlane.GetAPIServer().Configure().Set("authorization-mode", "RBAC")
	}
	cfg, err := e.Start()
	if err != nil {
		return nil, fmt.Errorf("testenv: start kube-apiserver: %w", err)
	}
	return &Env{Config: cfg, env: e}, nil
}

// Stop shuts the API server and etcd down.
func (e *Env) Stop() error { return e.env.Stop() }

// KubeConfig adds a user in groups to the server, authenticated by a
// client certificate, and returns a kubeconfig file's contents for it.
func (e *Env) KubeConfig(user string, groups ...string) ([]byte, error) {
	u, err := e.env.AddUser(envtest.User{Name: user, Groups: groups}, nil)
	if err != nil {
		return nil, fmt.Errorf("testenv: add user %s: %w", user, err)
	}
	return u.KubeConfig()
}

// Impersonating is the server's admin configuration acting as user in
// groups (client-go impersonation): requests are authorized as that user.
func (e *Env) Impersonating(user string, groups ...string) *rest.Config {
	cfg := rest.CopyConfig(e.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
	return cfg
}

// Aggregate emulates kube-controller-manager's clusterrole-aggregation
// controller, which envtest does not run: role's rules become those of
// every role among from whose labels match its aggregationRule.
func Aggregate(role *rbacv1.ClusterRole, from ...*rbacv1.ClusterRole) error {
	if role.AggregationRule == nil {
		return nil
	}
	var rules []rbacv1.PolicyRule
	for _, sel := range role.AggregationRule.ClusterRoleSelectors {
		s, err := metav1.LabelSelectorAsSelector(&sel)
		if err != nil {
			return fmt.Errorf("testenv: aggregate into %s: %w", role.Name, err)
		}
		for _, r := range from {
			if r.Name != role.Name && s.Matches(labels.Set(r.Labels)) {
				rules = append(rules, r.Rules...)
			}
		}
	}
	role.Rules = rules
	return nil
}

// StartTWith is StartT with options.
func StartTWith(tb testing.TB, o Options) *Env {
	tb.Helper()
	env, err := StartWith(o)
	return stopped(tb, env, err)
}

// StartT starts an API server for one test, fails the test if it cannot,
// and stops it when the test ends.
func StartT(tb testing.TB, extraCRDs ...string) *Env {
	tb.Helper()
	env, err := Start(extraCRDs...)
	return stopped(tb, env, err)
}

// stopped fails tb on err, else stops env when tb ends.
func stopped(tb testing.TB, env *Env, err error) *Env {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := env.Stop(); err != nil {
			tb.Errorf("stop API server: %v", err)
		}
	})
	return env
}
