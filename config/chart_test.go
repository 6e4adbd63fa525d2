package config

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"text/template"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// chartDir is the Helm chart, rendered here without Helm (which CI does
// not have and cannot download).
const chartDir = "../charts/strata"

// renderChart stands in for `helm template`: Helm's template language is
// text/template plus functions, and the chart's templates use only the few
// below, which behave as Helm's (sprig's) do. A template calling any other
// function fails to parse here, which keeps the chart simple. Values are
// values.yaml with the top-level keys of set replaced.
func renderChart(release, namespace string, set map[string]any) ([]*unstructured.Unstructured, error) {
	values := map[string]any{}
	if err := readYAML(filepath.Join(chartDir, "values.yaml"), &values); err != nil {
		return nil, err
	}
	for k, v := range set {
		values[k] = v
	}
	chart := map[string]any{}
	if err := readYAML(filepath.Join(chartDir, "Chart.yaml"), &chart); err != nil {
		return nil, err
	}
	data := map[string]any{
		"Values":  values,
		"Release": map[string]any{"Name": release, "Namespace": namespace, "Service": "Helm"},
		"Chart":   map[string]any{"Name": chart["name"], "Version": chart["version"], "AppVersion": chart["appVersion"]},
	}

	var root *template.Template
	funcs := template.FuncMap{
		"include": func(name string, data any) (string, error) {
			var b strings.Builder
			err := root.ExecuteTemplate(&b, name, data)
			return b.String(), err
		},
		"trunc": func(n int, s string) string {
			if len(s) > n {
				return s[:n]
			}
			return s
		},
		"trimSuffix": func(suffix, s string) string { return strings.TrimSuffix(s, suffix) },
		"contains":   func(substr, s string) bool { return strings.Contains(s, substr) },
		"toYaml": func(v any) (string, error) {
			b, err := yaml.Marshal(v)
			return strings.TrimSuffix(string(b), "\n"), err
		},
		"nindent": func(n int, s string) string {
			pad := strings.Repeat(" ", n)
			return "\n" + pad + strings.ReplaceAll(s, "\n", "\n"+pad)
		},
		"quote": func(v any) string { return fmt.Sprintf("%q", fmt.Sprint(v)) },
	}
	root = template.New(chartDir).Funcs(funcs).Option("missingkey=zero")
	files, err := filepath.Glob(filepath.Join(chartDir, "templates", "*"))
	if err != nil {
		return nil, err
	}
	var manifests []string
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if _, err := root.New(filepath.Base(f)).Parse(string(text)); err != nil {
			return nil, err
		}
		if !strings.HasPrefix(filepath.Base(f), "_") && strings.HasSuffix(f, ".yaml") {
			manifests = append(manifests, filepath.Base(f))
		}
	}
	var objs []*unstructured.Unstructured
	for _, name := range manifests {
		var b bytes.Buffer
		if err := root.ExecuteTemplate(&b, name, data); err != nil {
			return nil, err
		}
		// Helm prints a missing value as "" rather than "<no value>".
		out := strings.ReplaceAll(b.String(), "<no value>", "")
		docs, err := decodeYAML([]byte(out))
		if err != nil {
			return nil, fmt.Errorf("%s: %w\n%s", name, err, out)
		}
		objs = append(objs, docs...)
	}
	return objs, nil
}

