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

// IsListKind tells whether kind is a list (List, or any kind ending in
// List). List kinds are never rendered: a list's items would escape the
// checks of a render, and discovery gives every <Kind>List the scope of
// <Kind>, so no scope lookup may stand in for this check.
func IsListKind(kind string) bool { return strings.HasSuffix(kind, "List") }

// StaticScope is the Scope of a render without a cluster (`strata
// render`). It knows every kind of the generated table (kinds_generated.go,
// `go run ./hack/kinds`), and the new kind of each CustomResourceDefinition
// among crds with the scope it declares. A CRD never changes the scope of
// a kind the table knows nor declares a kind in a group kube-apiserver
// serves, so files cannot make a cluster-scoped kind pass for a namespaced
// one; such a CRD is ignored (IgnoredCRDs says why), as is one with an
// invalid spec.scope, and a kind two CRDs declare with different scopes is
// unknown. List kinds and any other kind are unknown: rendering refuses
// them.
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
// through a REST mapper. List kinds and kinds spelt in lower case, which
// discovery mappers also answer for, are unknown, as offline.
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
