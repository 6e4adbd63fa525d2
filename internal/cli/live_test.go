package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/strata-dev/strata/internal/testenv"
	"github.com/strata-dev/strata/pkg/source/files"
)

// The package's tests never read the kubeconfig of whoever runs them: a
// command without -f reads the cluster of the kubeconfig.
func init() {
	_ = os.Setenv("KUBECONFIG", filepath.Join(os.TempDir(), "strata-cli-test-no-kubeconfig"))
	_ = os.Unsetenv("KUBERNETES_SERVICE_HOST")
}

const example3Dir = "../../examples/gep-713/example-3"

// liveCluster is a real API server holding example 3, with kubeconfig
// files for its users.
type liveCluster struct {
	client client.Client
	// admin may read everything; noPolicies everything but ColorPolicies;
	// noCRDs everything but CRDs.
	admin, noPolicies, noCRDs string
}

// startLive starts one API server, applies example 3 (kind.yaml, then
// scenario.yaml as a user would apply it: without creationTimestamp,
// generation or status) and writes the kubeconfigs.
func startLive(t *testing.T) *liveCluster {
	t.Helper()
	env := testenv.StartT(t)
	ctx := t.Context()
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(env.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	lc := &liveCluster{client: c}

	for _, file := range []string{"kind.yaml", "scenario.yaml"} {
		for _, u := range fileObjects(t, filepath.Join(example3Dir, file)) {
			u.SetCreationTimestamp(metav1.Time{})
			u.SetGeneration(0)
			delete(u.Object, "status")
			// A CRD is served a moment after it is Established, and the
			// client discovers it lazily: retry until the create goes in.
			err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
				return c.Create(ctx, u.DeepCopy()) == nil, nil
			})
			if err != nil {
				t.Fatalf("create %s %s: %v", u.GetKind(), u.GetName(), c.Create(ctx, u.DeepCopy()))
			}
			if u.GetKind() == "CustomResourceDefinition" {
				waitEstablished(ctx, t, c, u.GetName())
			}
		}
	}

	// Users who may list what Strata reads, but for one kind.
	rules := map[string]rbacv1.PolicyRule{
		"gateway": {APIGroups: []string{"gateway.networking.k8s.io"}, Resources: []string{"*"}, Verbs: []string{"list"}},
		"core":    {APIGroups: []string{""}, Resources: []string{"services", "namespaces"}, Verbs: []string{"list"}},
		"crds":    {APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"list"}},
		"decls":   {APIGroups: []string{"strata.dev"}, Resources: []string{"policykinds"}, Verbs: []string{"list"}},
		"colors":  {APIGroups: []string{"policies.controller.io"}, Resources: []string{"colorpolicies"}, Verbs: []string{"list"}},
		// Every test server has the blueprint CRDs, whose config kinds are
		// labelled policy kinds.
		"blueprints": {APIGroups: []string{"blueprints.strata.dev"}, Resources: []string{"*"}, Verbs: []string{"list"}},
	}
	for user, without := range map[string]string{"no-policies": "colors", "no-crds": "crds"} {
		role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: user}}
		for _, name := range []string{"gateway", "core", "crds", "decls", "colors", "blueprints"} {
			if name != without {
				role.Rules = append(role.Rules, rules[name])
			}
		}
		if err := c.Create(ctx, role); err != nil {
			t.Fatal(err)
		}
		if err := c.Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: user},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: user},
			Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}},
		}); err != nil {
			t.Fatal(err)
		}
	}

	dir := t.TempDir()
	for _, u := range []struct {
		file   *string
		name   string
		groups []string
	}{
		{&lc.admin, "admin", []string{"system:masters"}},
		{&lc.noPolicies, "no-policies", nil},
		{&lc.noCRDs, "no-crds", nil},
	} {
		kc, err := env.KubeConfig(u.name, u.groups...)
		if err != nil {
			t.Fatal(err)
		}
		*u.file = filepath.Join(dir, u.name+".kubeconfig")
		if err := os.WriteFile(*u.file, kc, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return lc
}

func waitEstablished(ctx context.Context, t *testing.T, c client.Client, name string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := c.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
			return false, err
		}
		for _, cond := range crd.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		t.Fatalf("CRD %s not established: %v", name, err)
	}
}

