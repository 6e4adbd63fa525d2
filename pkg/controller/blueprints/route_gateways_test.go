package blueprints_test

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-dev/strata/pkg/blueprint/render"
)

const effectivePolicyAPI = "strata.dev/v1alpha1"

// TestRouteOnTwoGateways: a route whose parentRefs name two Gateways of
// one class is rendered once per Gateway, each render a scope of its own
// (children labelled with their Gateway, a values object per Gateway, a
// status.parents entry per Gateway); dropping one parentRef deletes that
// Gateway's scope and leaves the other's objects as they are.
func TestRouteOnTwoGateways(t *testing.T) {
	t.Parallel()
	r := begin(t)
	ns, cls, route := "twogw"+r, "twogw"+r, "shop"
	namespace(t, ns)
	apply(t, `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  name: twogw_RUN_
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
metadata: {name: gw-b, namespace: twogw_RUN_}
spec:
  gatewayClassName: twogw_RUN_
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
		return route + "-via-" + gw, route + "." + render.GatewayLabelValue(ns, gw) + ".blueprint-values"
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
	if l := o.GetLabels(); l[render.LabelGateway] != render.GatewayLabelValue(ns, gw) || l[render.LabelParentKind] != "HTTPRoute" || l[render.LabelParentName] != route {
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
