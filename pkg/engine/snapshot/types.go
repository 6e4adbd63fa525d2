package snapshot

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1b1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
)

// Snapshot is one consistent view of everything the engine needs. Slices
// may be in any order; the engine sorts what it outputs.
type Snapshot struct {
	GatewayClasses  []*gwv1.GatewayClass
	Gateways        []*gwv1.Gateway
	ListenerSets    []*gwv1.ListenerSet
	HTTPRoutes      []*gwv1.HTTPRoute
	GRPCRoutes      []*gwv1.GRPCRoute
	TCPRoutes       []*gwv1.TCPRoute
	TLSRoutes       []*gwv1.TLSRoute
	UDPRoutes       []*gwv1.UDPRoute
	Services        []*corev1.Service
	Namespaces      []*corev1.Namespace
	ReferenceGrants []*gwv1b1.ReferenceGrant

	// Declarations are PolicyKind objects (policykind.Declaration).
	Declarations []*strata.PolicyKind
	// PolicyCRDs are CustomResourceDefinitions carrying the GEP-713 policy
	// label; each yields a declaration when no PolicyKind names its kind.
	PolicyCRDs []*unstructured.Unstructured
	// CRDs are the CustomResourceDefinitions of declared policy kinds,
	// labelled or not, for their schemas.
	CRDs []*unstructured.Unstructured
	// Policies are instances of declared policy kinds.
	Policies []*unstructured.Unstructured
}
