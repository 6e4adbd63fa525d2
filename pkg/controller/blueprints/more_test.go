package blueprints_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/strata-dev/strata/internal/testenv"
	"github.com/strata-dev/strata/pkg/blueprint"
	"github.com/strata-dev/strata/pkg/controller/blueprints"
)

const effectivePolicyAPI = "strata.dev/v1alpha1"

// TestRouteOnTwoGateways: a route whose parentRefs name two Gateways of
// one class is rendered once per Gateway, each render a scope of its own
// (children labelled with their Gateway, a values object per Gateway, a
// status.parents entry per Gateway); dropping one parentRef deletes that
// Gateway's scope and leaves the other's objects as they are.
func TestRouteOnTwoGateways(t *testing.T) {
	t.Parallel()
	const ns, cls, route = "twogw", "twogw", "shop"
	namespace(t, ns)
	apply(t, `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  name: twogw
spec:
  values:
    default: {tier: gold}
  httpRouteTemplate:
    resourceTemplates:
    - name: via
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ .HTTPRoute.metadata.name }}-via-{{ .Gateway.metadata.name }}
        data:
          tier: {{ .Values.tier | quote }}
          gateway: {{ .Gateway.metadata.name }}
`)
	class(t, cls, cls)
	gateway(t, ns, "gw-a", cls)
	apply(t, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw-b, namespace: twogw}
spec:
  gatewayClassName: twogw
  listeners:
  - {name: http, protocol: HTTP, port: 80}
  - {name: alt, protocol: HTTP, port: 8080, allowedRoutes: {namespaces: {from: All}}}
`)
	routeTo := func(gateways ...string) {
		refs := ""
		for _, g := range gateways {
			refs += fmt.Sprintf("\n  - {name: %s}", g)
		}
		apply(t, `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: %s, namespace: %s}
spec:
  parentRefs:%s
  rules: [{backendRefs: [{name: backend, port: 80}]}]
