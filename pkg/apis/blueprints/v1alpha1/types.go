package v1alpha1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// GatewayClassBlueprint is what a GatewayClass of Strata's blueprint
// controller points at (spec.parametersRef): templates that render the
// Kubernetes objects implementing each Gateway and HTTPRoute of the class,
// and the lowest and highest level of values those templates read (002,
// "Policies are Generic Values for Templates"). It is cluster-scoped like
// the GatewayClass, so one blueprint can serve several classes that differ
// only in their GatewayClassConfigs.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=gatewayclassblueprints,singular=gatewayclassblueprint,shortName=gcbp,categories=strata
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Accepted",type=string,JSONPath=`.status.conditions[?(@.type=="Accepted")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type GatewayClassBlueprint struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              BlueprintSpec   `json:"spec"`
	Status            BlueprintStatus `json:"status,omitempty"`
}

// GatewayClassBlueprintList is a list of blueprints, what a client lists.
//
// +kubebuilder:object:root=true
type GatewayClassBlueprintList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []GatewayClassBlueprint `json:"items"`
}

// BlueprintSpec holds the values and templates of a blueprint.
type BlueprintSpec struct {
	// Values are the blueprint's own values: its defaults are the least
	// specific level of the precedence list of 002, its overrides the most
	// authoritative.
	// +optional
	Values Values `json:"values,omitempty"`
	// GatewayTemplate renders the objects of each Gateway of the class.
	// +optional
	GatewayTemplate *Template `json:"gatewayTemplate,omitempty"`
	// HTTPRouteTemplate renders the objects of each HTTPRoute attached to a
	// Gateway of the class, once per (route, Gateway) pair.
	// +optional
	HTTPRouteTemplate *Template `json:"httpRouteTemplate,omitempty"`
	// ClusterScopedKinds lists the cluster-scoped kinds the templates may
	// create. Anything cluster-scoped not listed is refused, because a
	// cluster-scoped object escapes the tenant's namespace.
	// +optional
	// +listType=atomic
	ClusterScopedKinds []GroupKind `json:"clusterScopedKinds,omitempty"`
	// PodSecurity is the level of the Kubernetes Pod Security Standards
	// (https://kubernetes.io/docs/concepts/security/pod-security-standards/)
	// that every pod template the blueprint renders must pass: a Pod, a
	// PodTemplate, and the pod template of a ReplicationController,
	// Deployment, ReplicaSet, StatefulSet, DaemonSet, Job or CronJob. The
	// check is the one Pod Security Admission makes, at the latest version
	// of the standards, and it runs after the templates render and before
	// anything is applied (by the controller) or printed (by `strata
	// render`): an object that fails is refused with every check it
	// failed, and nothing of that render is applied. This is in addition
	// to the pod-security.kubernetes.io labels of the namespace, which the
	// API server still enforces.
	//
	// restricted (the default) is the current pod hardening best practice:
	// non-root, no privilege escalation, all capabilities dropped, a
	// RuntimeDefault or Localhost seccomp profile, and the baseline checks.
	// baseline only prevents known privilege escalations: no host
	// namespaces, host paths or host ports, no privileged containers, no
	// capabilities beyond the default set.
	//
	// privileged is deliberately not offered: the values a tenant writes in
	// a GatewayConfig must never yield a privileged pod, whatever the
	// templates do with them.
	// +optional
	// +kubebuilder:validation:Enum=restricted;baseline
	// +kubebuilder:default=restricted
	PodSecurity PodSecurityLevel `json:"podSecurity,omitempty"`
}

// PodSecurityLevel is a level of the Kubernetes Pod Security Standards
// that a blueprint may require of the pods it renders.
type PodSecurityLevel string

// Pod Security Standards levels a blueprint may require.
const (
	// PodSecurityRestricted is the "restricted" level, the default.
	PodSecurityRestricted PodSecurityLevel = "restricted"
	// PodSecurityBaseline is the "baseline" level.
	PodSecurityBaseline PodSecurityLevel = "baseline"
)