// fileObjects reads a file's objects as the CLI does.
func fileObjects(t *testing.T, file string) []*unstructured.Unstructured {
	t.Helper()
	docs, err := files.Documents([]string{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []*unstructured.Unstructured
	for _, d := range docs {
		out = append(out, d.Object)
	}
	return out
}

// TestLive runs the commands against a real API server: what strata
// prints about a cluster is what it prints about the same objects in
// files.
func TestLive(t *testing.T) {
	lc := startLive(t)
	t.Run("watch", func(t *testing.T) { testWatch(t, lc) })
	t.Run("watch describe", func(t *testing.T) { testWatchDescribe(t, lc) })
	t.Run("watch status", func(t *testing.T) { testWatchStatus(t, lc) })

	t.Run("effective", func(t *testing.T) {
		want := mustStrata(t, "", "effective", "-f", example3Dir, "-o", "json")
		got := mustStrata(t, "", "effective", "--kubeconfig", lc.admin, "-o", "json")
		sameItems(t, want, got)
	})

	t.Run("status", func(t *testing.T) {
		now := "2026-01-01T00:00:00Z"
		want := mustStrata(t, "", "status", "-f", example3Dir, "--now", now, "-o", "json")
		got := mustStrata(t, "", "status", "--kubeconfig", lc.admin, "--now", now, "-o", "json")
		sameItems(t, want, got)
	})

	// The discoverability commands give the same answers live as on the
	// files the cluster was filled from, byte for byte.
	t.Run("discover", func(t *testing.T) {
		for _, args := range [][]string{
			{"describe", "service/b2", "-n", "default"},
			{"describe", "httproute/r1", "-n", "default"},
			{"explain", "service/b2", "-n", "default", "--field", "/colors/light"},
			{"get", "policies", "-A"},
			{"impact", "colorpolicy/p3", "-n", "default", "--delete"},
			{"graph", "-o", "dot"},
			{"graph", "-o", "mermaid"},
		} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				// The cluster has more than the files: the namespaces every
				// API server makes. Given them too, the files draw the same.
				want := mustStrata(t, builtinNamespaces(t, lc), append(args, "-f", example3Dir, "-f", "-")...)
				got := mustStrata(t, "", append(args, "--kubeconfig", lc.admin)...)
				if want != got {
					t.Errorf("live and offline differ:\n%s", cmp.Diff(want, got))
				}
			})
		}
	})

	// --with-file answers "what if I apply this?": p4 with another dark
	// colour, without namespace (the kubeconfig's, default, as kubectl
	// apply would use), changes b2's effective policy as the same change
	// in the files does, and the cluster is left alone.
	t.Run("with-file", func(t *testing.T) {
		p4 := "apiVersion: policies.controller.io/v1\nkind: ColorPolicy\nmetadata: {name: p4}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r4}]\n  colors: {dark: black, light: green}\n"
		scenario, err := os.ReadFile(filepath.Join(example3Dir, "scenario.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		docs := strings.Split(string(scenario), "\n---\n")
		last := docs[len(docs)-1]
		if !strings.Contains(last, "name: p4") {
			t.Fatalf("scenario.yaml no longer ends with p4: %s", last)
		}
		if !strings.Contains(last, "name: p4\n  namespace: default\n") {
			t.Fatalf("scenario.yaml's p4 is no longer in default: %s", last)
		}
		docs[len(docs)-1] = strings.Replace(last, "dark: olive", "dark: black", 1)
		want := mustStrata(t, strings.Join(docs, "\n---\n"), "effective", "-f", filepath.Join(example3Dir, "kind.yaml"), "-f", "-", "-o", "json")

		file := filepath.Join(t.TempDir(), "p4.yaml")
		if err := os.WriteFile(file, []byte(p4), 0o644); err != nil {
			t.Fatal(err)
		}
		got := mustStrata(t, "", "effective", "--kubeconfig", lc.admin, "--with-file", file, "-o", "json")
		sameItems(t, want, got)
		if !strings.Contains(got, `"/colors/dark": "default/p4"`) || !strings.Contains(got, `"dark": "black"`) {
			t.Errorf("b2 should be dark black from p4:\n%s", got)
		}

		live := &unstructured.Unstructured{}
		live.SetAPIVersion("policies.controller.io/v1")
		live.SetKind("ColorPolicy")
		if err := lc.client.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: "p4"}, live); err != nil {
			t.Fatal(err)
		}
		if dark, _, _ := unstructured.NestedString(live.Object, "spec", "colors", "dark"); dark != "olive" {
			t.Errorf("the cluster's p4 changed: dark is %q", dark)
		}
	})

	// --with-file with a policy kind the cluster does not serve yet: its
	// CRD among the files gives the policy's scope (Namespaced: the
	// kubeconfig's namespace, default) and schema (a typo is dropped
	// with a warning naming the file), as applying both would.
	t.Run("with-file new kind", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "new.yaml")
		crd := "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: sizepolicies.policies.example.com\n  labels: {gateway.networking.k8s.io/policy: inherited}\nspec:\n  group: policies.example.com\n  scope: Namespaced\n  names: {kind: SizePolicy, plural: sizepolicies}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n          spec:\n            type: object\n            properties:\n              targetRefs: {type: array, items: {type: object, x-kubernetes-preserve-unknown-fields: true}}\n              defaults: {type: object, properties: {size: {type: integer}}}\n"
		policy := "apiVersion: policies.example.com/v1\nkind: SizePolicy\nmetadata: {name: s1}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r4}]\n  default: {size: 3}\n"
		if err := os.WriteFile(file, []byte(crd+"---\n"+policy), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := strata(t, "", "get", "policies", "-A", "--kubeconfig", lc.admin, "--with-file", file)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(out, "default/s1") {
			t.Errorf("s1 is not in default:\n%s", out)
		}
		want := "warning: " + file + `: document 2 (SizePolicy.policies.example.com default/s1): unknown field "spec.default"`
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q does not contain %q", errOut, want)
		}
	})

	// The parable's permission error: a user who may not list
	// ColorPolicies (or CRDs, which say which policy kinds exist) gets an
	// answer, and a warning naming the kind and that the answer may be
	// incomplete.
	t.Run("forbidden", func(t *testing.T) {
		for _, c := range []struct{ kubeconfig, kind string }{
			{lc.noPolicies, "ColorPolicy.policies.controller.io"},
			{lc.noCRDs, "CustomResourceDefinition.apiextensions.k8s.io"},
		} {
			out, errOut, code := strata(t, "", "effective", "--kubeconfig", c.kubeconfig, "-o", "json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			want := "warning: could not read " + c.kind + " (forbidden); the answer may be incomplete\n"
			if errOut != want {
				t.Errorf("stderr %q, want %q", errOut, want)
			}
			if len(listItems(t, out)) != 0 {
				t.Errorf("no policies were readable, yet effective policies were printed:\n%s", out)
			}
		}
	})

	t.Run("unreachable", func(t *testing.T) {
		nowhere := writeKubeconfig(t, "https://127.0.0.1:1")
		for _, args := range [][]string{
			{"effective", "--kubeconfig", nowhere},
			{"status", "--kubeconfig", filepath.Join(t.TempDir(), "missing")},
		} {
			out, errOut, code := strata(t, "", args...)
			if code != 1 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "error: ") {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 1 and one line on stderr", args, code, out, errOut)
			}
		}
	})

	// Last: it adds objects the other subtests' files do not have. The
	// blueprint example applied as a user would (no controller runs here),
	// `strata render` on the cluster prints what it prints on the files.
	t.Run("render", func(t *testing.T) {
		objs := fileObjects(t, filepath.Join(bpExample, "gateways.yaml"))
		for _, f := range []string{"classes.yaml", "blueprint.yaml", "configs.yaml"} {
			objs = append(objs, fileObjects(t, filepath.Join(bpExample, f))...)
		}
		for _, u := range objs {
			u.SetCreationTimestamp(metav1.Time{})
			if err := lc.client.Create(t.Context(), u); err != nil {
				t.Fatalf("create %s %s: %v", u.GetKind(), u.GetName(), err)
			}
		}
		for _, args := range [][]string{
			{"render"},
			{"render", "-o", "json"},
			{"render", "--values", "-o", "json"},
			{"render", "gateway/shop", "-n", "team-a", "--values", "--field", "/tags"},
			{"explain", "gateway/shop", "-n", "team-a", "--field", "/tags/exposure", "--kind", "BlueprintValues"},
		} {
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				want := mustStrata(t, "", append(args, "-f", bpExample)...)
				got := mustStrata(t, "", append(args, "--kubeconfig", lc.admin)...)
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("cluster and files differ (-files +cluster):\n%s", d)
				}
			})
		}
	})
}

