// Package testenv runs a real kube-apiserver and etcd for Strata's
// integration tests (controller-runtime envtest), with the Gateway API CRDs
// of the pinned gateway-api module and Strata's own CRDs installed.
//
// The binaries are built from Go modules by the tools module in
// hack/envtest (no release bucket is reachable from CI), once, into
// bin/envtest at the repository root; later runs reuse them. A file lock
// makes concurrent test packages wait for one build instead of racing.
package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

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

// Assets returns the folder holding kube-apiserver and etcd, building them
// when missing. The first build takes several minutes (about 400 s for
// kube-apiserver on two cores); set KUBEBUILDER_ASSETS to use binaries of
// your own instead.
func Assets(ctx context.Context) (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
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
		out := filepath.Join(dir, b.out)
		if _, err := os.Stat(out); err == nil {
			continue
		}
		start := time.Now()
		fmt.Fprintf(os.Stderr, "testenv: building %s from Go modules (first run only, several minutes)...\n", b.out)
		cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", b.ldflags, "-o", out+".tmp", b.pkg)
		cmd.Dir = tools
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("testenv: build %s in %s: %w", b.out, tools, err)
		}
		if err := os.Rename(out+".tmp", out); err != nil {
			return "", err
		}
		fmt.Fprintf(os.Stderr, "testenv: built %s in %s\n", b.out, time.Since(start).Round(time.Second))
	}
	return dir, nil
}

// CRDPaths are the CRD folders every test server gets: the Gateway API
// standard channel of the pinned module (so CRDs and Go types agree) and
// Strata's own CRDs.
func CRDPaths() ([]string, error) {
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
		filepath.Join(gw, "config", "crd", "standard"),
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
func Start(ctx context.Context, extraCRDs ...string) (*Env, error) {
	assets, err := Assets(ctx)
	if err != nil {
		return nil, err
	}
	paths, err := CRDPaths()
	if err != nil {
		return nil, err
	}
	e := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     append(paths, extraCRDs...),
		ErrorIfCRDPathMissing: true,
	}
	cfg, err := e.Start()
	if err != nil {
		return nil, fmt.Errorf("testenv: start kube-apiserver: %w", err)
	}
	return &Env{Config: cfg, env: e}, nil
}

// Stop shuts the API server and etcd down.
func (e *Env) Stop() error { return e.env.Stop() }

// KubeConfig adds a user to the server, authenticated by a client
// certificate, and returns a kubeconfig file's contents for it. Groups
// decide what the user may do: system:masters may do anything; a user in
// no group may do what RBAC bindings to its name allow.
func (e *Env) KubeConfig(user string, groups ...string) ([]byte, error) {
	u, err := e.env.AddUser(envtest.User{Name: user, Groups: groups}, nil)
	if err != nil {
		return nil, fmt.Errorf("testenv: add user %s: %w", user, err)
	}
	return u.KubeConfig()
}

// StartT starts an API server for one test (allowing the first run the
// minutes it needs to build kube-apiserver), fails the test if it cannot,
// and stops it when the test ends.
func StartT(tb testing.TB, extraCRDs ...string) *Env {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	env, err := Start(ctx, extraCRDs...)
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
