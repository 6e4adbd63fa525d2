package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/strata-dev/strata/pkg/source/cluster"
)

// Sources that contradict each other are one-line errors, before any
// file or cluster is read.
func TestSourceConflicts(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"-f and --with-file", []string{"effective", "-f", "x.yaml", "--with-file", "y.yaml"}, []string{"--with-file", "cannot be used together"}},
		{"-f and --kubeconfig", []string{"status", "-f", "x.yaml", "--kubeconfig", "k"}, []string{"--kubeconfig", "-f reads only files", "--with-file"}},
		{"-f and --context", []string{"status", "-f", "x.yaml", "--context", "prod"}, []string{"--context"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := strata(t, "", c.args...)
			if code != 1 || out != "" || strings.Count(errOut, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and one line", code, out, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q does not contain %q", errOut, w)
				}
			}
		})
	}
}

// namespaceScope is kubectl's: -A, else -n, else the context's namespace;
// files are listed whole unless -n narrows them.
func TestNamespaceScope(t *testing.T) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: "https://127.0.0.1:1"}
	cfg.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", Namespace: "baker"}
	cfg.CurrentContext = "c"
	kc := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, kc); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		args   []string
		wantNS string
		all    bool
	}{
		{"no kubeconfig", nil, "default", false},
		{"context namespace", []string{"--kubeconfig", kc}, "baker", false},
		{"-n", []string{"--kubeconfig", kc, "-n", "charlie"}, "charlie", false},
		{"-A", []string{"--kubeconfig", kc, "-A"}, "", true},
		{"files", []string{"-f", "x.yaml"}, "", true},
		{"files -n", []string{"-f", "x.yaml", "-n", "charlie"}, "charlie", false},
		{"with-file", []string{"--with-file", "x.yaml", "--kubeconfig", kc}, "baker", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var f sourceFlags
			cmd := &cobra.Command{}
			f.bind(cmd)
			if err := cmd.ParseFlags(c.args); err != nil {
				t.Fatal(err)
			}
			ns, all := f.namespaceScope()
			if ns != c.wantNS || all != c.all {
				t.Errorf("namespaceScope() = %q, %v; want %q, %v", ns, all, c.wantNS, c.all)
			}
		})
	}
}

// Files given with --with-file are read before the cluster is: a bad file
// is reported as it is with -f.
func TestWithFileBadInput(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: v1\nmetadata: {name: x}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := strata(t, "", "effective", "--with-file", bad, "--kubeconfig", writeKubeconfig(t, "https://127.0.0.1:1"))
	if code != 1 || out != "" || !strings.Contains(errOut, "bad.yaml: document 1") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// A command asked about a kind it could not read says so instead of
// answering "none".
func TestReadable(t *testing.T) {
	color := schema.GroupVersionKind{Group: "policies.controller.io", Version: "v1", Kind: "ColorPolicy"}
	f := sourceFlags{unreadable: []cluster.Unreadable{{GVK: color, Reason: metav1.StatusReasonForbidden, Message: `colorpolicies.policies.controller.io is forbidden: User "u" cannot list resource "colorpolicies"`}}}
	if err := f.readable(schema.GroupKind{Group: "gateway.networking.k8s.io", Kind: "Gateway"}); err != nil {
		t.Errorf("Gateway: %v", err)
	}
	err := f.readable(color.GroupKind())
	if err == nil || !strings.Contains(err.Error(), "cannot read ColorPolicy.policies.controller.io (forbidden)") || !strings.Contains(err.Error(), `User "u"`) {
		t.Errorf("ColorPolicy: %v", err)
	}
}
