package blueprint

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
)

// knownScope says which kinds are cluster-scoped (true) or namespaced
// (false): the cluster-scoped kinds of Kubernetes' built-in groups, and the
// standard kinds of Gateway API and Strata, which client-go's scheme does
// not know. Every other kind of client-go's scheme is namespaced; any
// other kind needs its CRD among the files.
var knownScope = map[schema.GroupKind]bool{
	{Kind: "Namespace"}:        true,
	{Kind: "Node"}:             true,
	{Kind: "PersistentVolume"}: true,
	{Kind: "ComponentStatus"}:  true,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:                         true,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}:                  true,
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}:                 true,
	{Group: "apiregistration.k8s.io", Kind: "APIService"}:                             true,
	{Group: "storage.k8s.io", Kind: "StorageClass"}:                                   true,
	{Group: "storage.k8s.io", Kind: "CSIDriver"}:                                      true,
	{Group: "storage.k8s.io", Kind: "CSINode"}:                                        true,
	{Group: "storage.k8s.io", Kind: "VolumeAttachment"}:                               true,
	{Group: "storage.k8s.io", Kind: "VolumeAttributesClass"}:                          true,
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"}:                               true,
	{Group: "node.k8s.io", Kind: "RuntimeClass"}:                                      true,
	{Group: "networking.k8s.io", Kind: "IngressClass"}:                                true,
	{Group: "networking.k8s.io", Kind: "IPAddress"}:                                   true,
	{Group: "networking.k8s.io", Kind: "ServiceCIDR"}:                                 true,
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}:   true,
	{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}:     true,
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicy"}:        true,
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingAdmissionPolicyBinding"}: true,
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicy"}:          true,
	{Group: "admissionregistration.k8s.io", Kind: "MutatingAdmissionPolicyBinding"}:   true,
	{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest"}:                 true,
	{Group: "certificates.k8s.io", Kind: "ClusterTrustBundle"}:                        true,
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "FlowSchema"}:                       true,
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "PriorityLevelConfiguration"}:       true,
	{Group: "resource.k8s.io", Kind: "DeviceClass"}:                                   true,
	{Group: "resource.k8s.io", Kind: "ResourceSlice"}:                                 true,
	{Group: "gateway.networking.k8s.io", Kind: "GatewayClass"}:                        true,
	{Group: bpv1.Group, Kind: bpv1.BlueprintKind}:                                     true,
	{Group: "strata.dev", Kind: "PolicyKind"}:                                         true,
	{Group: "authentication.k8s.io", Kind: "TokenReview"}:                             true,
	{Group: "authorization.k8s.io", Kind: "SubjectAccessReview"}:                      true,
	{Group: "authorization.k8s.io", Kind: "SelfSubjectAccessReview"}:                  true,
	{Group: "authorization.k8s.io", Kind: "SelfSubjectRulesReview"}:                   true,
	{Group: "authentication.k8s.io", Kind: "SelfSubjectReview"}:                       true,
	{Group: "internal.apiserver.k8s.io", Kind: "StorageVersion"}:                      true,
	{Group: "storagemigration.k8s.io", Kind: "StorageVersionMigration"}:               true,
	{Group: "gateway.networking.k8s.io", Kind: "Gateway"}:                             false,
	{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute"}:                           false,
	{Group: "gateway.networking.k8s.io", Kind: "GRPCRoute"}:                           false,
	{Group: "gateway.networking.k8s.io", Kind: "ReferenceGrant"}:                      false,
	{Group: "gateway.networking.k8s.io", Kind: "BackendTLSPolicy"}:                    false,
	{Group: "gateway.networking.k8s.io", Kind: "ListenerSet"}:                         false,
	{Group: "gateway.networking.k8s.io", Kind: "TLSRoute"}:                            false,
	{Group: "gateway.networking.k8s.io", Kind: "TCPRoute"}:                            false,
	{Group: "gateway.networking.k8s.io", Kind: "UDPRoute"}:                            false,
	{Group: "strata.dev", Kind: "EffectivePolicy"}:                                    false,
	{Group: "blueprints.strata.dev", Kind: "GatewayClassConfig"}:                      false,
	{Group: "blueprints.strata.dev", Kind: "GatewayConfig"}:                           false,
}

// StaticScope is the Scope of a render without a cluster (`strata
// render`): the built-in kinds of Kubernetes and Gateway API, plus the
// CustomResourceDefinitions given (from the same files), which say their
// own scope. Any other kind is unknown, and rendering refuses it, as the
// controller does for a kind its API server does not serve.
func StaticScope(crds []*unstructured.Unstructured) Scope {
	custom := map[schema.GroupKind]bool{}
	for _, crd := range crds {
		group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
		scope, _, _ := unstructured.NestedString(crd.Object, "spec", "scope")
		if group != "" && kind != "" {
			custom[schema.GroupKind{Group: group, Kind: kind}] = scope != "Cluster"
		}
	}
	builtin := map[schema.GroupKind]bool{}
	for gvk := range clientgoscheme.Scheme.AllKnownTypes() {
		builtin[gvk.GroupKind()] = true
	}
	return func(gk schema.GroupKind) (bool, bool) {
		if ns, ok := custom[gk]; ok {
			return ns, true
		}
		if cluster, ok := knownScope[gk]; ok {
			return !cluster, true
		}
		if builtin[gk] {
			return true, true
		}
		return false, false
	}
}
