package blueprintcontroller_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestExample runs the example of examples/blueprints (one nginx
// blueprint, two classes, configs at every level, two Gateways and their
// routes) in a cluster: what `strata render` shows offline is applied.
func TestExample(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "blueprints", "*.yaml"))
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
}
