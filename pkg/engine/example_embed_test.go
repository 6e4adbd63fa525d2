package engine_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/sink/status"
)

// What another Gateway API implementation writes to compute effective
// policies and status for its own policy CRD, TimeoutPolicy of group
// example.com: the kind declared as data (docs/policy-kinds.md, "1. A
// PolicyKind object"), the objects its informers already hold, and Run.
// No files, no client: it writes status.Policies with its own client.
// The Gateway's policy sets defaults and an override; the route's policy
// wins the request timeout, the override keeps the idle one.
func Example_embedding() {
	var kind policykind.Declaration
	must(yaml.UnmarshalStrict([]byte(`
metadata: {name: timeoutpolicies.example.com}
spec:
  group: example.com
  kind: TimeoutPolicy
  managed: true
  targetKinds: [{group: gateway.networking.k8s.io, kind: Gateway}, {group: gateway.networking.k8s.io, kind: HTTPRoute}]
  effectiveTargetKind: {group: gateway.networking.k8s.io, kind: HTTPRoute}
  strategies: {default: PatchDefaults}`), &kind))
	s := &snapshot.Snapshot{Declarations: []*policykind.Declaration{&kind},
		Gateways: []*gwv1.Gateway{{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "gw"},
			Spec: gwv1.GatewaySpec{Listeners: []gwv1.Listener{{Name: "http", Protocol: gwv1.HTTPProtocolType, Port: 80}}}}},
		HTTPRoutes: []*gwv1.HTTPRoute{{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
			Spec: gwv1.HTTPRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{Name: "gw"}}}}}}}
	for _, doc := range []string{
		`{metadata: {name: gw-timeouts, namespace: shop}, spec: {targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}], defaults: {request: 10s, idle: 60s}, overrides: {idle: 30s}}}`,
		`{metadata: {name: web-timeouts, namespace: shop}, spec: {targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}], defaults: {request: 30s}}}`,
	} {
		p := &unstructured.Unstructured{}
		must(yaml.Unmarshal([]byte(doc), &p.Object))
		p.SetAPIVersion("example.com/v1")
		p.SetKind("TimeoutPolicy")
		s.Policies = append(s.Policies, p)
	}
	res, err := engine.Run(s, engine.Options{})
	must(err)
	for _, tg := range res.Kinds[0].Effective.Targets {
		for _, ctx := range tg.Contexts {
			fmt.Println(res.Graph.Node(tg.Node).Ref, ctx.Result.Values, "set by", ctx.Result.Prov["/request"].ID(), ctx.Result.Prov["/idle"].ID())
		}
	}
	for _, p := range status.Ancestors(res, metav1.Unix(0, 0)) {
		for _, c := range p.Ancestors[0].Conditions {
			fmt.Println(p.Policy.ID(), "on", p.Ancestors[0].AncestorRef.Name, c.Type, c.Status, c.Message)
		}
	}
	// Output:
	// HTTPRoute shop/web map[idle:30s request:30s] set by shop/web-timeouts shop/gw-timeouts
	// shop/gw-timeouts on gw Accepted True accepted
	// shop/gw-timeouts on gw Enforced False the policy is PartiallyEnforced
	// shop/gw-timeouts on gw PartiallyEnforced True superseded by shop/web-timeouts in 1 of 1 context (fields /request)
	// shop/gw-timeouts on gw Overridden False the policy is PartiallyEnforced
	// shop/web-timeouts on gw Accepted True accepted
	// shop/web-timeouts on gw Enforced True fully enforced in 1 context
	// shop/web-timeouts on gw PartiallyEnforced False the policy is Enforced
	// shop/web-timeouts on gw Overridden False the policy is Enforced
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
