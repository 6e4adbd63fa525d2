package blueprints_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/strata-dev/strata/pkg/blueprint"
	"github.com/strata-dev/strata/pkg/blueprint/render"
)

// TestReRender: a change of a config, of the Gateway or of the blueprint
// re-renders the Gateway's children.
func TestReRender(t *testing.T) {
	t.Parallel()
	r := begin(t)
	ns, gw, cls := "rerender"+r, "gw", "rerender"+r
	namespace(t, ns)
	bp := func(greeting string) {
		apply(t, `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  name: rerender_RUN_
spec:
  values:
    default: {replicas: 1, greeting: %s}
  gatewayTemplate:
    resourceTemplates:
    - name: config
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ .Gateway.metadata.name }}-config
        data:
          replicas: {{ .Values.replicas | quote }}
          greeting: {{ .Values.greeting | quote }}
          port: {{ (index .Gateway.spec.listeners 0).port | quote }}
`, greeting)
	}
	bp("hello")
	class(t, cls, cls)
	gateway(t, ns, gw, cls)
	eventually(t, "first render", dataIs(t, ns, gw+"-config", map[string]string{"replicas": "1", "greeting": "hello", "port": "80"}))

	// Someone edits a field Strata set: the child's event re-renders the
	// Gateway, and Strata takes the field back.
	cm := get(t, "v1", "ConfigMap", ns, gw+"-config")
	if err := unstructured.SetNestedField(cm.Object, "99", "data", "replicas"); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Update(context.Background(), cm, client.FieldOwner("someone")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "drift corrected", dataIs(t, ns, gw+"-config", map[string]string{"replicas": "1"}))

	config := func(replicas int) {
		apply(t, `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayConfig
metadata:
  name: scale
  namespace: rerender_RUN_
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  default: {replicas: %d}
`, replicas)
	}
	config(2)
	eventually(t, "config created", dataIs(t, ns, gw+"-config", map[string]string{"replicas": "2"}))
	config(3)
	eventually(t, "config changed", dataIs(t, ns, gw+"-config", map[string]string{"replicas": "3"}))
	del(t, blueprintAPI, "GatewayConfig", ns, "scale")
	eventually(t, "config deleted", dataIs(t, ns, gw+"-config", map[string]string{"replicas": "1"}))

	apply(t, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw
  namespace: rerender_RUN_
spec:
  gatewayClassName: rerender_RUN_
  listeners:
  - name: http
    protocol: HTTP
    port: 8080
`)
	eventually(t, "Gateway changed", dataIs(t, ns, gw+"-config", map[string]string{"port": "8080"}))

	bp("bonjour")
	eventually(t, "blueprint values changed", dataIs(t, ns, gw+"-config", map[string]string{"greeting": "bonjour"}))
}

// TestPrune: a template dropped from the blueprint deletes its objects;
// a deleted GatewayClass deletes nothing; deleting the Gateway deletes all
// its children, cluster-scoped ones included (envtest has no garbage
// collector: Strata deletes them).
func TestPrune(t *testing.T) {
	t.Parallel()
	r := begin(t)
	ns, gw, cls := "prune"+r, "gw", "prune"+r
	namespace(t, ns)
	bp := func(withB bool) {
		b := ""
		if withB {
			b = `
    - name: b
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ .Gateway.metadata.name }}-b
`
		}
		// A server-side apply: the templates the test no longer gives
		// (it owns them) are removed.
		apply(t, `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  name: prune_RUN_
spec:
  clusterScopedKinds: [{group: rbac.authorization.k8s.io, kind: ClusterRole}]
  gatewayTemplate:
    resourceTemplates:
    - name: a
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ .Gateway.metadata.name }}-a
    - name: role
      template: |
        apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRole
        metadata:
          name: prune_RUN_-{{ .Gateway.metadata.name }}
        rules: []%s