// builtinNamespaces is YAML of what every API server makes that example 3
// does not have: Namespaces (default, kube-system, ...) and Services (the
// kubernetes Service), for files to match the cluster.
func builtinNamespaces(t *testing.T, lc *liveCluster) string {
	t.Helper()
	inFiles := map[string]bool{}
	for _, u := range fileObjects(t, filepath.Join(example3Dir, "scenario.yaml")) {
		inFiles[u.GetKind()+" "+u.GetNamespace()+"/"+u.GetName()] = true
	}
	var b strings.Builder
	var nss corev1.NamespaceList
	if err := lc.client.List(t.Context(), &nss); err != nil {
		t.Fatal(err)
	}
	for _, ns := range nss.Items {
		if !inFiles["Namespace /"+ns.Name] {
			fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n", ns.Name)
		}
	}
	var svcs corev1.ServiceList
	if err := lc.client.List(t.Context(), &svcs); err != nil {
		t.Fatal(err)
	}
	for _, svc := range svcs.Items {
		if inFiles["Service "+svc.Namespace+"/"+svc.Name] {
			continue
		}
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n  ports:\n", svc.Name, svc.Namespace)
		for _, p := range svc.Spec.Ports {
			fmt.Fprintf(&b, "  - {name: %q, port: %d}\n", p.Name, p.Port)
		}
	}
	return b.String()
}

