package blueprints_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestExample runs the example of examples/blueprints (one nginx
// blueprint, two classes, configs at every level, two Gateways and their
// routes) in a cluster: what `strata render` shows offline is applied.
//
// It is the one test with fixed names: it checks the example's objects
// exactly as render.json.golden prints them, names and namespaces
// included (env_test.go explains why the others carry a run suffix). A
// later run in the same process re-applies the same objects, which
// server-side apply leaves as they are, and first deletes what the
// controller rendered in the first run (rendered), so that the controller
// must render it again for the checks below to pass.
func TestExample(t *testing.T) {
	t.Parallel()
	if begin(t) != "" {
		for _, w := range rendered(t) {
			del(t, w.GetAPIVersion(), w.GetKind(), w.GetNamespace(), w.GetName())
		}
	}
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "examples", "blueprints", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no example files (%v)", err)
	}
	var objs []*unstructured.Unstructured
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, decode(t, string(b))...)
	}
	// Namespaces first; server-managed fields given in the files (the
	// configs' creationTimestamp orders them offline) are dropped.
	for _, first := range []bool{true, false} {
		for _, o := range objs {
			if (o.GetKind() == "Namespace") != first {
				continue
			}
			o = o.DeepCopy()
			unstructured.RemoveNestedField(o.Object, "metadata", "creationTimestamp")
			if err := k8s.Apply(context.Background(), client.ApplyConfigurationFromUnstructured(o), testManager, client.ForceOwnership); err != nil {
				t.Fatalf("apply %s %s/%s: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
			}
		}
	}
	eventually(t, "shop programmed", gatewayCond(t, "team-a", "shop", "Programmed", "True", "Programmed"))
	eventually(t, "the most specific default wins", func() error {
		d := get(t, "apps/v1", "Deployment", "team-a", "shop-nginx")
		if d == nil {
			return fmt.Errorf("no Deployment team-a/shop-nginx")
		}
		if r, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas"); r != 3 {
			return fmt.Errorf("replicas %d, want 3 (GatewayConfig shop)", r)
		}
		if l := d.GetLabels()["exposure"]; l != "internet" {
			return fmt.Errorf("label exposure=%q, want internet (global override)", l)
		}
		return nil
	})
	eventually(t, "the lost value reported", ancestorCond(t, "GatewayConfig", "team-a", "shop", "team-a", "shop",
		"PartiallyEnforced", "True", "PartiallyEnforced", "/tags/exposure"))

	// Offline and live take one path: every object `strata render` prints
	// for the example (its golden file) is in the cluster as printed.
	for _, w := range rendered(t) {
		want := w.Object
		eventually(t, "rendered "+w.GetKind()+" "+w.GetName()+" applied as strata render prints it", func() error {
			got := get(t, w.GetAPIVersion(), w.GetKind(), w.GetNamespace(), w.GetName())
			if got == nil {
				return fmt.Errorf("%s %s/%s not applied", w.GetKind(), w.GetNamespace(), w.GetName())
			}
			gb, err := json.Marshal(got.Object)
			if err != nil {
				return err
			}
			var live map[string]any
			if err := json.Unmarshal(gb, &live); err != nil {
				return err
			}
			if path, ok := subset(want, live, ""); !ok {
				return fmt.Errorf("%s %s/%s differs at %s", w.GetKind(), w.GetNamespace(), w.GetName(), path)
			}
			return nil
		})
	}
}

// rendered reads the objects `strata render` prints for the example
// (render.json.golden).
func rendered(t *testing.T) []*unstructured.Unstructured {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "examples", "blueprints", "render.json.golden"))
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Items []map[string]any }
	if err := json.Unmarshal(b, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) == 0 {
		t.Fatal("render.json.golden has no objects")
	}
	out := make([]*unstructured.Unstructured, len(list.Items))
	for i, o := range list.Items {
		out[i] = &unstructured.Unstructured{Object: o}
	}
	return out
}

// subset reports whether every field of want is in got with the same
// value (the API server adds defaults and metadata), and where not.
func subset(want, got any, path string) (string, bool) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return path, false
		}
		for k, v := range w {
			if p, ok := subset(v, g[k], path+"/"+k); !ok {
				return p, false
			}
		}
		return "", true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return path, false
		}
		for i := range w {
			if p, ok := subset(w[i], g[i], fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
		return "", true
	default:
		return path, reflect.DeepEqual(want, got)
	}
}