`, b)
	}
	role := "prune" + r + "-gw"
	bp(true)
	class(t, cls, cls)
	gateway(t, ns, gw, cls)
	eventually(t, "children applied", func() error {
		for _, name := range []string{"gw-a", "gw-b"} {
			if data(t, ns, name) == nil {
				return fmt.Errorf("ConfigMap %s missing", name)
			}
		}
		if get(t, "rbac.authorization.k8s.io/v1", "ClusterRole", "", role) == nil {
			return fmt.Errorf("ClusterRole missing")
		}
		return nil
	})
	eventually(t, "inventory", func() error {
		inv := get(t, gatewayAPI, "Gateway", ns, gw).GetAnnotations()[blueprint.InventoryAnnotation]
		want := runName(t, "rbac.authorization.k8s.io/v1/ClusterRole//prune_RUN_-gw\nstrata.dev/v1alpha1/EffectivePolicy/prune_RUN_/gw.blueprint-values\nv1/ConfigMap/prune_RUN_/gw-a\nv1/ConfigMap/prune_RUN_/gw-b")
		if inv != want {
			return fmt.Errorf("inventory %q, want %q", inv, want)
		}
		return nil
	})
	a := get(t, "v1", "ConfigMap", ns, "gw-a")
	owners := a.GetOwnerReferences()
	if len(owners) != 1 || owners[0].Kind != "Gateway" || owners[0].Name != gw || owners[0].Controller == nil || !*owners[0].Controller ||
		owners[0].BlockOwnerDeletion == nil || !*owners[0].BlockOwnerDeletion {
		t.Errorf("ownerReferences of gw-a = %+v, want the Gateway, controller and blockOwnerDeletion", owners)
	}
	if l := a.GetLabels(); l[render.LabelParentKind] != "Gateway" || l[render.LabelParentName] != gw || l[render.LabelTemplate] != "a" {
		t.Errorf("labels of gw-a = %v", l)
	}
	if cr := get(t, "rbac.authorization.k8s.io/v1", "ClusterRole", "", role); len(cr.GetOwnerReferences()) != 0 {
		t.Errorf("a cluster-scoped child has owners: %v", cr.GetOwnerReferences())
	}

	bp(false)
	eventually(t, "dropped template's object deleted", gone(t, "v1", "ConfigMap", ns, "gw-b"))
	if got := get(t, "v1", "ConfigMap", ns, "gw-a"); got == nil || got.GetUID() != a.GetUID() {
		t.Errorf("gw-a was deleted or replaced while pruning gw-b")
	}
	eventually(t, "inventory trimmed", func() error {
		inv := get(t, gatewayAPI, "Gateway", ns, gw).GetAnnotations()[blueprint.InventoryAnnotation]
		if strings.Contains(inv, "gw-b") {
			return fmt.Errorf("inventory still lists gw-b: %q", inv)
		}
		return nil
	})

	// A deleted GatewayClass does not take the data plane with it.
	del(t, gatewayAPI, "GatewayClass", "", cls)
	eventually(t, "class gone reported", gatewayCond(t, ns, gw, "Accepted", "False", "InvalidParameters", "GatewayClass prune_RUN_ not found; objects rendered before are kept"))
	if get(t, "v1", "ConfigMap", ns, "gw-a") == nil {
		t.Fatal("gw-a deleted with the GatewayClass")
	}
	class(t, cls, cls)
	eventually(t, "class back", gatewayCond(t, ns, gw, "Programmed", "True", "Programmed"))

	del(t, gatewayAPI, "Gateway", ns, gw)
	eventually(t, "namespaced child deleted with the Gateway", gone(t, "v1", "ConfigMap", ns, "gw-a"))
	eventually(t, "cluster-scoped child deleted with the Gateway", gone(t, "rbac.authorization.k8s.io/v1", "ClusterRole", "", role))
}

// TestTenantSafety: a render that puts an object in another namespace,
// renders a cluster-scoped kind the blueprint does not allow, or sets
// ownerReferences is refused whole: the Gateway says so, nothing of the
// render is applied (not even its harmless objects) and what was applied
// before is untouched. An object the API server refuses on the dry run
// stops the apply the same way.
func TestTenantSafety(t *testing.T) {
	t.Parallel()
	r := begin(t)
	ns, gw, cls := "safety"+r, "gw", "safety"+r
	namespace(t, ns)
	apply(t, `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  name: safety_RUN_
spec:
  values:
    default: {version: "1", namespace: "", owner: false, extra: false, cluster: false, badPort: false, take: ""}
  gatewayTemplate:
    resourceTemplates:
    - name: cm
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ .Gateway.metadata.name }}-cm
          {{- with .Values.namespace }}
          namespace: {{ . }}
          {{- end }}
          {{- if .Values.owner }}
          ownerReferences:
          - {apiVersion: v1, kind: ConfigMap, name: other, uid: 00000000-0000-0000-0000-000000000000}
          {{- end }}
        data:
          version: {{ .Values.version | quote }}
    - name: extra
      template: |
        {{- if .Values.extra }}
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ .Gateway.metadata.name }}-extra
        {{- end }}
    - name: cluster
      template: |
        {{- if .Values.cluster }}
        apiVersion: rbac.authorization.k8s.io/v1
        kind: ClusterRole
        metadata:
          name: safety_RUN_-{{ .Gateway.metadata.name }}
        {{- end }}
    - name: take
      template: |
        {{- with .Values.take }}
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ . }}
        data:
          taken: "yes"
        {{- end }}
    - name: service
      template: |
        {{- if .Values.badPort }}
        apiVersion: v1
        kind: Service
        metadata:
          name: {{ .Gateway.metadata.name }}-svc
        spec:
          ports: [{port: 99999}]
        {{- end }}
