// Package clustersource reads a snapshot from a cluster through a
// controller-runtime reader (normally the manager's informer cache): the
// same plain data the file source gives, so the controller and the CLI
// share the engine.
package clustersource

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1b1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"github.com/strata-dev/strata/pkg/policykind"
	"github.com/strata-dev/strata/pkg/snapshot"
)

// TopologyKind is a kind the topology is built from, with the list type
// to read it and where its items go in a snapshot.
type TopologyKind struct {
	GVK  schema.GroupVersionKind
	New  func() client.Object
	List func() client.ObjectList
	Add  func(s *snapshot.Snapshot, l client.ObjectList)
}

// Gateway API group versions as schema types (the packages' own
// SchemeGroupVersion is deprecated in favour of a metav1.GroupVersion).
var (
	gatewayV1      = schema.GroupVersion{Group: gwv1.GroupVersion.Group, Version: gwv1.GroupVersion.Version}
	gatewayV1beta1 = schema.GroupVersion{Group: gwv1b1.GroupVersion.Group, Version: gwv1b1.GroupVersion.Version}
)

// TopologyKinds is the table of kinds read for the topology.
var TopologyKinds = []TopologyKind{
	{gatewayV1.WithKind("GatewayClass"), func() client.Object { return &gwv1.GatewayClass{} }, func() client.ObjectList { return &gwv1.GatewayClassList{} },
		func(s *snapshot.Snapshot, l client.ObjectList) {
			s.GatewayClasses = ptrs(l.(*gwv1.GatewayClassList).Items)
		}},
	{gatewayV1.WithKind("Gateway"), func() client.Object { return &gwv1.Gateway{} }, func() client.ObjectList { return &gwv1.GatewayList{} },
		func(s *snapshot.Snapshot, l client.ObjectList) { s.Gateways = ptrs(l.(*gwv1.GatewayList).Items) }},
	{gatewayV1.WithKind("HTTPRoute"), func() client.Object { return &gwv1.HTTPRoute{} }, func() client.ObjectList { return &gwv1.HTTPRouteList{} },
		func(s *snapshot.Snapshot, l client.ObjectList) { s.HTTPRoutes = ptrs(l.(*gwv1.HTTPRouteList).Items) }},
	{gatewayV1.WithKind("GRPCRoute"), func() client.Object { return &gwv1.GRPCRoute{} }, func() client.ObjectList { return &gwv1.GRPCRouteList{} },
		func(s *snapshot.Snapshot, l client.ObjectList) { s.GRPCRoutes = ptrs(l.(*gwv1.GRPCRouteList).Items) }},
	{gatewayV1.WithKind("TCPRoute"), func() client.Object { return &gwv1.TCPRoute{} }, func() client.ObjectList { return &gwv1.TCPRouteList{} },
		func(s *snapshot.Snapshot, l client.ObjectList) { s.TCPRoutes = ptrs(l.(*gwv1.TCPRouteList).Items) }},
	{gatewayV1.WithKind("TLSRoute"), func() client.Object { return &gwv1.TLSRoute{} }, func() client.ObjectList { return &gwv1.TLSRouteList{} },
		func(s *snapshot.Snapshot, l client.ObjectList) { s.TLSRoutes = ptrs(l.(*gwv1.TLSRouteList).Items) }},
	{gatewayV1.WithKind("UDPRoute"), func() client.Object { return &gwv1.UDPRoute{} }, func() client.ObjectList { return &gwv1.UDPRouteList{} },
		func(s *snapshot.Snapshot, l client.ObjectList) { s.UDPRoutes = ptrs(l.(*gwv1.UDPRouteList).Items) }},
	{gatewayV1beta1.WithKind("ReferenceGrant"), func() client.Object { return &gwv1b1.ReferenceGrant{} }, func() client.ObjectList { return &gwv1b1.ReferenceGrantList{} },
		func(s *snapshot.Snapshot, l client.ObjectList) {
			s.ReferenceGrants = ptrs(l.(*gwv1b1.ReferenceGrantList).Items)
		}},
	{corev1.SchemeGroupVersion.WithKind("Service"), func() client.Object { return &corev1.Service{} }, func() client.ObjectList { return &corev1.ServiceList{} },
		func(s *snapshot.Snapshot, l client.ObjectList) { s.Services = ptrs(l.(*corev1.ServiceList).Items) }},
	{corev1.SchemeGroupVersion.WithKind("Namespace"), func() client.Object { return &corev1.Namespace{} }, func() client.ObjectList { return &corev1.NamespaceList{} },
		func(s *snapshot.Snapshot, l client.ObjectList) { s.Namespaces = ptrs(l.(*corev1.NamespaceList).Items) }},
}

