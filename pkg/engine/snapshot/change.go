package snapshot

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1b1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/engine/policykind"
)

// Change is one input object added or updated (its new state), or, with
// Deleted, removed (its last known state; namespace and name are enough).
// A policy, or a CustomResourceDefinition, is an Unstructured.
type Change struct {
	Object  runtime.Object
	Deleted bool
}

// CRDKind is the kind of a CustomResourceDefinition.
var CRDKind = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// With returns s after the change: the object added to the list of its
// kind, or put in place of the object of that kind, namespace and name,
// or removed from it. s is not changed; the result shares every other
// list with it.
func (s *Snapshot) With(c Change) (*Snapshot, error) {
	out := *s
	switch o := c.Object.(type) {
	case *gwv1.GatewayClass:
		out.GatewayClasses = with(s.GatewayClasses, o, c.Deleted)
	case *gwv1.Gateway:
		out.Gateways = with(s.Gateways, o, c.Deleted)
	case *gwv1.ListenerSet:
		out.ListenerSets = with(s.ListenerSets, o, c.Deleted)
	case *gwv1.HTTPRoute:
		out.HTTPRoutes = with(s.HTTPRoutes, o, c.Deleted)
	case *gwv1.GRPCRoute:
		out.GRPCRoutes = with(s.GRPCRoutes, o, c.Deleted)
	case *gwv1.TCPRoute:
		out.TCPRoutes = with(s.TCPRoutes, o, c.Deleted)
	case *gwv1.TLSRoute:
		out.TLSRoutes = with(s.TLSRoutes, o, c.Deleted)
	case *gwv1.UDPRoute:
		out.UDPRoutes = with(s.UDPRoutes, o, c.Deleted)
	case *corev1.Service:
		out.Services = with(s.Services, o, c.Deleted)
	case *corev1.Namespace:
		out.Namespaces = with(s.Namespaces, o, c.Deleted)
	case *gwv1b1.ReferenceGrant:
		out.ReferenceGrants = with(s.ReferenceGrants, o, c.Deleted)
	case *strata.PolicyKind:
		out.Declarations = with(s.Declarations, o, c.Deleted)
	case *unstructured.Unstructured:
		if o.GroupVersionKind().GroupKind() != CRDKind {
			out.Policies = withKind(s.Policies, o, c.Deleted)
			break
		}
		// A CRD that loses the label is a PolicyCRD no longer.
		_, labelled := o.GetLabels()[policykind.CRDLabel]
		out.PolicyCRDs = withKind(s.PolicyCRDs, o, c.Deleted || !labelled)
		out.CRDs = withKind(s.CRDs, o, c.Deleted)
	default:
		return nil, fmt.Errorf("snapshot: %T is not an input the engine reads", c.Object)
	}
	return &out, nil
}

// with is list with o added, in place of the object of its namespace and
// name, or, with deleted, without that object.
func with[T metav1.Object](list []T, o T, deleted bool) []T {
	i := slices.IndexFunc(list, func(x T) bool { return x.GetName() == o.GetName() && x.GetNamespace() == o.GetNamespace() })
	return replace(list, i, o, deleted)
}

// withKind is with for objects of many kinds in one list.
func withKind(list []*unstructured.Unstructured, o *unstructured.Unstructured, deleted bool) []*unstructured.Unstructured {
	gk := o.GroupVersionKind().GroupKind()
	i := slices.IndexFunc(list, func(x *unstructured.Unstructured) bool {
		return x.GetName() == o.GetName() && x.GetNamespace() == o.GetNamespace() && x.GroupVersionKind().GroupKind() == gk
	})
	return replace(list, i, o, deleted)
}

// replace is a copy of list with o at i (appended when i < 0) or, with
// deleted, without the element at i.
func replace[T any](list []T, i int, o T, deleted bool) []T {
	switch {
	case i < 0 && deleted:
		return list
	case i < 0:
		return append(slices.Clip(list), o)
	case deleted:
		return slices.Delete(slices.Clone(list), i, i+1)
	}
	out := slices.Clone(list)
	out[i] = o
	return out
}

// WithAll is s after the changes, in order, as With after With gives it,
// at the cost of one pass over the policies for all of them.
func (s *Snapshot) WithAll(cs []Change) (*Snapshot, error) {
	out := s
	var policies []Change
	for _, c := range cs {
		if IsPolicy(c.Object) {
			policies = append(policies, c)
			continue
		}
		var err error
		if out, err = out.With(c); err != nil {
			return nil, err
		}
	}
	return out.WithPolicies(policies), nil
}

// IsPolicy reports whether o goes to the Policies of a snapshot: an
// Unstructured other than a CRD.
func IsPolicy(o runtime.Object) bool {
	u, ok := o.(*unstructured.Unstructured)
	return ok && u.GroupVersionKind().GroupKind() != CRDKind
}

// WithPolicies is WithAll of changes that are all of policies
// (IsPolicy), which cannot fail.
func (s *Snapshot) WithPolicies(cs []Change) *Snapshot {
	if len(cs) == 0 {
		return s
	}
	type key struct {
		gk              schema.GroupKind
		namespace, name string
	}
	keyOf := func(u *unstructured.Unstructured) key {
		return key{u.GroupVersionKind().GroupKind(), u.GetNamespace(), u.GetName()}
	}
	list := slices.Clone(s.Policies)
	at := make(map[key]int, len(list))
	for i, u := range list {
		at[keyOf(u)] = i
	}
	for _, c := range cs {
		u := c.Object.(*unstructured.Unstructured)
		k := keyOf(u)
		if j, ok := at[k]; ok {
			list[j] = nil
			delete(at, k)
		}
		if !c.Deleted {
			at[k] = len(list)
			list = append(list, u)
		}
	}
	next := *s
	next.Policies = slices.DeleteFunc(list, func(u *unstructured.Unstructured) bool { return u == nil })
	return &next
}