`, route, ns, refs)
	}
	routeTo("gw-a", "gw-b")

	// One scope per Gateway: its ConfigMap and its values object.
	scope := func(gw string) (cm, values string) {
		return route + "-via-" + gw, route + "." + blueprint.GatewayLabelValue(ns, gw) + ".blueprint-values"
	}
	for _, gw := range []string{"gw-a", "gw-b"} {
		cm, values := scope(gw)
		eventually(t, "ConfigMap for "+gw, func() error {
			if err := dataIs(t, ns, cm, map[string]string{"tier": "gold", "gateway": gw})(); err != nil {
				return err
			}
			return renderedFor(get(t, "v1", "ConfigMap", ns, cm), route, ns, gw)
		})
		eventually(t, "values object for "+gw, func() error {
			return renderedFor(get(t, effectivePolicyAPI, "EffectivePolicy", ns, values), route, ns, gw)
		})
	}
	eventually(t, "one accepted parent entry per Gateway", parentsAre(t, ns, route, "gw-a", "gw-b"))

	// Drop gw-a: its scope goes, gw-b's is not written again.
	bCM, bValues := scope("gw-b")
	versions := func() string {
		var s string
		for _, o := range []struct{ apiVersion, kind, name string }{{"v1", "ConfigMap", bCM}, {effectivePolicyAPI, "EffectivePolicy", bValues}} {
			u := get(t, o.apiVersion, o.kind, ns, o.name)
			if u == nil {
				return o.kind + " " + o.name + " missing"
			}
			s += o.kind + "=" + u.GetResourceVersion() + " "
		}
		return s
	}
	routeObj := object{gatewayAPI, "HTTPRoute", ns, route}
	idle(t, "both scopes written", seen(routeObj))
	before := versions()
	routeTo("gw-b")
	aCM, aValues := scope("gw-a")
	eventually(t, "gw-a's ConfigMap deleted", gone(t, "v1", "ConfigMap", ns, aCM))
	eventually(t, "gw-a's values object deleted", gone(t, effectivePolicyAPI, "EffectivePolicy", ns, aValues))
	eventually(t, "gw-a's parent entry removed", parentsAre(t, ns, route, "gw-b"))
	idle(t, "gw-a's scope removed", seen(routeObj))
	if v := versions(); v != before {
		t.Errorf("gw-b's scope was written again: before %s, after %s", before, v)
	}
	if err := parentsAre(t, ns, route, "gw-b")(); err != nil {
		t.Error(err)
	}
}

// renderedFor checks that o is a child of HTTPRoute ns/route rendered for
// Gateway ns/gw: controlled by the route and labelled with the Gateway.
func renderedFor(o *unstructured.Unstructured, route, ns, gw string) error {
	if o == nil {
		return fmt.Errorf("not found")
	}
	if l := o.GetLabels(); l[blueprint.LabelGateway] != blueprint.GatewayLabelValue(ns, gw) || l[blueprint.LabelParentKind] != "HTTPRoute" || l[blueprint.LabelParentName] != route {
		return fmt.Errorf("%s: labels %v, want rendered for HTTPRoute %s and Gateway %s/%s", o.GetName(), l, route, ns, gw)
	}
	owners := o.GetOwnerReferences()
	if len(owners) != 1 || owners[0].Kind != "HTTPRoute" || owners[0].Name != route || owners[0].Controller == nil || !*owners[0].Controller {
		return fmt.Errorf("%s: ownerReferences %+v, want HTTPRoute %s as controller", o.GetName(), owners, route)
	}
	return nil
}

// parentsAre checks that Strata's status.parents entries of a route name
// exactly the Gateways gws, in order, each Accepted.
func parentsAre(t *testing.T, ns, route string, gws ...string) func() error {
	return func() error {
		var got []string
		for _, p := range statusList(t, gatewayAPI, "HTTPRoute", ns, route, "parents") {
			m := p.(map[string]any)
			if m["controllerName"] != controllerName {
				continue
			}
			ref, _ := m["parentRef"].(map[string]any)
			name, _ := ref["name"].(string)
			got = append(got, name)
			conds, _ := m["conditions"].([]any)
			if err := hasCond(findCond(conds, "Accepted"), "Accepted", "True", "Accepted", "Gateway "+ns+"/"+name); err != nil {
				return fmt.Errorf("parent %s: %w", name, err)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(gws) {
			return fmt.Errorf("parent entries for %v, want %v", got, gws)
		}
		return nil
	}
}

// TestRestartCleansUp: what changed while Strata was down is cleaned up
// when it starts again, with nothing but the cluster to go by (no delete
// event, no inventory remembered): the cluster-scoped child of a Gateway
// deleted meanwhile is deleted (docs/blueprints.md promises this), and so
// are its namespaced children, which envtest, having no garbage
// collector, leaves to Strata. (Strata finds those because gw2's render
// makes it watch their kinds again; the children of a kind no remaining
// parent renders are left to the garbage collector, through their owner
// reference, which is what the docs promise.) The child of a template
// dropped from the blueprint meanwhile is pruned from the Gateway that is
// still there (through its inventory), and nothing else of that Gateway
// is touched.
//
// The test runs an API server of its own, with a controller it starts,
// stops and starts again. It cannot use the package's API server with a
// controller of another controllerName: the shared controller would be up
// all along, and it acts on Gateways of classes it does not serve (it
// remembers their inventory, cleans up after them when they go, and
// deletes what is in the inventory of a Gateway whose class is another
// controller's), so it would do, or undo, what this test checks.
func TestRestartCleansUp(t *testing.T) {
	t.Parallel()
	env, err := testenv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stop API server: %v", err)
		}
	})
	c, err := client.New(env.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}

	const ns, cls, rbacAPI = "restart", "restart", "rbac.authorization.k8s.io/v1"
	applyTo(t, c, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n", ns)
	bp := func(withExtra bool) {
		extra := ""
		if withExtra {
			extra = `
    - name: extra
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ .Gateway.metadata.name }}-extra
`
		}
		applyTo(t, c, `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  name: restart
spec:
  clusterScopedKinds: [{group: rbac.authorization.k8s.io, kind: ClusterRole}]
  gatewayTemplate:
    resourceTemplates:
    - name: cm
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ .Gateway.metadata.name }}-cm
    - name: role
      template: |
        apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRole
        metadata:
          name: restart-{{ .Gateway.metadata.name }}
        rules: []%s
`, extra)
	}
	bp(true)
	applyTo(t, c, `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: %s}
