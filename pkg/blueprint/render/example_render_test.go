package render_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
	"github.com/strata-dev/strata/pkg/blueprint/render"
)

// A blueprint rendering one ConfigMap per Gateway, listing the hostnames
// the Gateway serves.
func ExampleRender() {
	bp := &bpv1.GatewayClassBlueprint{
		ObjectMeta: metav1.ObjectMeta{Name: "hosts"},
		Spec: bpv1.BlueprintSpec{GatewayTemplate: &bpv1.Template{
			ResourceTemplates: []bpv1.ResourceTemplate{{
				Name: "hosts",
				Template: `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Gateway.metadata.name }}-hosts
data:
  replicas: {{ .Values.replicas | quote }}
  hosts: {{ join " " .Hostnames.Intersection | quote }}
`,
			}},
		}},
	}
	host := gwv1.Hostname("*.example.com")
	gw := &gwv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web"},
		Spec:       gwv1.GatewaySpec{Listeners: []gwv1.Listener{{Name: "https", Port: 443, Protocol: gwv1.HTTPSProtocolType, Hostname: &host}}},
	}
	route := &gwv1.HTTPRoute{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "shop"},
		Spec: gwv1.HTTPRouteSpec{
			CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{Name: "web"}}},
			Hostnames:       []gwv1.Hostname{"shop.example.com"},
		},
	}
	// The kinds this render may produce: a namespaced ConfigMap, decoded
	// strictly with client-go's scheme (the controller passes its API
	// server's discovery, render.MapperScope, for Scope).
	kinds := render.Kinds{
		Scope: func(gk schema.GroupKind) (namespaced, known bool) {
			return gk == schema.GroupKind{Kind: "ConfigMap"}, gk.Kind == "ConfigMap"
		},
		Types: clientgoscheme.Scheme,
	}
	out, err := render.Render(render.Input{
		Blueprint: bp,
		Gateway:   gw,
		Routes:    []*gwv1.HTTPRoute{route},
		Values:    map[string]any{"replicas": 2},
	}, kinds)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := yaml.Marshal(out.Objects[0].Object)
	fmt.Print(string(b))

	// A missing value names the template, the line and the value path.
	_, err = render.Render(render.Input{Blueprint: bp, Gateway: gw}, kinds)
	fmt.Println(err)
	// Output:
	// apiVersion: v1
	// data:
	//   hosts: shop.example.com
	//   replicas: "2"
	// kind: ConfigMap
	// metadata:
	//   labels:
	//     blueprints.strata.dev/blueprint: hosts
	//     blueprints.strata.dev/parent-kind: Gateway
	//     blueprints.strata.dev/parent-name: web
	//     blueprints.strata.dev/parent-namespace: team
	//     blueprints.strata.dev/template: hosts
	//   name: web-hosts
	//   namespace: team
	// GatewayClassBlueprint hosts: gatewayTemplate.resourceTemplates[hosts] line 6: map has no entry for key "replicas" (value path .Values.replicas)
}
