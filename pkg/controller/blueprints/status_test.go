package blueprints_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/strata-dev/strata/pkg/blueprint/render"
)

// statusBlueprint renders, for a Gateway, a Service whose cluster IP the
// status template turns into the Gateway's address (read through
// .Resources on the render after the Service exists), and for each
// attached HTTPRoute a ConfigMap.
const statusBlueprint = `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  name: status
spec:
  values:
    default: {tier: gold}
  gatewayTemplate:
    resourceTemplates:
    - name: service
      template: |
        apiVersion: v1
        kind: Service
        metadata:
          name: {{ .Gateway.metadata.name }}-svc
        spec:
          selector: {app: {{ .Gateway.metadata.name }}}
          ports:
          {{- range .Gateway.spec.listeners }}
          - {name: {{ .name }}, port: {{ .port }}}
          {{- end }}
    status: |
      {{- $svc := first (concat (index .Resources "service" | default list) (list dict)) }}
      {{- with dig "spec" "clusterIP" "" $svc }}
      addresses:
      - {type: IPAddress, value: {{ . }}}
      {{- end }}
  httpRouteTemplate:
    resourceTemplates:
    - name: route
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ .HTTPRoute.metadata.name }}-for-{{ .Gateway.metadata.name }}
        data:
          tier: {{ .Values.tier | quote }}
          gateway: {{ .Gateway.metadata.name }}
`

