package render

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// crd is a CustomResourceDefinition as `strata render -f` reads it.
func crd(group, kind, scope string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": strings.ToLower(kind) + "s." + group},
		"spec": map[string]any{
			"group": group,
			"names": map[string]any{"kind": kind, "plural": strings.ToLower(kind) + "s"},
			"scope": scope,
		},
	}}
}

// StaticScope knows the generated table's kinds and the new kinds of the
// CRDs among the files, and nothing else; no CRD changes a built-in
// kind's scope.
func TestStaticScope(t *testing.T) {
	const (
		rbac    = "rbac.authorization.k8s.io"
		gateway = "gateway.networking.k8s.io"
	)
	type want int
	const (
		unknown want = iota
		namespaced
		cluster
	)
	cases := []struct {
		name string
		crds []*unstructured.Unstructured
		gk   schema.GroupKind
		want want
	}{
		{"core namespaced", nil, schema.GroupKind{Kind: "ConfigMap"}, namespaced},
		{"core cluster-scoped", nil, schema.GroupKind{Kind: "Namespace"}, cluster},
		{"ClusterRoleBinding", nil, schema.GroupKind{Group: rbac, Kind: "ClusterRoleBinding"}, cluster},
		{"RoleBinding", nil, schema.GroupKind{Group: rbac, Kind: "RoleBinding"}, namespaced},
		{"DeviceTaintRule (alpha, served with every API enabled)", nil, schema.GroupKind{Group: "resource.k8s.io", Kind: "DeviceTaintRule"}, cluster},
		{"DeviceClass", nil, schema.GroupKind{Group: "resource.k8s.io", Kind: "DeviceClass"}, cluster},
		{"CustomResourceDefinition", nil, schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}, cluster},
		{"APIService", nil, schema.GroupKind{Group: "apiregistration.k8s.io", Kind: "APIService"}, cluster},

		{"GatewayClass", nil, schema.GroupKind{Group: gateway, Kind: "GatewayClass"}, cluster},
		{"Gateway", nil, schema.GroupKind{Group: gateway, Kind: "Gateway"}, namespaced},
		{"HTTPRoute", nil, schema.GroupKind{Group: gateway, Kind: "HTTPRoute"}, namespaced},
		{"GRPCRoute", nil, schema.GroupKind{Group: gateway, Kind: "GRPCRoute"}, namespaced},
		{"TLSRoute", nil, schema.GroupKind{Group: gateway, Kind: "TLSRoute"}, namespaced},
		{"TCPRoute (experimental)", nil, schema.GroupKind{Group: gateway, Kind: "TCPRoute"}, namespaced},
		{"UDPRoute (experimental)", nil, schema.GroupKind{Group: gateway, Kind: "UDPRoute"}, namespaced},
		{"ListenerSet", nil, schema.GroupKind{Group: gateway, Kind: "ListenerSet"}, namespaced},
		{"ReferenceGrant", nil, schema.GroupKind{Group: gateway, Kind: "ReferenceGrant"}, namespaced},
		{"BackendTLSPolicy", nil, schema.GroupKind{Group: gateway, Kind: "BackendTLSPolicy"}, namespaced},
		{"XBackendTrafficPolicy (experimental)", nil, schema.GroupKind{Group: "gateway.networking.x-k8s.io", Kind: "XBackendTrafficPolicy"}, namespaced},

		{"GatewayClassBlueprint", nil, schema.GroupKind{Group: "blueprints.strata.dev", Kind: "GatewayClassBlueprint"}, cluster},
		{"GatewayClassConfig", nil, schema.GroupKind{Group: "blueprints.strata.dev", Kind: "GatewayClassConfig"}, namespaced},
		{"GatewayConfig", nil, schema.GroupKind{Group: "blueprints.strata.dev", Kind: "GatewayConfig"}, namespaced},
		{"PolicyKind", nil, schema.GroupKind{Group: "strata.dev", Kind: "PolicyKind"}, cluster},
		{"EffectivePolicy", nil, schema.GroupKind{Group: "strata.dev", Kind: "EffectivePolicy"}, namespaced},

		{"List", nil, schema.GroupKind{Kind: "List"}, unknown},
		{"ConfigMapList", nil, schema.GroupKind{Kind: "ConfigMapList"}, unknown},
		{"ClusterRoleBindingList", nil, schema.GroupKind{Group: rbac, Kind: "ClusterRoleBindingList"}, unknown},
		{"kind spelled in lower case", nil, schema.GroupKind{Group: rbac, Kind: "clusterrolebinding"}, unknown},
		{"kind in the wrong group", nil, schema.GroupKind{Group: "apps", Kind: "ConfigMap"}, unknown},
		{"kind without a CRD", nil, schema.GroupKind{Group: "example.com", Kind: "Widget"}, unknown},
		{"subresource kind is not a kind of its own", nil, schema.GroupKind{Group: "policy", Kind: "Eviction"}, unknown},

		{"CRD of a new namespaced kind", []*unstructured.Unstructured{crd("example.com", "Widget", "Namespaced")},
			schema.GroupKind{Group: "example.com", Kind: "Widget"}, namespaced},
		{"CRD of a new cluster-scoped kind", []*unstructured.Unstructured{crd("example.com", "Widget", "Cluster")},
			schema.GroupKind{Group: "example.com", Kind: "Widget"}, cluster},
		{"CRD claiming ClusterRoleBinding is namespaced", []*unstructured.Unstructured{crd(rbac, "ClusterRoleBinding", "Namespaced")},
			schema.GroupKind{Group: rbac, Kind: "ClusterRoleBinding"}, cluster},
		{"CRD claiming GatewayClass is namespaced", []*unstructured.Unstructured{crd(gateway, "GatewayClass", "Namespaced")},
			schema.GroupKind{Group: gateway, Kind: "GatewayClass"}, cluster},
		{"CRD of a new kind in a kube-apiserver group", []*unstructured.Unstructured{crd(rbac, "ClusterThing", "Namespaced")},
			schema.GroupKind{Group: rbac, Kind: "ClusterThing"}, unknown},
		{"CRD of a new kind in the core group", []*unstructured.Unstructured{crd("", "Thing", "Namespaced")},
			schema.GroupKind{Kind: "Thing"}, unknown},
		{"CRD of a new Gateway API kind", []*unstructured.Unstructured{crd(gateway, "MeshRoute", "Namespaced")},
			schema.GroupKind{Group: gateway, Kind: "MeshRoute"}, namespaced},
		{"CRD with a scope in the wrong case", []*unstructured.Unstructured{crd("example.com", "Widget", "namespaced")},
			schema.GroupKind{Group: "example.com", Kind: "Widget"}, unknown},
		{"two CRDs of a kind with different scopes", []*unstructured.Unstructured{crd("example.com", "Widget", "Namespaced"), crd("example.com", "Widget", "Cluster")},
			schema.GroupKind{Group: "example.com", Kind: "Widget"}, unknown},
		{"two CRDs of a kind with the same scope", []*unstructured.Unstructured{crd("example.com", "Widget", "Cluster"), crd("example.com", "Widget", "Cluster")},
			schema.GroupKind{Group: "example.com", Kind: "Widget"}, cluster},
		{"CRD of a list kind", []*unstructured.Unstructured{crd("example.com", "WidgetList", "Namespaced")},
			schema.GroupKind{Group: "example.com", Kind: "WidgetList"}, unknown},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ns, known := StaticScope(c.crds)(c.gk)
			got := unknown
			switch {
			case known && ns:
				got = namespaced
			case known:
				got = cluster
			}
			names := map[want]string{unknown: "unknown", namespaced: "namespaced", cluster: "cluster-scoped"}
			if got != c.want {
				t.Errorf("StaticScope(%s) = %s, want %s", c.gk, names[got], names[c.want])
			}
		})
	}
}

