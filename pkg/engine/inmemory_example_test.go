package engine_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
)

// What another Gateway API implementation writes to compute effective
// policies and status with Strata: its own objects, already in memory,
// one PolicyKind declaring its policy CRD, and Run. No files, no client.
// A TimeoutPolicy on the Gateway sets a default; one on the route
// overrides part of it for that route.
func ExampleRun_inMemory() {
	meta := func(ns, name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: metav1.Unix(1767225600, 0)}
	}
	s := &snapshot.Snapshot{
		GatewayClasses: []*gwv1.GatewayClass{{ObjectMeta: meta("", "gc"), Spec: gwv1.GatewayClassSpec{ControllerName: "example.com/gw"}}},
		Gateways: []*gwv1.Gateway{{ObjectMeta: meta("infra", "gw"), Spec: gwv1.GatewaySpec{
			GatewayClassName: "gc",
			Listeners:        []gwv1.Listener{{Name: "http", Protocol: gwv1.HTTPProtocolType, Port: 80, AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromAll)}}}},
		}}},
		HTTPRoutes: []*gwv1.HTTPRoute{{ObjectMeta: meta("shop", "web"), Spec: gwv1.HTTPRouteSpec{
			CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{Name: "gw", Namespace: ptr(gwv1.Namespace("infra"))}}},
		}}},
		Declarations: []*strata.PolicyKind{{ObjectMeta: meta("", "timeoutpolicies.example.com"), Spec: strata.PolicyKindSpec{
			Group: "example.com", Kind: "TimeoutPolicy", Managed: true,
			TargetKinds:         []strata.GroupKind{{Group: "gateway.networking.k8s.io", Kind: "Gateway"}, {Group: "gateway.networking.k8s.io", Kind: "HTTPRoute"}},
			EffectiveTargetKind: &strata.GroupKind{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute"},
			Strategies:          strata.Strategies{Default: "PatchDefaults"},
		}}},
		Policies: []*unstructured.Unstructured{
			timeoutPolicy("infra", "gw-timeouts", "Gateway", "gw", map[string]any{"defaults": map[string]any{"request": "10s", "idle": "60s"}}),
			timeoutPolicy("shop", "web-timeouts", "HTTPRoute", "web", map[string]any{"defaults": map[string]any{"request": "30s"}}),
		},
	}
	res, err := engine.Run(s, engine.Options{})
	if err != nil {
		panic(err)
	}
	for _, tg := range res.Kinds[0].Effective.Targets {
		for _, ctx := range tg.Contexts {
			fmt.Printf("%s: request %v (%s), idle %v (%s)\n", res.Graph.Node(tg.Node).Ref,
				ctx.Result.Values["request"], ctx.Result.Prov["/request"].ID(),
				ctx.Result.Values["idle"], ctx.Result.Prov["/idle"].ID())
		}
	}
	for _, ps := range res.Outcome.Policies {
		for _, a := range ps.Ancestors {
			for _, c := range a.Conditions {
				if c.Status == metav1.ConditionTrue && c.Type != "Accepted" {
					fmt.Printf("%s on %s: %s: %s\n", ps.Policy.ID(), a.Ref, c.Type, c.Message)
				}
			}
		}
	}
	// Output:
	// HTTPRoute shop/web: request 30s (shop/web-timeouts), idle 60s (infra/gw-timeouts)
	// infra/gw-timeouts on Gateway infra/gw: PartiallyEnforced: superseded by shop/web-timeouts in 1 of 1 context (fields /request)
	// shop/web-timeouts on Gateway infra/gw: Enforced: fully enforced in 1 context
}

func ptr[T any](v T) *T { return &v }

func timeoutPolicy(ns, name, kind, target string, spec map[string]any) *unstructured.Unstructured {
	spec["targetRefs"] = []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": kind, "name": target}}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "TimeoutPolicy",
		"metadata": map[string]any{"namespace": ns, "name": name, "creationTimestamp": "2026-01-01T00:00:00Z"},
		"spec":     spec,
	}}
}
