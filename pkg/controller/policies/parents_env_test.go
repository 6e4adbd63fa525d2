package policies_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestRouteParents: Strata never creates an entry in a route's
// status.parents (GitOps tools read any entry as the Gateway's verdict);
// a route affected through a Gateway whose controller has written no
// entry gets the annotation, and once the Gateway's controller writes its
// entry the condition moves into it (docs/status.md).
func TestRouteParents(t *testing.T) {
	c := newCluster(t)
	c.start()
	objs := objects(t, example(2)...)
	for _, o := range objs {
		if o.GetKind() == "PolicyKind" {
			_ = unstructured.SetNestedMap(o.Object, map[string]any{"group": "gateway.networking.k8s.io", "kind": "HTTPRoute"}, "spec", "effectiveTargetKind")
		}
	}
	c.apply(objs...)
	const route = "gateway.networking.k8s.io/v1"
	affectedType := func(keys map[string]string) string {
		for k := range keys {
			if strings.HasSuffix(k, "/ColorPolicyAffected") {
				return k
			}
		}
		return ""
	}
	c.eventually("r1 annotated, no parent entry", func() error {
		r1 := c.get(route, "HTTPRoute", "default", "r1")
		parents, _, _ := unstructured.NestedSlice(r1.Object, "status", "parents")
		if len(parents) > 0 {
			return fmt.Errorf("Strata created parent entries: %v", parents)
		}
		if affectedType(r1.GetAnnotations()) == "" {
			return fmt.Errorf("no annotation: %v", r1.GetAnnotations())
		}
		return nil
	})

	// The Gateway's controller (GatewayClass strata) writes its entry.
	r1 := c.get(route, "HTTPRoute", "default", "r1")
	typ := affectedType(r1.GetAnnotations())
	entry := map[string]any{
		"parentRef":      map[string]any{"name": "g1"},
		"controllerName": "strata.dev/gateway-controller",
		"conditions": []any{map[string]any{"type": "Accepted", "status": "True", "reason": "Accepted", "message": "ok",
			"lastTransitionTime": "2026-01-01T00:00:00Z"}},
	}
	_ = unstructured.SetNestedSlice(r1.Object, []any{entry}, "status", "parents")
	if err := c.client.Status().Update(context.Background(), r1); err != nil {
		t.Fatal(err)
	}
	c.eventually("the condition in the Gateway controller's entry, no annotation", func() error {
		r1 := c.get(route, "HTTPRoute", "default", "r1")
		if _, ok := r1.GetAnnotations()[typ]; ok {
			return fmt.Errorf("annotation still there")
		}
		parents, _, _ := unstructured.NestedSlice(r1.Object, "status", "parents")
		if len(parents) != 1 {
			return fmt.Errorf("parents %v", parents)
		}
		var types []string
		for _, cond := range parents[0].(map[string]any)["conditions"].([]any) {
			types = append(types, cond.(map[string]any)["type"].(string))
		}
		if strings.Join(types, ",") != "Accepted,"+typ {
			return fmt.Errorf("conditions %v", types)
		}
		return nil
	})
}
