// Tests that Strata's install manifests in config/ are accepted by a real
// API server (hack/chart does the same for the Helm chart, as Helm renders
// it), and that the generated CRDs validate what they should. Objects are
// applied with server-side apply in dry-run mode, so admission and
// validation run in full but nothing is created, except what a dry run
// needs to exist: the namespace, and the CRDs (which testenv installs
// anyway).
package config

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/strata-dev/strata/internal/testenv"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/sink/effectivepolicy"
	"github.com/strata-dev/strata/pkg/source/files"
)

// fieldOwner is the server-side apply field manager of these tests.
const fieldOwner = client.FieldOwner("strata-config-test")

// warnings collects the API server's warning headers (deprecated APIs, Pod
// Security violations of workloads): an install manifest should cause
// none.
type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, text)
}

// take returns the warnings since the last call.
func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	l := w.list
	w.list = nil
	return l
}

func TestInstall(t *testing.T) {
	ctx := t.Context()
	env := testenv.StartT(t)
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, policykind.AddToScheme, effectivepolicy.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	cfg := *env.Config
	warn := &warnings{}
	cfg.WarningHandlerWithContext = warn
	c, err := client.New(&cfg, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}

	// The namespace for real, so that dry runs of namespaced objects find
	// it; its Pod Security labels make the Deployment's pod template
	// checked against "restricted".
	ns, err := decodeFile("manager/namespace.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range ns {
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(o), fieldOwner, client.ForceOwnership); err != nil {
			t.Fatalf("apply %s: %v", describe(o), err)
		}
	}

	// dryRun applies objects and fails the test on any error or warning.
	dryRun := func(t *testing.T, objs []*unstructured.Unstructured) {
		t.Helper()
		if len(objs) == 0 {
			t.Fatal("no objects")
		}
		for _, o := range objs {
			if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(o), fieldOwner, client.ForceOwnership, client.DryRunAll); err != nil {
				t.Errorf("apply %s: %v", describe(o), err)
			}
			for _, w := range warn.take() {
				t.Errorf("apply %s: warning: %s", describe(o), w)
			}
		}
	}

	t.Run("files", func(t *testing.T) {
		for _, dir := range []string{"crd/bases", "rbac", "manager", "samples", "blueprints", "view"} {
			files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if filepath.Base(f) == "kustomization.yaml" {
					continue
				}
				t.Run(f, func(t *testing.T) {
					objs, err := decodeFile(f)
					if err != nil {
						t.Fatal(err)
					}
					dryRun(t, objs)
				})
			}
		}
	})

	t.Run("kustomize config/default", func(t *testing.T) {
		objs, err := kustomizeBuild("default")
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, o := range objs {
			kinds = append(kinds, o.GetKind())
			if o.GetNamespace() != "" && o.GetNamespace() != "strata-system" {
				t.Errorf("%s is in namespace %s, want strata-system", describe(o), o.GetNamespace())
			}
		}
		slices.Sort(kinds)
		want := []string{"ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRole", "ClusterRoleBinding", "ClusterRoleBinding", "CustomResourceDefinition", "CustomResourceDefinition",
			"CustomResourceDefinition", "CustomResourceDefinition", "CustomResourceDefinition", "Deployment", "Namespace", "Role", "RoleBinding", "Service", "ServiceAccount"}
		if d := cmp.Diff(want, kinds); d != "" {
			t.Errorf("kinds (-want +got):\n%s", d)
		}
		dryRun(t, objs)
	})

	t.Run("kustomize config/webhook", func(t *testing.T) {
		objs, err := kustomizeBuild("webhook")
		if err != nil {
			t.Fatal(err)
		}
		var args []string
		for _, o := range objs {
			if o.GetKind() == "Deployment" {
				cs, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
				a, _, _ := unstructured.NestedStringSlice(cs[0].(map[string]any), "args")
				args = a
			}
		}
		if !slices.Contains(args, "--webhook") {
			t.Errorf("controller args %q lack --webhook", args)
		}
		dryRun(t, objs)
	})

	t.Run("kustomize config/samples", func(t *testing.T) {
		objs, err := kustomizeBuild("samples")
		if err != nil {
			t.Fatal(err)
		}
		dryRun(t, objs)
	})

	t.Run("kustomize config/view", func(t *testing.T) {
		objs, err := kustomizeBuild("view")
		if err != nil {
			t.Fatal(err)
		}
		dryRun(t, objs)
	})

	t.Run("PolicyKind", func(t *testing.T) {
		testPolicyKind(t, c)
	})

	t.Run("EffectivePolicy", func(t *testing.T) {
		testEffectivePolicy(t, c)
	})
}

