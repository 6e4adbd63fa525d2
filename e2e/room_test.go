package e2e_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// roomKinds are ten managed policy kinds, APolicy .. JPolicy, each
// effective on Gateways.
var roomKinds = strings.Split("ABCDEFGHIJ", "")

// TestShippedConditionRoom: a Gateway whose own controller wrote 2
// conditions, reached by 10 policy kinds, with config/default as
// installed. Gateway API's CRDs allow 8 conditions in status.conditions:
// the binary writes 6 of its <Kind>Affected conditions, names the 4 it
// left out in an annotation, and no write is refused.
func TestShippedConditionRoom(t *testing.T) {
	t.Parallel() // an API server and a controller of its own
	c := newCluster(t, "standard")
	install := kustomize(t, "default")
	c.apply(install...)
	var objs []*unstructured.Unstructured
	for _, k := range roomKinds {
		plural := strings.ToLower(k) + "policies"
		objs = append(objs, policyCRD(t, "policies.room.example", k+"Policy", plural, true), kindRole(t, "policies.room.example", plural))
	}
	c.apply(objs...)
	objs = decode(t, []byte(`apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: other}
spec: {controllerName: example.com/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g1, namespace: default}
spec:
  gatewayClassName: other
  listeners: [{name: http, protocol: HTTP, port: 80}]
`))
	for _, k := range roomKinds {
		plural := strings.ToLower(k) + "policies"
		objs = append(objs, decode(t, []byte(fmt.Sprintf(`apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: %[2]s.policies.room.example}
spec:
  group: policies.room.example
  kind: %[1]sPolicy
  class: Direct
  managed: true
  targetKinds: [{group: gateway.networking.k8s.io, kind: Gateway}]
---
apiVersion: policies.room.example/v1
kind: %[1]sPolicy
metadata: {name: p, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g1}]
  color: red
`, k, plural)))...)
	}
	c.apply(objs...)
	// The Gateway's own controller has written its status.
	gw := &unstructured.Unstructured{}
	gw.SetAPIVersion("gateway.networking.k8s.io/v1")
	gw.SetKind("Gateway")
	if err := c.admin.Get(t.Context(), client.ObjectKey{Namespace: "default", Name: "g1"}, gw); err != nil {
		t.Fatal(err)
	}
	theirs := func(typ string) any {
		return map[string]any{"type": typ, "status": "True", "reason": typ, "message": "theirs", "lastTransitionTime": "2026-01-01T00:00:00Z", "observedGeneration": int64(1)}
	}
	if err := unstructured.SetNestedSlice(gw.Object, []any{theirs("Accepted"), theirs("Programmed")}, "status", "conditions"); err != nil {
		t.Fatal(err)
	}
	if err := c.admin.Status().Update(t.Context(), gw); err != nil {
		t.Fatal(err)
	}

	p := c.run(deployment(t, install))
	c.eventually("8 conditions on Gateway g1, the 4 left out named", 3*time.Minute, func(ctx context.Context) error {
		if err := c.admin.Get(ctx, client.ObjectKey{Namespace: "default", Name: "g1"}, gw); err != nil {
			return err
		}
		conds, _, _ := unstructured.NestedSlice(gw.Object, "status", "conditions")
		ours := 0
		for _, cond := range conds {
			if strings.HasSuffix(cond.(map[string]any)["type"].(string), "PolicyAffected") {
				ours++
			}
		}
		note := gw.GetAnnotations()["strata.dev/omitted-conditions"]
		if len(conds) != 8 || ours != 6 || strings.Count(note, "PolicyAffected") != 4 {
			return fmt.Errorf("%d conditions, %d of Strata's; annotation %q", len(conds), ours, note)
		}
		return nil
	})
	token := c.scraperToken()
	text, err := p.scrape(t.Context(), token)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := metric(text, `strata_status_writes_refused_total{kind="Gateway"}`); v != 0 {
		t.Errorf("%v status writes refused by the API server", v)
	}
}