// TestStatus checks what the controller writes: GatewayClass and blueprint
// Accepted; Gateway Accepted, Programmed, addresses and listeners
// (attachedRoutes as Gateway API counts them); HTTPRoute parents; config
// ancestors; other controllers' entries kept; and no writes once idle.
func TestStatus(t *testing.T) {
	t.Parallel()
	r := begin(t)
	ns, other, cls := "status"+r, "status-other"+r, "status"+r
	namespace(t, ns)
	namespace(t, other, "env", "prod")
	apply(t, strings.Replace(statusBlueprint, "  name: status\n", "  name: status_RUN_\n", 1))
	class(t, cls, cls)
	apply(t, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw
  namespace: status_RUN_
spec:
  gatewayClassName: status_RUN_
  listeners:
  - name: same
    protocol: HTTP
    port: 80
  - name: selected
    protocol: HTTP
    port: 8080
    allowedRoutes:
      namespaces:
        from: Selector
        selector: {matchLabels: {env: prod}}
  - name: grpc-only
    protocol: HTTP
    port: 9090
    allowedRoutes:
      kinds: [{kind: GRPCRoute}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r1, namespace: status_RUN_}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: backend, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r2, namespace: status-other_RUN_}
spec:
  parentRefs: [{name: gw, namespace: status_RUN_}]
  rules: [{backendRefs: [{name: backend, namespace: status_RUN_, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r3, namespace: status-other_RUN_}
spec:
  parentRefs: [{name: gw, namespace: status_RUN_, sectionName: same}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r4, namespace: status_RUN_}
spec:
  parentRefs: [{name: gw, sectionName: nope}]
`)

	t.Run("GatewayClass and blueprint", func(t *testing.T) {
		eventually(t, "class accepted", func() error {
			gc := get(t, gatewayAPI, "GatewayClass", "", cls)
			return hasCond(cond(gc.Object, "Accepted", "status", "conditions"), "Accepted", "True", "Accepted", "GatewayClassBlueprint status")
		})
		eventually(t, "blueprint accepted", func() error {
			bp := get(t, blueprintAPI, "GatewayClassBlueprint", "", cls)
			return hasCond(cond(bp.Object, "Accepted", "status", "conditions"), "Accepted", "True", "Accepted")
		})
		apply(t, `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: status-missing_RUN_}
spec:
  controllerName: strata.dev/blueprint-controller
  parametersRef: {group: blueprints.strata.dev, kind: GatewayClassBlueprint, name: nowhere}
---
apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayClassBlueprint
metadata: {name: status-broken_RUN_}
spec:
  gatewayTemplate:
    resourceTemplates:
    - name: broken
      template: "{{ .Values.x "
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: status-broken_RUN_}
spec:
  controllerName: strata.dev/blueprint-controller
  parametersRef: {group: blueprints.strata.dev, kind: GatewayClassBlueprint, name: status-broken_RUN_}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: broken, namespace: status_RUN_}
spec:
  gatewayClassName: status-broken_RUN_
  listeners: [{name: http, protocol: HTTP, port: 80}]
`)
		eventually(t, "missing blueprint", func() error {
			gc := get(t, gatewayAPI, "GatewayClass", "", runName(t, "status-missing_RUN_"))
			return hasCond(cond(gc.Object, "Accepted", "status", "conditions"), "Accepted", "False", "InvalidParameters", "spec.parametersRef", `"nowhere" not found`)
		})
		eventually(t, "broken template: class", func() error {
			gc := get(t, gatewayAPI, "GatewayClass", "", runName(t, "status-broken_RUN_"))
			return hasCond(cond(gc.Object, "Accepted", "status", "conditions"), "Accepted", "False", "InvalidParameters", "gatewayTemplate.resourceTemplates[broken]")
		})
		eventually(t, "broken template: blueprint", func() error {
			bp := get(t, blueprintAPI, "GatewayClassBlueprint", "", runName(t, "status-broken_RUN_"))
			return hasCond(cond(bp.Object, "Accepted", "status", "conditions"), "Accepted", "False", "InvalidParameters", "gatewayTemplate.resourceTemplates[broken]")
		})
		eventually(t, "broken template: Gateway", gatewayCond(t, ns, "broken", "Accepted", "False", "InvalidParameters", "GatewayClass status-broken_RUN_ is not accepted"))
	})

	t.Run("Gateway", func(t *testing.T) {
		eventually(t, "accepted", gatewayCond(t, ns, "gw", "Accepted", "True", "Accepted"))
		eventually(t, "programmed", gatewayCond(t, ns, "gw", "Programmed", "True", "Programmed"))
		eventually(t, "address from the rendered Service", func() error {
			svc := get(t, "v1", "Service", ns, "gw-svc")
			if svc == nil {
				return fmt.Errorf("no Service")
			}
			ip, _, _ := unstructured.NestedString(svc.Object, "spec", "clusterIP")
			gw := get(t, gatewayAPI, "Gateway", ns, "gw")
			addrs, _, _ := unstructured.NestedSlice(gw.Object, "status", "addresses")
			want := []any{map[string]any{"type": "IPAddress", "value": ip}}
			if ip == "" || jsonOf(t, addrs) != jsonOf(t, want) {
				return fmt.Errorf("addresses %v, want %v", addrs, want)
			}
			return nil
		})
		eventually(t, "listeners", listenersAre(t, ns, "gw", []listenerWant{
			{"same", 1, `[{"group":"gateway.networking.k8s.io","kind":"HTTPRoute"}]`, "True", "True"},
			{"selected", 1, `[{"group":"gateway.networking.k8s.io","kind":"HTTPRoute"}]`, "True", "True"},
			{"grpc-only", 0, `[]`, "True", "False"},
		}))
		gw := get(t, gatewayAPI, "Gateway", ns, "gw")
		ls, _, _ := unstructured.NestedSlice(gw.Object, "status", "listeners")
		if err := hasCond(findCond(ls[2].(map[string]any)["conditions"].([]any), "ResolvedRefs"), "ResolvedRefs", "False", "InvalidRouteKinds", "GRPCRoute.gateway.networking.k8s.io"); err != nil {
			t.Error(err)
		}

		// Labelling the Gateway's namespace env=prod makes r1 attach to
		// the Selector listener too: Namespace labels are watched.
		namespace(t, ns, "env", "prod")
		eventually(t, "attachedRoutes after a Namespace label", listenersAre(t, ns, "gw", []listenerWant{
			{"same", 1, "", "True", "True"}, {"selected", 2, "", "True", "True"}, {"grpc-only", 0, "", "True", "False"},
		}))
	})

	t.Run("HTTPRoute", func(t *testing.T) {
		eventually(t, "r1 accepted", routeParent(t, ns, "r1", "Accepted", "True", "Accepted"))
		eventually(t, "r1 resolved", routeParent(t, ns, "r1", "ResolvedRefs", "True", "ResolvedRefs"))
		eventually(t, "r2 refs not permitted", routeParent(t, other, "r2", "ResolvedRefs", "False", "RefNotPermitted", "no ReferenceGrant"))
		eventually(t, "r3 not allowed", routeParent(t, other, "r3", "Accepted", "False", "NotAllowedByListeners"))
		eventually(t, "r4 no matching parent", routeParent(t, ns, "r4", "Accepted", "False", "NoMatchingParent"))
		apply(t, `apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: from-other, namespace: status_RUN_}