spec:
  controllerName: %s
  parametersRef: {group: blueprints.strata.dev, kind: GatewayClassBlueprint, name: restart}
`, cls, controllerName)
	for _, gw := range []string{"gw1", "gw2"} {
		applyTo(t, c, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: %s, namespace: %s}
spec:
  gatewayClassName: %s
  listeners: [{name: http, protocol: HTTP, port: 80}]
`, gw, ns, cls)
	}

	type obj struct{ apiVersion, kind, ns, name string }
	children := func(gw string) []obj {
		return []obj{
			{"v1", "ConfigMap", ns, gw + "-cm"}, {"v1", "ConfigMap", ns, gw + "-extra"},
			{rbacAPI, "ClusterRole", "", "restart-" + gw},
			{effectivePolicyAPI, "EffectivePolicy", ns, gw + ".blueprint-values"},
		}
	}
	exists := func(o obj) func() error {
		return func() error {
			if getFrom(t, c, o.apiVersion, o.kind, o.ns, o.name) == nil {
				return fmt.Errorf("%s %s/%s not found", o.kind, o.ns, o.name)
			}
			return nil
		}
	}
	absent := func(o obj) func() error {
		return func() error {
			if getFrom(t, c, o.apiVersion, o.kind, o.ns, o.name) != nil {
				return fmt.Errorf("%s %s/%s still exists", o.kind, o.ns, o.name)
			}
			return nil
		}
	}

	first := startController(t, env.Config)
	for _, gw := range []string{"gw1", "gw2"} {
		for _, o := range children(gw) {
			eventually(t, gw+"'s children applied", exists(o))
		}
	}
	// gw2's children that stay, and the versions they must keep.
	kept := []obj{{"v1", "ConfigMap", ns, "gw2-cm"}, {rbacAPI, "ClusterRole", "", "restart-gw2"}}
	versions := func() string {
		var s string
		for _, o := range kept {
			u := getFrom(t, c, o.apiVersion, o.kind, o.ns, o.name)
			if u == nil {
				return o.kind + " " + o.name + " missing"
			}
			s += fmt.Sprintf("%s %s: uid %s resourceVersion %s; ", o.kind, o.name, u.GetUID(), u.GetResourceVersion())
		}
		return s
	}
	idle(t, "gw2's children written", cached(c, first.cache,
		object{gatewayAPI, "Gateway", ns, "gw1"}, object{gatewayAPI, "Gateway", ns, "gw2"}, object{blueprintAPI, "GatewayClassBlueprint", "", "restart"}))
	before := versions()
	first.stop()

	// While Strata is down, gw1 goes and the blueprint drops a template.
	delFrom(t, c, gatewayAPI, "Gateway", ns, "gw1")
	eventually(t, "gw1 deleted", absent(obj{gatewayAPI, "Gateway", ns, "gw1"}))
	bp(false)

	second := startController(t, env.Config)
	for _, o := range children("gw1") {
		eventually(t, "deleted Gateway's child deleted", absent(o))
	}
	eventually(t, "dropped template's child pruned", absent(obj{"v1", "ConfigMap", ns, "gw2-extra"}))
	eventually(t, "gw2's inventory trimmed", func() error {
		inv := getFrom(t, c, gatewayAPI, "Gateway", ns, "gw2").GetAnnotations()[blueprints.InventoryAnnotation]
		if strings.Contains(inv, "gw2-extra") {
			return fmt.Errorf("inventory still lists gw2-extra: %q", inv)
		}
		return nil
	})
	idle(t, "the restarted controller caught up", cached(c, second.cache,
		object{gatewayAPI, "Gateway", ns, "gw2"}, object{blueprintAPI, "GatewayClassBlueprint", "", "restart"}))
	if v := versions(); v != before {
		t.Errorf("gw2's remaining children changed across the restart:\nbefore %s\nafter  %s", before, v)
	}
}

// started is a blueprint controller a test started, with a manager of
// its own.
type started struct {
	// cache is its manager's cache, for cached.
	cache cache.Cache
	// stop stops it and returns once its manager has stopped; it stops
	// with the test otherwise.
	stop func()
}

// startController starts a blueprint controller with default options
// (but a metrics registry of its own) and a manager of its own on the API
// server of cfg.
func startController(t *testing.T, cfg *rest.Config) started {
	t.Helper()
	return startControllerWith(t, cfg, blueprints.Options{})
}