// CRDGVK and PolicyKindGVK are the declaration sources.
var (
	CRDGVK        = apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition")
	PolicyKindGVK = schema.GroupVersionKind{Group: policykind.Group, Version: policykind.Version, Kind: policykind.KindName}
)

// AddToScheme registers the typed kinds the source reads.
func AddToScheme(s *runtime.Scheme) error {
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, gwv1.Install, gwv1b1.Install, apiextensionsv1.AddToScheme} {
		if err := add(s); err != nil {
			return err
		}
	}
	return nil
}

// PolicyGVK is a policy kind as served by the cluster.
type PolicyGVK struct {
	schema.GroupVersionKind
	// Namespaced is false for cluster-scoped policy CRDs.
	Namespaced bool
}

// Reader reads snapshots. Present says whether the cluster serves a kind
// (its CRD may not be installed); absent kinds are left empty.
type Reader struct {
	Client  client.Reader
	Present func(schema.GroupVersionKind) bool
}

// Snapshot lists every object the engine needs. Policy kinds come from
// PolicyKind objects and labelled CRDs; their instances are read for each
// kind whose CRD is established.
func (r *Reader) Snapshot(ctx context.Context) (*snapshot.Snapshot, []PolicyGVK, error) {
	s := &snapshot.Snapshot{}
	for _, k := range TopologyKinds {
		if !r.Present(k.GVK) {
			continue
		}
		l := k.List()
		if err := r.Client.List(ctx, l); err != nil {
			return nil, nil, fmt.Errorf("list %s: %w", k.GVK.Kind, err)
		}
		k.Add(s, l)
	}
	crds, err := r.crds(ctx)
	if err != nil {
		return nil, nil, err
	}
	if r.Present(PolicyKindGVK) {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(PolicyKindGVK.GroupVersion().WithKind(PolicyKindGVK.Kind + "List"))
		if err := r.Client.List(ctx, l); err != nil {
			return nil, nil, fmt.Errorf("list PolicyKinds: %w", err)
		}
		for i := range l.Items {
			d := &policykind.Declaration{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(l.Items[i].Object, d); err != nil {
				return nil, nil, fmt.Errorf("PolicyKind %s: %w", l.Items[i].GetName(), err)
			}
			s.Declarations = append(s.Declarations, d)
		}
	}
	declared := map[schema.GroupKind]bool{}
	for _, d := range s.Declarations {
		declared[schema.GroupKind{Group: d.Spec.Group, Kind: d.Spec.Kind}] = true
	}
	var kinds []PolicyGVK
	for _, crd := range crds {
		gk := schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}
		_, labelled := crd.Labels[policykind.CRDLabel]
		if labelled {
			u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(crd)
			if err != nil {
				return nil, nil, err
			}
			s.PolicyCRDs = append(s.PolicyCRDs, &unstructured.Unstructured{Object: u})
		}
		if !labelled && !declared[gk] || !established(crd) {
			continue
		}
		kinds = append(kinds, PolicyGVK{GroupVersionKind: gk.WithVersion(storageVersion(crd)), Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped})
	}
	sort.Slice(kinds, func(i, j int) bool { return kinds[i].String() < kinds[j].String() })
	for _, k := range kinds {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(k.GroupVersion().WithKind(k.Kind + "List"))
		if err := r.Client.List(ctx, l); err != nil {
			if meta.IsNoMatchError(err) {
				continue
			}
			return nil, nil, fmt.Errorf("list %s: %w", k.Kind, err)
		}
		for i := range l.Items {
			s.Policies = append(s.Policies, &l.Items[i])
		}
	}
	return s, kinds, nil
}

func (r *Reader) crds(ctx context.Context) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	l := &apiextensionsv1.CustomResourceDefinitionList{}
	if err := r.Client.List(ctx, l); err != nil {
		return nil, fmt.Errorf("list CustomResourceDefinitions: %w", err)
	}
	return ptrs(l.Items), nil
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}

// storageVersion is the version to read: the storage version (every
// served version converts to it).
func storageVersion(crd *apiextensionsv1.CustomResourceDefinition) string {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return crd.Spec.Versions[0].Name
}

func ptrs[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}