spec:
  from: [{group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: status-other_RUN_}]
  to: [{group: "", kind: Service}]
`)
		eventually(t, "r2 resolved by a ReferenceGrant", routeParent(t, other, "r2", "ResolvedRefs", "True", "ResolvedRefs"))

		eventually(t, "r1's child, owned by the route", func() error {
			cm := get(t, "v1", "ConfigMap", ns, "r1-for-gw")
			if cm == nil {
				return fmt.Errorf("no ConfigMap r1-for-gw")
			}
			o := cm.GetOwnerReferences()
			if len(o) != 1 || o[0].Kind != "HTTPRoute" || o[0].Name != "r1" {
				return fmt.Errorf("owners %+v", o)
			}
			if l := cm.GetLabels(); l[render.LabelGateway] != render.GatewayLabelValue(ns, "gw") || l[render.LabelParentKind] != "HTTPRoute" {
				return fmt.Errorf("labels %v", l)
			}
			return nil
		})
		eventually(t, "r2's child in its own namespace", dataIs(t, other, "r2-for-gw", map[string]string{"tier": "gold", "gateway": "gw"}))
		if get(t, "v1", "ConfigMap", other, "r3-for-gw") != nil {
			t.Error("a route that is not attached was rendered")
		}

		// A GatewayConfig on the route is its most specific level.
		apply(t, `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayConfig
metadata: {name: r2-tier, namespace: status-other_RUN_}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r2}]
  default: {tier: platinum}
`)
		eventually(t, "route config applied", dataIs(t, other, "r2-for-gw", map[string]string{"tier": "platinum"}))
		eventually(t, "route config ancestor", ancestorCond(t, "GatewayConfig", other, "r2-tier", ns, "gw", "Enforced", "True", "Enforced"))

		// The route leaves: its child goes.
		apply(t, `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r2, namespace: status-other_RUN_}
spec:
  parentRefs: [{name: gw, namespace: status_RUN_, sectionName: same}]
  rules: [{backendRefs: [{name: backend, namespace: status_RUN_, port: 80}]}]
`)
		eventually(t, "detached route's child deleted", gone(t, "v1", "ConfigMap", other, "r2-for-gw"))
		eventually(t, "r2 not allowed", routeParent(t, other, "r2", "Accepted", "False", "NotAllowedByListeners"))
	})

	t.Run("configs", func(t *testing.T) {
		apply(t, `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayConfig
metadata: {name: on-gw, namespace: status_RUN_}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  default: {tier: silver}
---
apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayConfig
metadata: {name: ghost, namespace: status_RUN_}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: ghost}]
  default: {tier: bronze}
---
apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayConfig
metadata: {name: wrong-kind, namespace: status_RUN_}
spec:
  targetRefs: [{group: "", kind: Service, name: backend}]
  default: {tier: bronze}