// Values is one source of template values: a defaults block, which more
// specific sources may change, and an overrides block, which less
// specific ones may not (GEP-713 defaults and overrides). Maps are merged
// key by key; scalars and lists are replaced whole; null removes a key.
type Values struct {
	// Default values.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	Default *apiextensionsv1.JSON `json:"default,omitempty"`
	// Override values.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	Override *apiextensionsv1.JSON `json:"override,omitempty"`
}

// Template is what renders one kind of parent (Gateway or HTTPRoute).
type Template struct {
	// ResourceTemplates are named Go text/template sources, each rendering
	// zero or more Kubernetes objects as multi-document YAML. Names key the
	// template's objects in .Resources and appear in error messages.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=64
	ResourceTemplates []ResourceTemplate `json:"resourceTemplates,omitempty"`
	// Status is a template rendering a YAML object whose fields are copied
	// into the parent's status; for a Gateway, `addresses` (a list of
	// GatewayStatusAddress). It reads .Resources, so addresses can come from
	// a rendered Service's status.
	// +optional
	Status string `json:"status,omitempty"`
}

// ResourceTemplate is one named template.
type ResourceTemplate struct {
	// Name of the template, unique within its Template.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`
	// Template is Go text/template source with sprig functions (those
	// reading the environment, files or the network removed).
	// +kubebuilder:validation:MinLength=1
	Template string `json:"template"`
}

// GroupKind names a kind; group "" is the core group.
type GroupKind struct {
	// Group of the kind.
	// +optional
	Group string `json:"group"`
	// Kind name.
	// +kubebuilder:validation:MinLength=1
	Kind string `json:"kind"`
}

// BlueprintStatus says whether the blueprint's templates parse.
type BlueprintStatus struct {
	// Conditions: Accepted.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// GatewayClassConfig is an Inherited policy the infrastructure provider
// attaches to a GatewayClass or a Namespace to give values to the class's
// blueprint (002, "Using RBAC for Role-based Access"). Configs in the
// controller's namespace are global: they apply to Gateways in every
// namespace.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=gatewayclassconfigs,singular=gatewayclassconfig,shortName=gcc,categories=strata;gateway-api
// +kubebuilder:metadata:labels=gateway.networking.k8s.io/policy=inherited
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type GatewayClassConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ConfigSpec        `json:"spec"`
	Status            gwv1.PolicyStatus `json:"status,omitempty"`
}

// GatewayClassConfigList is a list of GatewayClassConfigs.
//
// +kubebuilder:object:root=true
type GatewayClassConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []GatewayClassConfig `json:"items"`
}

// GatewayConfig is an Inherited policy the Gateway's owner attaches to a
// Namespace, a Gateway or an HTTPRoute to give values to the blueprint
// that renders it (002). Being a separate kind from GatewayClassConfig lets
// RBAC give tenants this one and not the other.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=gatewayconfigs,singular=gatewayconfig,shortName=gwc,categories=strata;gateway-api
// +kubebuilder:metadata:labels=gateway.networking.k8s.io/policy=inherited
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type GatewayConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ConfigSpec        `json:"spec"`
	Status            gwv1.PolicyStatus `json:"status,omitempty"`
}

// GatewayConfigList is a list of GatewayConfigs.
//
// +kubebuilder:object:root=true
type GatewayConfigList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []GatewayConfig `json:"items"`
}

// ConfigSpec is the spec of both config kinds: GEP-713 targetRefs in the
// config's own namespace (a GatewayClass is cluster-scoped, a Namespace is
// the config's own) and the values, as default and override blocks.
type ConfigSpec struct {
	// TargetRefs are the objects the config attaches to.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=16
	// +listType=atomic
	TargetRefs []gwv1.LocalPolicyTargetReference `json:"targetRefs"`
	// Default values: more specific configs may change them.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	Default *apiextensionsv1.JSON `json:"default,omitempty"`
	// Override values: less specific configs (and the blueprint's
	// defaults) cannot change them; only a less specific override can.
	// +optional
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	Override *apiextensionsv1.JSON `json:"override,omitempty"`
}