// mustStrata runs strata and fails the test unless it exits 0 with nothing on
// stderr.
func mustStrata(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, errOut, code := strata(t, stdin, args...)
	if code != 0 || errOut != "" {
		t.Fatalf("strata %v: exit %d, stderr %q", args, code, errOut)
	}
	return out
}

// sameItems compares the printed Lists of files (want) and of a cluster.
func sameItems(t *testing.T, want, got string) {
	t.Helper()
	w := listItems(t, want)
	if len(w) == 0 {
		t.Fatalf("nothing to compare: %s", want)
	}
	if d := cmp.Diff(w, listItems(t, got)); d != "" {
		t.Errorf("the cluster's answer differs from the files' (-files +cluster):\n%s", d)
	}
}

// listItems are a printed List's items with what differs between files and a
// cluster taken out: server-set metadata (uid, resourceVersion, and
// creationTimestamp: the files' are invented) and the condition fields
// that depend on it (lastTransitionTime, observedGeneration).
func listItems(t *testing.T, list string) []any {
	t.Helper()
	var l struct{ Items []any }
	if err := json.Unmarshal([]byte(list), &l); err != nil {
		t.Fatalf("%v: %s", err, list)
	}
	for _, it := range l.Items {
		if md, ok := it.(map[string]any)["metadata"].(map[string]any); ok {
			for k := range md {
				switch k {
				case "name", "namespace", "labels", "annotations":
				default:
					delete(md, k)
				}
			}
		}
	}
	var strip func(v any)
	strip = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			delete(v, "lastTransitionTime")
			delete(v, "observedGeneration")
			for _, x := range v {
				strip(x)
			}
		case []any:
			for _, x := range v {
				strip(x)
			}
		}
	}
	strip(l.Items)
	return l.Items
}

// writeKubeconfig writes a kubeconfig for a server without credentials.
func writeKubeconfig(t *testing.T, server string) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: server, InsecureSkipTLSVerify: true}
	cfg.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: "t"}
	cfg.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
	cfg.CurrentContext = "c"
	file := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, file); err != nil {
		t.Fatal(err)
	}
	return file
}
