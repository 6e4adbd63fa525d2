package blueprint

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
	"github.com/strata-dev/strata/pkg/blueprint/render"
	"github.com/strata-dev/strata/pkg/blueprint/values"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
)

// benchWorld is the example's nginx blueprint (examples/blueprints) on a
// platform of `tenants` namespaces, each with `perNS` Gateways of 2
// listeners and 10 HTTPRoutes per Gateway, and a config at every level of
// 002's list (global ones in strata-system).
func benchWorld(b *testing.B, tenants, perNS int) World {
	raw, err := os.ReadFile(filepath.Join("..", "..", "examples", "blueprints", "blueprint.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	var bp bpv1.GatewayClassBlueprint
	if err := yaml.Unmarshal(raw, &bp); err != nil {
		b.Fatal(err)
	}
	ctrl := gwv1.GatewayController("strata.dev/blueprint-controller")
	w := World{Blueprints: []*bpv1.GatewayClassBlueprint{&bp}}
	w.GatewayClasses = append(w.GatewayClasses, &gwv1.GatewayClass{
		ObjectMeta: metav1.ObjectMeta{Name: "internet"},
		Spec: gwv1.GatewayClassSpec{ControllerName: ctrl, ParametersRef: &gwv1.ParametersReference{
			Group: bpv1.Group, Kind: bpv1.BlueprintKind, Name: bp.Name}},
	})
	cfg := func(_, name string, r gwv1.LocalPolicyTargetReference, v string) bpv1.ConfigSpec {
		return bpv1.ConfigSpec{TargetRefs: []gwv1.LocalPolicyTargetReference{r}, Default: &apiextensionsv1.JSON{Raw: fmt.Appendf(nil, `{"tags":{%q:%q},"replicas":2}`, name, v)}}
	}
	w.ClassConfigs = append(w.ClassConfigs, &bpv1.GatewayClassConfig{
		ObjectMeta: metav1.ObjectMeta{Namespace: "strata-system", Name: "global"},
		Spec:       cfg("strata-system", "global", ref(hierarchy.GatewayGroup, "GatewayClass", "internet"), "g")})
	for t := range tenants {
		ns := fmt.Sprintf("tenant-%d", t)
		w.Namespaces = append(w.Namespaces, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		w.ClassConfigs = append(w.ClassConfigs,
			&bpv1.GatewayClassConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tenant"}, Spec: cfg(ns, "tenant", ref("", "Namespace", ns), ns)},
			&bpv1.GatewayClassConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "class"}, Spec: cfg(ns, "class", ref(hierarchy.GatewayGroup, "GatewayClass", "internet"), ns)})
		w.GatewayConfigs = append(w.GatewayConfigs,
			&bpv1.GatewayConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ns"}, Spec: cfg(ns, "ns", ref("", "Namespace", ns), ns)})
		for g := range perNS {
			gw := fmt.Sprintf("gw-%d", g)
			w.Gateways = append(w.Gateways, &gwv1.Gateway{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: gw},
				Spec: gwv1.GatewaySpec{GatewayClassName: "internet", Listeners: []gwv1.Listener{
					{Name: "http", Protocol: gwv1.HTTPProtocolType, Port: 80, Hostname: ptr.To(gwv1.Hostname(gw + ".example.com"))},
					{Name: "alt", Protocol: gwv1.HTTPProtocolType, Port: 8080},
				}},
			})
			w.GatewayConfigs = append(w.GatewayConfigs, &bpv1.GatewayConfig{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: gw}, Spec: cfg(ns, gw, ref(hierarchy.GatewayGroup, "Gateway", gw), gw)})
			for r := range 10 {
				w.HTTPRoutes = append(w.HTTPRoutes, &gwv1.HTTPRoute{
					ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s-r%d", gw, r)},
					Spec: gwv1.HTTPRouteSpec{
						CommonRouteSpec: gwv1.CommonRouteSpec{ParentRefs: []gwv1.ParentReference{{Name: gwv1.ObjectName(gw)}}},
						Rules: []gwv1.HTTPRouteRule{{
							Matches:     []gwv1.HTTPRouteMatch{{Path: &gwv1.HTTPPathMatch{Value: ptr.To(fmt.Sprintf("/r%d", r))}}},
							BackendRefs: []gwv1.HTTPBackendRef{{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Name: "svc", Port: ptr.To(gwv1.PortNumber(80))}}}},
						}},
					},
				})
			}
		}
	}
	return w
}

// BenchmarkPlanAndRender plans and renders every Gateway and HTTPRoute of
// a 100-namespace, 1,000-Gateway, 10,000-route platform: what `strata
// render` does, and an upper bound of a controller resync.
func BenchmarkPlanAndRender(b *testing.B) {
	w := benchWorld(b, 100, 10)
	kinds := render.Kinds{Scope: render.StaticScope(nil), Types: clientgoscheme.Scheme}
	b.ReportAllocs()
	for b.Loop() {
		_, jobs := Plan(w, "strata.dev/blueprint-controller", "strata-system")
		if len(jobs) != 11000 {
			b.Fatalf("%d jobs", len(jobs))
		}
		for _, j := range jobs {
			if _, err := render.Render(j.Input, kinds); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkRenderGateway renders one Gateway of that platform (20 routes
// in its nginx.conf): the controller's work when one Gateway changes.
func BenchmarkRenderGateway(b *testing.B) {
	w := benchWorld(b, 100, 10)
	_, jobs := Plan(w, "strata.dev/blueprint-controller", "strata-system")
	in := jobs[0].Input
	kinds := render.Kinds{Scope: render.StaticScope(nil), Types: clientgoscheme.Scheme}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := render.Render(in, kinds); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMerge merges one Gateway's values (blueprint and five configs
// among the platform's 3,101).
func BenchmarkMerge(b *testing.B) {
	w := benchWorld(b, 100, 10)
	var configs []*values.Config
	for _, c := range w.ClassConfigs {
		configs = append(configs, values.ClassConfig(c))
	}
	for _, c := range w.GatewayConfigs {
		configs = append(configs, values.GatewayConfig(c))
	}
	p := values.Parent{Kind: "Gateway", Namespace: "tenant-50", Name: "gw-5", Class: "internet"}
	b.ReportAllocs()
	for b.Loop() {
		v, err := values.Merge(w.Blueprints[0], p, configs, "strata-system")
		if err != nil || len(v.Applied) != 5 {
			b.Fatalf("%v, %d applied", err, len(v.Applied))
		}
	}
}

func ref(group, kind, name string) gwv1.LocalPolicyTargetReference {
	return gwv1.LocalPolicyTargetReference{Group: gwv1.Group(group), Kind: gwv1.Kind(kind), Name: gwv1.ObjectName(name)}
}
