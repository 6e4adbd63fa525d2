package chart

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"

	"helm.sh/helm/v3/pkg/action"
	helmchart "helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/strvals"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// Paths from this folder (go test runs in the package's folder).
const (
	chartDir  = "../../charts/strata"
	configDir = "../../config"
)

// loadChart is charts/strata as Helm loads it (Chart.yaml, values.yaml,
// values.schema.json, templates/, crds/), once per test binary.
var loadChart = sync.OnceValues(func() (*helmchart.Chart, error) {
	return loader.Load(chartDir)
})

// release is what one render produced.
type release struct {
	// objs are the templates' objects, in Helm's install order.
	objs []*unstructured.Unstructured
	// notes is NOTES.txt rendered.
	notes string
}

// render is `helm template <name> charts/strata --namespace <namespace>
// --values <values>`: Helm's install action in client-only dry-run mode,
// which merges values.yaml with values, validates the result against
// values.schema.json, and renders the templates and NOTES.txt. values is
// a values file's YAML.
func render(t *testing.T, name, namespace, values string) (*release, error) {
	t.Helper()
	vals := map[string]any{}
	if err := yaml.Unmarshal([]byte(values), &vals); err != nil {
		t.Fatalf("values %q: %v", values, err)
	}
	return renderValues(t, name, namespace, vals)
}

// renderSet is render with values given as `helm template --set set`
// would: numbers are int64 there, float64 from a values file.
func renderSet(t *testing.T, set string) (*release, error) {
	t.Helper()
	vals, err := strvals.Parse(set)
	if err != nil {
		t.Fatalf("--set %s: %v", set, err)
	}
	return renderValues(t, "strata", "strata-system", vals)
}

func renderValues(t *testing.T, name, namespace string, vals map[string]any) (*release, error) {
	t.Helper()
	ch, err := loadChart()
	if err != nil {
		t.Fatalf("load %s: %v", chartDir, err)
	}
	install := action.NewInstall(&action.Configuration{Log: func(format string, v ...any) { t.Logf("helm: "+format, v...) }})
	install.DryRun = true
	install.ClientOnly = true
	install.Replace = true
	install.ReleaseName = name
	install.Namespace = namespace
	rel, err := install.Run(ch, vals)
	if err != nil {
		return nil, err
	}
	objs, err := decodeYAML([]byte(rel.Manifest))
	if err != nil {
		t.Fatalf("rendered manifest: %v\n%s", err, rel.Manifest)
	}
	return &release{objs: objs, notes: rel.Info.Notes}, nil
}

// mustRender is render for values the chart accepts.
func mustRender(t *testing.T, values string) *release {
	t.Helper()
	r, err := render(t, "strata", "strata-system", values)
	if err != nil {
		t.Fatalf("helm template with values %q: %v", values, err)
	}
	return r
}

// crds are the chart's crds/ folder, which Helm installs before the
// templates (and never templates).
func crds(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	ch, err := loadChart()
	if err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for _, f := range ch.CRDObjects() {
		docs, err := decodeYAML(f.File.Data)
		if err != nil {
			t.Fatalf("%s: %v", f.Filename, err)
		}
		objs = append(objs, docs...)
	}
	if len(objs) == 0 {
		t.Fatal("the chart has no CRDs")
	}
	return objs
}

// find returns the rendered object of kind and name, or nil.
func (r *release) find(kind, name string) *unstructured.Unstructured {
	for _, o := range r.objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}

// kustomizeBuild is `kustomize build config/<dir>`.
func kustomizeBuild(dir string) ([]*unstructured.Unstructured, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), configDir+"/"+dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build config/%s: %w", dir, err)
	}
	out, err := m.AsYaml()
	if err != nil {
		return nil, err
	}
	return decodeYAML(out)
}

// decodeYAML splits a multi-document YAML stream into objects, skipping
// empty documents (comments only), as kubectl and Helm do.
func decodeYAML(data []byte) ([]*unstructured.Unstructured, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var objs []*unstructured.Unstructured
	for i := 1; ; i++ {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		m := map[string]any{}
		if err := yaml.Unmarshal(doc, &m); err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
		if len(m) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: m}
		if u.GetKind() == "" || u.GetAPIVersion() == "" {
			return nil, fmt.Errorf("document %d: apiVersion and kind are required", i)
		}
		objs = append(objs, u)
	}
}

func describe(o *unstructured.Unstructured) string {
	if o.GetNamespace() != "" {
		return fmt.Sprintf("%s %s/%s", o.GetKind(), o.GetNamespace(), o.GetName())
	}
	return fmt.Sprintf("%s %s", o.GetKind(), o.GetName())
}