`)
	class(t, cls, cls)
	gateway(t, ns, gw, cls)
	eventually(t, "baseline applied", dataIs(t, ns, gw+"-cm", map[string]string{"version": "1"}))
	eventually(t, "baseline programmed", gatewayCond(t, ns, gw, "Programmed", "True", "Programmed"))
	before := get(t, "v1", "ConfigMap", ns, gw+"-cm").GetResourceVersion()
	// Somebody else's object, which values could name.
	apply(t, `apiVersion: v1
kind: ConfigMap
metadata:
  name: neighbour
  namespace: safety_RUN_
data:
  mine: "yes"
`)
	neighbour := get(t, "v1", "ConfigMap", ns, "neighbour").GetResourceVersion()

	untouched := func() error {
		cm := get(t, "v1", "ConfigMap", ns, gw+"-cm")
		if cm == nil || cm.GetResourceVersion() != before {
			return fmt.Errorf("the previously applied ConfigMap changed or went away")
		}
		if get(t, "v1", "ConfigMap", ns, gw+"-extra") != nil {
			return fmt.Errorf("the harmless object of the refused render was applied")
		}
		if get(t, "v1", "Service", ns, gw+"-svc") != nil {
			return fmt.Errorf("the Service was applied")
		}
		if get(t, "v1", "ConfigMap", ns, "neighbour").GetResourceVersion() != neighbour {
			return fmt.Errorf("the neighbour's ConfigMap was taken over")
		}
		return nil
	}
	for _, tc := range []struct {
		name, values         string
		condType, reason     string
		msgs                 []string
		programmedNotInvalid bool
	}{
		{"namespace elsewhere", `{namespace: kube-system}`, "Accepted", "InvalidParameters",
			[]string{"rendering refused", "metadata.namespace \"kube-system\" is not the parent's namespace"}, false},
		{"cluster-scoped kind not allowed", `{cluster: true}`, "Accepted", "InvalidParameters",
			[]string{"rendering refused", "ClusterRole.rbac.authorization.k8s.io is cluster-scoped and not listed in spec.clusterScopedKinds"}, false},
		{"ownerReferences in a template", `{owner: true}`, "Accepted", "InvalidParameters",
			[]string{"rendering refused", "metadata.ownerReferences"}, false},
		{"refused by the API server", `{badPort: true}`, "Programmed", "Invalid",
			[]string{"Service safety_RUN_/gw-svc", "dry run, nothing applied"}, true},
		{"another's object", `{take: neighbour}`, "Programmed", "Invalid",
			[]string{"ConfigMap safety_RUN_/neighbour already exists and was not rendered for Gateway safety_RUN_/gw", "refusing to take it over"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// version 2 and the extra object would apply if the render went through.
			vals := strings.TrimSuffix(tc.values, "}") + `, version: "2", extra: true}`
			apply(t, `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayConfig
metadata:
  name: tenant
  namespace: safety_RUN_
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  default: %s
`, vals)
			eventually(t, "refusal reported", gatewayCond(t, ns, gw, tc.condType, "False", tc.reason, tc.msgs...))
			if !tc.programmedNotInvalid {
				eventually(t, "not programmed", gatewayCond(t, ns, gw, "Programmed", "False", "Invalid"))
			} else {
				eventually(t, "still accepted", gatewayCond(t, ns, gw, "Accepted", "True", "Accepted"))
			}
			idle(t, "refused render handled", seen(object{blueprintAPI, "GatewayConfig", ns, "tenant"}, object{gatewayAPI, "Gateway", ns, gw}))
			if err := untouched(); err != nil {
				t.Fatalf("after a refused render: %v", err)
			}
		})
	}

	t.Run("fixed", func(t *testing.T) {
		apply(t, `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayConfig
metadata:
  name: tenant
  namespace: safety_RUN_
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  default: {version: "2", extra: true}
`)
		eventually(t, "applied", dataIs(t, ns, gw+"-cm", map[string]string{"version": "2"}))
		eventually(t, "extra applied", dataIs(t, ns, gw+"-extra", nil))
		eventually(t, "programmed", gatewayCond(t, ns, gw, "Programmed", "True", "Programmed"))
		eventually(t, "accepted", gatewayCond(t, ns, gw, "Accepted", "True", "Accepted"))
	})
}