// testPolicyKind checks the PolicyKind CRD against its Go type: the
// example declaration is accepted and reads back the same, and the
// validation markers reject what Compile would.
func testPolicyKind(t *testing.T, c client.Client) {
	ctx := t.Context()
	docs, err := decodeFile("../examples/gep-713/example-3/kind.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var example *policykind.Declaration
	for _, d := range docs {
		if d.GetKind() == policykind.KindName {
			example = &policykind.Declaration{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(d.Object, example); err != nil {
				t.Fatal(err)
			}
		}
	}
	if example == nil {
		t.Fatal("examples/gep-713/example-3/kind.yaml has no PolicyKind")
	}

	t.Run("example accepted", func(t *testing.T) {
		obj := example.DeepCopy()
		if err := c.Create(ctx, obj, fieldOwner); err != nil {
			t.Fatalf("create PolicyKind %s: %v", obj.Name, err)
		}
		got := &policykind.Declaration{}
		if err := c.Get(ctx, types.NamespacedName{Name: obj.Name}, got); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(example.Spec, got.Spec); d != "" {
			t.Errorf("spec read back differs (-created +stored):\n%s", d)
		}
		list := &policykind.DeclarationList{}
		if err := c.List(ctx, list); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 1 || list.Items[0].Name != obj.Name {
			t.Errorf("list: got %d items, want %s", len(list.Items), obj.Name)
		}
	})

	cases := []struct {
		name   string
		change func(*policykind.Spec)
		field  string
	}{
		{"class not Direct or Inherited", func(s *policykind.Spec) { s.Class = "Sometimes" }, "spec.class"},
		{"kind empty", func(s *policykind.Spec) { s.Kind = "" }, "spec.kind"},
		{"group empty", func(s *policykind.Spec) { s.Group = "" }, "spec.group"},
		{"group not a DNS subdomain", func(s *policykind.Spec) { s.Group = "Policies_Controller" }, "spec.group"},
		{"controllerName without a path", func(s *policykind.Spec) { s.ControllerName = "strata.dev" }, "spec.controllerName"},
		{"target kind empty", func(s *policykind.Spec) { s.TargetKinds[0].Kind = "" }, "spec.targetKinds[0].kind"},
		{"custom strategy without function", func(s *policykind.Spec) {
			s.Strategies.Custom = []policykind.CustomStrategy{{Name: "RuleMerge"}}
		}, "spec.strategies.custom[0].function"},
	}
	for i, tc := range cases {
		t.Run("rejects "+tc.name, func(t *testing.T) {
			obj := example.DeepCopy()
			obj.Name = fmt.Sprintf("invalid-%d", i)
			tc.change(&obj.Spec)
			err := c.Create(ctx, obj, fieldOwner)
			if !apierrors.IsInvalid(err) {
				t.Fatalf("create: got %v, want an Invalid error", err)
			}
			if !strings.Contains(err.Error(), tc.field) {
				t.Errorf("error does not name %s: %v", tc.field, err)
			}
		})
	}
}

// testEffectivePolicy stores what `strata effective` computes for
// GEP-713's example 3, so the EffectivePolicy CRD is checked against real
// output, and reads it back unchanged.
func testEffectivePolicy(t *testing.T, c client.Client) {
	ctx := t.Context()
	src, err := files.Read([]string{"../examples/gep-713/example-3"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(src.Snapshot, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	eps := effectivepolicy.Build(res)
	if len(eps) == 0 {
		t.Fatal("example 3 has no effective policies")
	}
	for _, ep := range eps {
		ns := &corev1.Namespace{}
		ns.Name = ep.Namespace
		if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
		want := ep.DeepCopy()
		if err := c.Create(ctx, ep, fieldOwner); err != nil {
			t.Fatalf("create EffectivePolicy %s/%s: %v", ep.Namespace, ep.Name, err)
		}
		got := &effectivepolicy.EffectivePolicy{}
		if err := c.Get(ctx, client.ObjectKeyFromObject(ep), got); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(asJSON(t, want.Policies), asJSON(t, got.Policies)); d != "" {
			t.Errorf("EffectivePolicy %s/%s read back differs (-created +stored):\n%s", ep.Namespace, ep.Name, d)
		}
		if got.Target != want.Target {
			t.Errorf("EffectivePolicy %s/%s target = %+v, want %+v", ep.Namespace, ep.Name, got.Target, want.Target)
		}
	}
}

// asJSON compares values as JSON documents, so that the byte layout of
// free-form fields (resultantPolicy) does not matter.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// decodeFile reads the objects of a multi-document YAML file.
func decodeFile(path string) ([]*unstructured.Unstructured, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	objs, err := decodeYAML(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return objs, nil
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

// kustomizeBuild is `kustomize build config/<dir>`.
func kustomizeBuild(dir string) ([]*unstructured.Unstructured, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build config/%s: %w", dir, err)
	}
	out, err := m.AsYaml()
	if err != nil {
		return nil, err
	}
	return decodeYAML(out)
}

func describe(o *unstructured.Unstructured) string {
	if o.GetNamespace() != "" {
		return fmt.Sprintf("%s %s/%s", o.GetKind(), o.GetNamespace(), o.GetName())
	}
	return fmt.Sprintf("%s %s", o.GetKind(), o.GetName())
}

// The blueprint kinds' PolicyKinds are valid declarations: the engine
// compiles them, reads values from spec.default and spec.override (under
// spec.values for the blueprint itself), and treats none as managed.
func TestBlueprintPolicyKinds(t *testing.T) {
	objs, err := decodeFile(filepath.Join("blueprints", "policykinds.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 3 {
		t.Fatalf("%d objects, want 3 (GatewayClassBlueprint, GatewayClassConfig, GatewayConfig)", len(objs))
	}
	for _, o := range objs {
		var d policykind.Declaration
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &d); err != nil {
			t.Fatal(err)
		}
		k, err := policykind.Compile(&d)
		if err != nil {
			t.Fatalf("%s: %v", o.GetName(), err)
		}
		if k.Managed || k.Fields.Defaults != "default" || k.Fields.Overrides != "override" {
			t.Errorf("%s: managed %v, fields %+v", o.GetName(), k.Managed, k.Fields)
		}
		spec := map[string]any{
			"targetRefs": []any{map[string]any{"group": "", "kind": "Namespace", "name": "team"}},
			"default":    map[string]any{"strategy": "any value", "replicas": int64(2)},
			"override":   map[string]any{"tags": map[string]any{"a": "b"}},
		}
		if d.Spec.Kind == "GatewayClassBlueprint" {
			// Named by GatewayClasses' parametersRef, not targeting.
			delete(spec, "targetRefs")
			spec = map[string]any{"values": spec}
		}
		cfg := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": d.Spec.Group + "/v1alpha1", "kind": d.Spec.Kind,
			"metadata": map[string]any{"name": "c", "namespace": "team"},
			"spec":     spec,
		}}
		p := k.Read(cfg)
		if len(p.Invalid) > 0 || len(p.Blocks) != 2 {
			t.Errorf("%s: a config reads as invalid %v, blocks %+v", o.GetName(), p.Invalid, p.Blocks)
		}
	}
}