`)
		eventually(t, "on-gw accepted", ancestorCond(t, "GatewayConfig", ns, "on-gw", ns, "gw", "Accepted", "True", "Accepted"))
		eventually(t, "on-gw enforced", ancestorCond(t, "GatewayConfig", ns, "on-gw", ns, "gw", "Enforced", "True", "Enforced"))
		eventually(t, "ghost not found", func() error {
			a := ancestorOf(t, "GatewayConfig", ns, "ghost", map[string]any{"kind": "Gateway", "name": "ghost"})
			return hasCond(a.cond("Accepted"), "Accepted", "False", "TargetNotFound", "spec.targetRefs[0]", runName(t, "Gateway status_RUN_/ghost not found"))
		})
		eventually(t, "wrong kind invalid", func() error {
			a := ancestorOf(t, "GatewayConfig", ns, "wrong-kind", map[string]any{"kind": "Service", "name": "backend"})
			return hasCond(a.cond("Accepted"), "Accepted", "False", "Invalid", "spec.targetRefs[0]", "cannot target Service")
		})
	})

	t.Run("other controllers' status kept", func(t *testing.T) {
		now := time.Now().UTC().Format(time.RFC3339)
		patchStatus(t, gatewayAPI, "Gateway", ns, "gw", map[string]any{"status": map[string]any{"conditions": append(
			statusList(t, gatewayAPI, "Gateway", ns, "gw", "conditions"),
			map[string]any{"type": "strata.dev/ColorPolicyAffected", "status": "True", "reason": "Affected", "message": "affected by ColorPolicy status/p", "lastTransitionTime": now},
		)}})
		patchStatus(t, gatewayAPI, "HTTPRoute", ns, "r1", map[string]any{"status": map[string]any{"parents": append(
			statusList(t, gatewayAPI, "HTTPRoute", ns, "r1", "parents"),
			map[string]any{"parentRef": map[string]any{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "gw"}, "controllerName": "example.com/other",
				"conditions": []any{map[string]any{"type": "Accepted", "status": "True", "reason": "Accepted", "message": "", "lastTransitionTime": now}}},
		)}})
		patchStatus(t, blueprintAPI, "GatewayConfig", ns, "on-gw", map[string]any{"status": map[string]any{"ancestors": append(
			statusList(t, blueprintAPI, "GatewayConfig", ns, "on-gw", "ancestors"),
			map[string]any{"ancestorRef": map[string]any{"group": "gateway.networking.k8s.io", "kind": "Gateway", "namespace": ns, "name": "gw"}, "controllerName": "example.com/other",
				"conditions": []any{map[string]any{"type": "Accepted", "status": "True", "reason": "Accepted", "message": "", "lastTransitionTime": now}}},
		)}})
		// A change every one of them reacts to.
		apply(t, `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayConfig
