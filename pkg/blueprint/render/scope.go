package render

import (
	"fmt"
	"k8s.io/apimachinery/pkg/api/meta"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// kindScope is a kind's scope in the table of kinds_generated.go.
type kindScope uint8

const (
	scopeNamespaced kindScope = iota + 1
	scopeCluster
)

// IsListKind tells whether kind is a list: List, or any kind ending in
// List (ConfigMapList, the list kind of each served kind). List kinds are
// never rendered: a list wraps other objects (items), which the checks of
// a render (namespace, cluster scope, labels, owners) would not see, and
// discovery's RESTMapper gives every <Kind>List the scope of <Kind> and
// List the cluster scope, so no scope lookup may stand in for this check.
// A CRD whose kind ends in List cannot be rendered either.
func IsListKind(kind string) bool { return strings.HasSuffix(kind, "List") }

// StaticScope is the Scope of a render without a cluster (`strata
// render`). It knows exactly:
//
//   - every kind of the generated table (kinds_generated.go, made by `go
//     run ./hack/kinds` from a kube-apiserver of the pinned Kubernetes
//     version serving every API group and version, with the Gateway API
//     experimental-channel CRDs and Strata's CRDs installed), with the
//     scope that server gives it; and
//   - the new kind of each CustomResourceDefinition among crds (from the
//     same files), with the scope the CRD declares.
//
// A CRD never changes the scope of a kind the table knows, nor declares a
// kind in a group kube-apiserver serves itself: files must not make a
// cluster-scoped kind (a ClusterRoleBinding, or a built-in kind newer than
// the table) pass for a namespaced one and be rendered into a tenant's
// namespace. Such a CRD is ignored, as is one whose spec.scope is neither
// Namespaced nor Cluster, and a kind that two CRDs declare with different
// scopes is unknown; IgnoredCRDs says which and why, for a caller to warn.
// List kinds (IsListKind) are unknown. Any other kind is unknown, and
// rendering refuses it, as the controller does for a kind its API server
// does not serve.
func StaticScope(crds []*unstructured.Unstructured) Scope {
	custom, _ := crdScopes(crds)
	return func(gk schema.GroupKind) (namespaced, known bool) {
		if IsListKind(gk.Kind) {
			return false, false
		}
		s, ok := generatedKinds[gk]
		if !ok {
			s, ok = custom[gk]
		}
		return s == scopeNamespaced, ok
	}
}

// IgnoredCRDs are the reasons StaticScope ignores CustomResourceDefinitions
// among crds, one error per CRD, in the order of crds; nil when it trusts
// them all.
func IgnoredCRDs(crds []*unstructured.Unstructured) []error {
	_, ignored := crdScopes(crds)
	return ignored
}

// crdScopes are the scopes of the new kinds crds declare, and why the
// other CRDs are ignored.
func crdScopes(crds []*unstructured.Unstructured) (map[schema.GroupKind]kindScope, []error) {
	custom := map[schema.GroupKind]kindScope{}
	conflict := map[schema.GroupKind]bool{}
	var ignored []error
	for _, crd := range crds {
		group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
		scope, _, _ := unstructured.NestedString(crd.Object, "spec", "scope")
		gk := schema.GroupKind{Group: group, Kind: kind}
		ignore := func(format string, a ...any) {
			ignored = append(ignored, fmt.Errorf("CustomResourceDefinition %q: "+format, append([]any{crd.GetName()}, a...)...))
		}
		var s kindScope
		switch scope {
		case "Namespaced":
			s = scopeNamespaced
		case "Cluster":
			s = scopeCluster
		}
		switch known, builtin := generatedKinds[gk]; {
		case group == "" || kind == "":
			ignore("spec.group and spec.names.kind must be set")
		case builtin:
			ignore("kind %s is built in (%s); a CRD cannot change its scope", gk, known)
		case generatedAPIServerGroups[group]:
			ignore("group %q is served by kube-apiserver itself, not by CRDs", group)
		case s == 0:
			ignore("spec.scope %q must be Namespaced or Cluster", scope)
		case conflict[gk]:
			ignore("kind %s is declared with both scopes among the files", gk)
		default:
			if prev, seen := custom[gk]; seen && prev != s {
				delete(custom, gk)
				conflict[gk] = true
				ignore("kind %s is declared with both scopes among the files", gk)
				continue
			}
			custom[gk] = s
		}
	}
	return custom, ignored
}

// String is how a scope reads in messages.
func (s kindScope) String() string {
	switch s {
	case scopeNamespaced:
		return "namespaced"
	case scopeCluster:
		return "cluster-scoped"
	}
	return "unknown scope"
}

// MapperScope is the Scope of a cluster: its API server's discovery,
// through a REST mapper. Discovery mappers also answer for list kinds
// (`ConfigMapList` as namespaced, `List` as cluster-scoped) and for kinds
// spelt in lower case (`configmap`); neither is a kind the API server
// serves objects of, so both are unknown here, as offline (StaticScope).
func MapperScope(mapper meta.RESTMapper) Scope {
	return func(gk schema.GroupKind) (bool, bool) {
		if IsListKind(gk.Kind) {
			return false, false
		}
		m, err := mapper.RESTMapping(gk)
		if err != nil {
			return false, false
		}
		if k, err := mapper.KindFor(m.Resource); err != nil || k.Kind != gk.Kind {
			return false, false
		}
		return m.Scope.Name() == meta.RESTScopeNameNamespace, true
	}
}
