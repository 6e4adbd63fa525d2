package engine_test

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/source/files"
)

// shopWorld is one Gateway, one HTTPRoute and a TimeoutPolicy on each.
const shopWorld = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: shop}
spec: {gatewayClassName: gc, listeners: [{name: http, protocol: HTTP, port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: shop}
spec: {parentRefs: [{name: gw}]}
---
apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: timeoutpolicies.example.com}
spec:
  group: example.com
  kind: TimeoutPolicy
  managed: true
  targetKinds: [{group: gateway.networking.k8s.io, kind: Gateway}, {group: gateway.networking.k8s.io, kind: HTTPRoute}]
  effectiveTargetKind: {group: gateway.networking.k8s.io, kind: HTTPRoute}
  strategies: {default: PatchDefaults}
---
apiVersion: example.com/v1
kind: TimeoutPolicy
metadata: {name: gw-timeouts, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  defaults: {request: 10s, idle: 60s}
---
apiVersion: example.com/v1
kind: TimeoutPolicy
metadata: {name: web-timeouts, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}]
  defaults: {request: 30s}
`

// A controller that sees only TimeoutPolicies change recomputes their
// kind alone: Recompute keeps the objects and the other kinds' results
// and returns a new Result, leaving the old one as it was, so reads of
// the old one may go on meanwhile (doc.go, "Concurrency").
func ExampleResult_Recompute() {
	src, err := files.Read([]string{"-"}, strings.NewReader(shopWorld))
	must(err)
	old, err := engine.Run(src.Snapshot, engine.Options{})
	must(err)

	// web-timeouts now sets the idle timeout too.
	changed := []*unstructured.Unstructured{src.Snapshot.Policies[0], {}}
	must(yaml.Unmarshal([]byte(`
apiVersion: example.com/v1
kind: TimeoutPolicy
metadata: {name: web-timeouts, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}]
  defaults: {request: 30s, idle: 5m}
`), &changed[1].Object))
	timeoutPolicy := schema.GroupKind{Group: "example.com", Kind: "TimeoutPolicy"}
	res, err := old.Recompute(changed, map[schema.GroupKind]bool{timeoutPolicy: true})
	must(err)

	for _, r := range []*engine.Result{old, res} {
		ctx := r.Of(timeoutPolicy).Effective.Targets[0].Contexts[0]
		fmt.Println(ctx.Result.Values, "idle set by", ctx.Result.Prov["/idle"].ID())
	}
	// Output:
	// map[idle:60s request:30s] idle set by shop/gw-timeouts
	// map[idle:5m request:30s] idle set by shop/web-timeouts
}