// IgnoredCRDs names each CRD StaticScope does not trust, and why.
func TestIgnoredCRDs(t *testing.T) {
	cases := []struct {
		name string
		crds []*unstructured.Unstructured
		want []string // one substring per error
	}{
		{"new kinds", []*unstructured.Unstructured{crd("example.com", "Widget", "Namespaced"), crd("gateway.networking.k8s.io", "MeshRoute", "Cluster")}, nil},
		{"built-in kind", []*unstructured.Unstructured{crd("rbac.authorization.k8s.io", "ClusterRoleBinding", "Namespaced")},
			[]string{`"clusterrolebindings.rbac.authorization.k8s.io": kind ClusterRoleBinding.rbac.authorization.k8s.io is built in (cluster-scoped)`}},
		{"kube-apiserver group", []*unstructured.Unstructured{crd("apps", "Thing", "Namespaced")}, []string{`group "apps" is served by kube-apiserver`}},
		{"bad scope", []*unstructured.Unstructured{crd("example.com", "Widget", "")}, []string{`spec.scope "" must be Namespaced or Cluster`}},
		{"no group", []*unstructured.Unstructured{crd("", "Widget", "Namespaced")}, []string{"spec.group and spec.names.kind must be set"}},
		{"both scopes", []*unstructured.Unstructured{crd("example.com", "Widget", "Namespaced"), crd("example.com", "Widget", "Cluster"), crd("example.com", "Widget", "Namespaced")},
			[]string{"declared with both scopes", "declared with both scopes"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := IgnoredCRDs(c.crds)
			if len(got) != len(c.want) {
				t.Fatalf("IgnoredCRDs = %v, want %d errors", got, len(c.want))
			}
			for i, err := range got {
				if !strings.Contains(err.Error(), c.want[i]) {
					t.Errorf("error %d = %q, want it to contain %q", i, err, c.want[i])
				}
			}
		})
	}
}

func TestIsListKind(t *testing.T) {
	for kind, want := range map[string]bool{
		"List":                   true,
		"ConfigMapList":          true,
		"ClusterRoleBindingList": true,
		"ConfigMap":              false,
		"Listener":               false,
		"ListenerSet":            false,
		"":                       false,
	} {
		if got := IsListKind(kind); got != want {
			t.Errorf("IsListKind(%q) = %v, want %v", kind, got, want)
		}
	}
}

// The generated table holds no list kinds (discovery lists resources, not
// their lists), and IsListKind would refuse any it held.
func TestGeneratedKindsHaveNoLists(t *testing.T) {
	for gk := range generatedKinds {
		if IsListKind(gk.Kind) {
			t.Errorf("generated table holds list kind %s", gk)
		}
	}
}