metadata: {name: on-gw, namespace: status_RUN_}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  default: {tier: silver, extra: "1"}
`)
		eventually(t, "config re-evaluated", ancestorCond(t, "GatewayConfig", ns, "on-gw", ns, "gw", "Enforced", "True", "Enforced", "all 2 values in force"))
		eventually(t, "everything kept", func() error {
			if c := cond(get(t, gatewayAPI, "Gateway", ns, "gw").Object, "strata.dev/ColorPolicyAffected", "status", "conditions"); c == nil {
				return fmt.Errorf("the policy controller's Gateway condition is gone")
			}
			if err := gatewayCond(t, ns, "gw", "Programmed", "True", "Programmed")(); err != nil {
				return err
			}
			if n := countController(statusList(t, gatewayAPI, "HTTPRoute", ns, "r1", "parents"), "example.com/other"); n != 1 {
				return fmt.Errorf("other controller's route parent entries: %d", n)
			}
			if n := countController(statusList(t, blueprintAPI, "GatewayConfig", ns, "on-gw", "ancestors"), "example.com/other"); n != 1 {
				return fmt.Errorf("other controller's ancestor entries: %d", n)
			}
			return nil
		})
	})

	t.Run("no more writes once idle", func(t *testing.T) {
		// Once everything is written, nothing changes any more: the
		// controller becomes idle (its own writes do not keep it busy),
		// and a render with nothing new writes nothing: touching an
		// annotation of the Gateway and of r1 re-renders them (and the
		// Gateway's routes), and no object involved gets a new
		// resourceVersion but the two touched.
		gw, r1 := object{gatewayAPI, "Gateway", ns, "gw"}, object{gatewayAPI, "HTTPRoute", ns, "r1"}
		watchedObjs := []object{
			gw, r1, {gatewayAPI, "HTTPRoute", other, "r2"},
			{gatewayAPI, "GatewayClass", "", cls}, {blueprintAPI, "GatewayClassBlueprint", "", "status"},
			{blueprintAPI, "GatewayConfig", ns, "on-gw"},
		}
		objs := append([]object{{"v1", "Service", ns, "gw-svc"}, {"v1", "ConfigMap", ns, "r1-for-gw"}}, watchedObjs...)
		versions := func() map[object]string {
			v := map[object]string{}
			for _, o := range objs {
				if u := get(t, o.apiVersion, o.kind, o.ns, o.name); u != nil {
					v[o] = u.GetResourceVersion()
				}
			}
			return v
		}
		idle(t, "everything written", seen(watchedObjs...))
		want := versions()
		want[gw], want[r1] = touch(t, gw), touch(t, r1)
		idle(t, "the touched Gateway and route re-rendered", seen(watchedObjs...))
		if got := versions(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("written after settling:\nwant %v\ngot  %v", want, got)
		}
	})
}

type listenerWant struct {
	name         string
	attached     int64
	kinds        string // JSON of supportedKinds; "" = not checked
	accepted     string
	resolvedRefs string
}

func listenersAre(t *testing.T, ns, name string, want []listenerWant) func() error {
	return func() error {
		gw := get(t, gatewayAPI, "Gateway", ns, name)
		ls, _, _ := unstructured.NestedSlice(gw.Object, "status", "listeners")
		if len(ls) != len(want) {
			return fmt.Errorf("%d listeners in status, want %d", len(ls), len(want))
		}
		for i, w := range want {
			l := ls[i].(map[string]any)
			if l["name"] != w.name || l["attachedRoutes"] != w.attached {
				return fmt.Errorf("listener %d: %v attachedRoutes %v, want %s %d", i, l["name"], l["attachedRoutes"], w.name, w.attached)
			}
			if w.kinds != "" && jsonOf(t, l["supportedKinds"]) != w.kinds {
				return fmt.Errorf("listener %s supportedKinds %s, want %s", w.name, jsonOf(t, l["supportedKinds"]), w.kinds)
			}
			conds, _ := l["conditions"].([]any)
			for typ, status := range map[string]string{"Accepted": w.accepted, "ResolvedRefs": w.resolvedRefs, "Programmed": w.accepted} {
				c := findCond(conds, typ)
				if c == nil || string(c.Status) != status {
					return fmt.Errorf("listener %s: %s = %v, want %s", w.name, typ, c, status)
				}
			}
		}
		return nil
	}
}

// routeParent checks a condition of Strata's status.parents entry of a
// route.
func routeParent(t *testing.T, ns, name, typ, status, reason string, msgs ...string) func() error {
	return func() error {
		r := get(t, gatewayAPI, "HTTPRoute", ns, name)
		for _, p := range statusList(t, gatewayAPI, "HTTPRoute", ns, name, "parents") {
			m := p.(map[string]any)
			if m["controllerName"] != controllerName {
				continue
			}
			conds, _ := m["conditions"].([]any)
			return hasCond(findCond(conds, typ), typ, status, reason, runNames(t, msgs)...)
		}
		st, _, _ := unstructured.NestedFieldNoCopy(r.Object, "status")
		return fmt.Errorf("HTTPRoute %s/%s: no parent entry of %s (status %v)", ns, name, controllerName, st)
	}
}

func statusList(t *testing.T, apiVersion, kind, ns, name, field string) []any {
	u := get(t, apiVersion, kind, ns, name)
	if u == nil {
		return nil
	}
	l, _, _ := unstructured.NestedSlice(u.Object, "status", field)
	return l
}

func countController(list []any, controller string) int {
	n := 0
	for _, e := range list {
		if m, ok := e.(map[string]any); ok && m["controllerName"] == controller {
			n++
		}
	}
	return n
}

// patchStatus merge-patches an object's status as another controller
// would.
func patchStatus(t *testing.T, apiVersion, kind, ns, name string, patch map[string]any) {
	t.Helper()
	b, err := json.Marshal(patch)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	if err := k8s.Status().Patch(context.Background(), u, client.RawPatch(types.MergePatchType, b), client.FieldOwner("other-controller")); err != nil {
		t.Fatalf("patch status of %s %s/%s: %v", kind, ns, name, err)
	}
}
