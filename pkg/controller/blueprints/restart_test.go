package blueprints_test

import (
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/strata-dev/strata/internal/testenv"
	"github.com/strata-dev/strata/pkg/blueprint"
)

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
		inv := getFrom(t, c, gatewayAPI, "Gateway", ns, "gw2").GetAnnotations()[blueprint.InventoryAnnotation]
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
