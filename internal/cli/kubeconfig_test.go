package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// TestControllerNoCluster: with no kubeconfig that names a cluster and no
// in-cluster service account, `strata controller` refuses to start and
// says where it looked, instead of connecting to localhost:8080.
func TestControllerNoCluster(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	t.Setenv("KUBERNETES_SERVICE_PORT", "")
	for _, tc := range []struct {
		name       string
		kubeconfig string // $KUBECONFIG
		args       []string
		want       []string
	}{
		{"flag names an empty file", "", []string{"--kubeconfig", empty},
			[]string{"no cluster to connect to", "--kubeconfig " + empty + " (no clusters)", "in-cluster config (KUBERNETES_SERVICE_HOST"}},
		{"KUBECONFIG names missing files", missing + string(os.PathListSeparator) + empty, nil,
			[]string{"KUBECONFIG file " + missing + " (does not exist)", "KUBECONFIG file " + empty + " (no clusters)", "in-cluster config"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tc.kubeconfig)
			var out, errb bytes.Buffer
			args := append([]string{"controller", "--metrics-bind-address=0", "--health-probe-bind-address=0"}, tc.args...)
			if code := Main(args, Streams{In: strings.NewReader(""), Out: &out, Err: &errb}); code != 1 {
				t.Fatalf("exit %d, want 1; stderr: %s", code, errb.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(errb.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, errb.String())
				}
			}
			if strings.Contains(errb.String(), "localhost:8080") {
				t.Errorf("stderr mentions localhost:8080:\n%s", errb.String())
			}
		})
	}
}

// TestControllerRESTConfig: a kubeconfig that names a cluster, or
// --server, is used as kubectl would.
func TestControllerRESTConfig(t *testing.T) {
	dir := t.TempDir()
	kc := filepath.Join(dir, "config")
	const cfg = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://example.test:6443"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`
	if err := os.WriteFile(kc, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	for _, tc := range []struct {
		name, kubeconfig, server, want string
	}{
		{"KUBECONFIG", kc, "", "https://example.test:6443"},
		{"--server", filepath.Join(dir, "missing"), "https://other.test", "https://other.test"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("KUBECONFIG", tc.kubeconfig)
			flags := genericclioptions.NewConfigFlags(true)
			flags.APIServer = &tc.server
			got, err := controllerRESTConfig(flags)
			if err != nil {
				t.Fatal(err)
			}
			if got.Host != tc.want {
				t.Errorf("host %q, want %q", got.Host, tc.want)
			}
		})
	}
}