// startControllerWith starts a blueprint controller with opts (and a
// registry of its own) on cfg's API server.
//
// Its controller uses client-go's plain workqueue, not controller-runtime's
// priority queue: a plain queue hands out what it holds until it is empty
// when the controller stops, while a priority queue keeps it, and keeps
// counting it in workqueue_depth of every controller named queueName,
// so that no later idle of the package would ever come.
func startControllerWith(t *testing.T, cfg *rest.Config, opts blueprints.Options) started {
	t.Helper()
	skip, priorityQueue := true, false
	mgr, err := manager.New(cfg, manager.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: &skip, UsePriorityQueue: &priorityQueue},
	})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	opts.Registerer = reg
	if _, err := blueprints.New(mgr, opts); err != nil {
		t.Fatal(err)
	}
	count(reg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("controller: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return started{cache: mgr.GetCache(), stop: stop}
}

// TestTwoControllers: two blueprint controllers serving different
// GatewayClasses on one cluster (two Strata installs) never touch each
// other's rendered objects, inventories or Gateways, also while one of
// them is down.
func TestTwoControllers(t *testing.T) {
	t.Parallel()
	const ns, other = "twoctl", "example.com/other-blueprints"
	namespace(t, ns)
	theirs := startControllerWith(t, shared, blueprints.Options{ControllerName: other, FieldManager: "other-blueprints"})
	apply(t, `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  name: twoctl
spec:
  gatewayTemplate:
    resourceTemplates:
    - name: cm
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ .Gateway.metadata.name }}-cm
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: twoctl-other
spec:
  controllerName: %s
  parametersRef: {group: blueprints.strata.dev, kind: GatewayClassBlueprint, name: twoctl}
`, other)
	class(t, "twoctl-ours", "twoctl")
	gateway(t, ns, "theirs", "twoctl-other")
	gateway(t, ns, "ours", "twoctl-ours")
	eventually(t, "both rendered", func() error {
		for gw, ctrl := range map[string]string{"theirs": other, "ours": controllerName} {
			cm := get(t, "v1", "ConfigMap", ns, gw+"-cm")
			if cm == nil {
				return fmt.Errorf("ConfigMap %s-cm missing", gw)
			}
			if l := cm.GetLabels()[blueprint.LabelController]; l != blueprint.LabelValue(ctrl) {
				return fmt.Errorf("ConfigMap %s-cm labelled controller %q, want %q", gw, l, blueprint.LabelValue(ctrl))
			}
		}
		return nil
	})
	ann := get(t, gatewayAPI, "Gateway", ns, "theirs").GetAnnotations()
	if ann[blueprints.InventoryAnnotationFor(other)] == "" || ann[blueprints.InventoryAnnotation] != "" {
		t.Fatalf("the other controller's inventory is not under its own key: %v", ann)
	}
	theirsCM := get(t, "v1", "ConfigMap", ns, "theirs-cm").GetResourceVersion()
	untouched := func() error {
		cm := get(t, "v1", "ConfigMap", ns, "theirs-cm")
		if cm == nil || cm.GetResourceVersion() != theirsCM {
			return fmt.Errorf("the other controller's ConfigMap was changed or deleted")
		}
		return nil
	}
	gateways := []object{{gatewayAPI, "GatewayClass", "", "twoctl-other"}, {gatewayAPI, "Gateway", ns, "theirs"}, {gatewayAPI, "Gateway", ns, "ours"}}
	idle(t, "both rendered", seen(gateways...), cached(k8s, theirs.cache, gateways...))
	if err := untouched(); err != nil {
		t.Fatalf("the shared controller does not leave the other's objects alone: %v", err)
	}

	// The other controller is down: its Gateway goes; its objects are
	// still not the shared controller's to delete.
	theirs.stop()
	del(t, gatewayAPI, "Gateway", ns, "theirs")
	idle(t, "their Gateway deleted", seen(object{gatewayAPI, "Gateway", ns, "theirs"}))
	if err := untouched(); err != nil {
		t.Fatalf("something of the other's was pruned while it is down: %v", err)
	}
	eventually(t, "ours still programmed", gatewayCond(t, ns, "ours", "Programmed", "True", "Programmed"))
}