func readYAML(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// TestChartCRDsAreGenerated: Helm installs CRDs from the chart's crds/
// folder, which hack/generate.sh copies from config/crd/bases.
func TestChartCRDsAreGenerated(t *testing.T) {
	want, err := filepath.Glob("crd/bases/*.yaml")
	if err != nil || len(want) == 0 {
		t.Fatalf("no CRDs in config/crd/bases (%v)", err)
	}
	got, err := filepath.Glob(filepath.Join(chartDir, "crds", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	base := func(paths []string) (out []string) {
		for _, p := range paths {
			out = append(out, filepath.Base(p))
		}
		return out
	}
	if d := cmp.Diff(base(want), base(got)); d != "" {
		t.Fatalf("charts/strata/crds differs from config/crd/bases; run hack/generate.sh (-bases +chart):\n%s", d)
	}
	for _, p := range want {
		a, _ := os.ReadFile(p)
		b, _ := os.ReadFile(filepath.Join(chartDir, "crds", filepath.Base(p)))
		if !bytes.Equal(a, b) {
			t.Errorf("charts/strata/crds/%s differs from config/crd/bases; run hack/generate.sh", filepath.Base(p))
		}
	}
}

// TestChartValues checks that each value reaches the object it configures.
func TestChartValues(t *testing.T) {
	cases := []struct {
		name string
		set  map[string]any
		// wantArgs are the controller's arguments.
		wantArgs []string
		// wantKinds are the kinds rendered, in template file order.
		wantRoles []string
		wantKinds []string
		wantImage string
	}{{
		name:      "defaults",
		wantArgs:  []string{"controller", "--leader-elect", "--metrics-bind-address=:8080", "--health-probe-bind-address=:8081", "--target-qps=20"},
		wantRoles: []string{"strata", "strata-base", "strata-effectivepolicy-viewer"},
		wantKinds: []string{"ClusterRole", "ClusterRole", "ClusterRole", "ClusterRoleBinding", "Deployment", "Role", "RoleBinding", "Service", "ServiceAccount"},
		wantImage: "ghcr.io/strata-dev/strata:latest",
	}, {
		name: "everything set",
		set: map[string]any{
			"controllerName":    "example.com/strata",
			"leaderElection":    false,
			"effectivePolicies": false,
			"targetQPS":         2.5,
			"image":             map[string]any{"repository": "registry.example/strata", "tag": "v0.1.0", "pullPolicy": "Always"},
			"policyKinds": []any{
				map[string]any{"group": "policies.controller.io", "resource": "colorpolicies", "managed": true},
				map[string]any{"group": "example.com", "resource": "retrypolicies"},
			},
		},
		wantArgs: []string{"controller", "--metrics-bind-address=:8080", "--health-probe-bind-address=:8081",
			"--controller-name=example.com/strata", "--effective-policies=false", "--target-qps=2.5"},
		wantRoles: []string{"strata", "strata-base", "strata-colorpolicies.policies.controller.io", "strata-retrypolicies.example.com", "strata-effectivepolicy-viewer"},
		wantKinds: []string{"ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRoleBinding", "Deployment", "Service", "ServiceAccount"},
		wantImage: "registry.example/strata:v0.1.0",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := renderChart("strata", "strata-system", tc.set)
			if err != nil {
				t.Fatal(err)
			}
			var kinds, roles []string
			var deploy *unstructured.Unstructured
			for _, o := range objs {
				kinds = append(kinds, o.GetKind())
				switch o.GetKind() {
				case "ClusterRole":
					roles = append(roles, o.GetName())
				case "Deployment":
					deploy = o
				}
			}
			slices.Sort(kinds)
			if d := cmp.Diff(tc.wantKinds, kinds); d != "" {
				t.Errorf("kinds (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantRoles, roles); d != "" {
				t.Errorf("ClusterRoles (-want +got):\n%s", d)
			}
			if deploy == nil {
				t.Fatal("no Deployment rendered")
			}
			containers, _, _ := unstructured.NestedSlice(deploy.Object, "spec", "template", "spec", "containers")
			c := containers[0].(map[string]any)
			var args []string
			for _, a := range c["args"].([]any) {
				args = append(args, a.(string))
			}
			if d := cmp.Diff(tc.wantArgs, args); d != "" {
				t.Errorf("args (-want +got):\n%s", d)
			}
			if c["image"] != tc.wantImage {
				t.Errorf("image = %v, want %s", c["image"], tc.wantImage)
			}
		})
	}
}

// TestChartMatchesKustomize: the chart and config/default install the
// same pod, apart from names, labels and the chart's explicit
// --target-qps (config/ keeps the controller's default).
func TestChartMatchesKustomize(t *testing.T) {
	chart, err := renderChart("strata", "strata-system", nil)
	if err != nil {
		t.Fatal(err)
	}
	kust, err := kustomizeBuild("default")
	if err != nil {
		t.Fatal(err)
	}
	podSpec := func(objs []*unstructured.Unstructured) map[string]any {
		for _, o := range objs {
			if o.GetKind() == "Deployment" {
				spec, _, _ := unstructured.NestedMap(o.Object, "spec", "template", "spec")
				delete(spec, "serviceAccountName")
				containers := spec["containers"].([]any)
				c := containers[0].(map[string]any)
				delete(c, "imagePullPolicy")
				c["args"] = slices.DeleteFunc(c["args"].([]any), func(a any) bool {
					return strings.HasPrefix(a.(string), "--target-qps=")
				})
				return spec
			}
		}
		return nil
	}
	a, b := podSpec(kust), podSpec(chart)
	if a == nil || b == nil || !reflect.DeepEqual(a, b) {
		t.Errorf("pod specs differ (-kustomize +chart):\n%s", cmp.Diff(a, b))
	}
}
