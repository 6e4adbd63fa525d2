package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// PolicyKindKind is the kind of a policy kind declaration object.
const PolicyKindKind = "PolicyKind"

// Class is the GEP-713 class of a policy kind ("Classes of metaresources").
// +kubebuilder:validation:Enum=Direct;Inherited
type Class string

const (
	// Direct kinds target a single kind, act only on it and merge with None.
	Direct Class = "Direct"
	// Inherited kinds flow down the hierarchy and merge with defaults and
	// overrides.
	Inherited Class = "Inherited"
)

// PolicyKind declares a policy CRD: everything Strata needs to know to
// treat the instances of one policy CRD as GEP-713 policies, so that a new
// policy CRD needs a YAML document and no Go code.
//
//	apiVersion: strata.dev/v1alpha1
//	kind: PolicyKind
//	metadata: {name: colorpolicies.policies.controller.io}
//	spec:
//	  group: policies.controller.io
//	  kind: ColorPolicy
//	  class: Inherited
//	  managed: true
//	  targetKinds: [{group: gateway.networking.k8s.io, kind: Gateway}]
//	  effectiveTargetKind: {group: "", kind: Service}
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,path=policykinds,singular=policykind,categories=strata
// +kubebuilder:printcolumn:name="Group",type=string,JSONPath=`.spec.group`
// +kubebuilder:printcolumn:name="Kind",type=string,JSONPath=`.spec.kind`
// +kubebuilder:printcolumn:name="Class",type=string,JSONPath=`.spec.class`
// +kubebuilder:printcolumn:name="Managed",type=boolean,JSONPath=`.spec.managed`
// +kubebuilder:printcolumn:name="Watched",type=string,JSONPath=`.status.conditions[?(@.type=="Watched")].status`
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type PolicyKind struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              PolicyKindSpec `json:"spec"`
	// Status is written by Strata's policy controller.
	// +optional
	Status PolicyKindStatus `json:"status,omitempty"`
}

// PolicyKindStatus is what the policy controller reports about a
// declared kind.
type PolicyKindStatus struct {
	// Conditions: Watched (True: the controller lists and watches the
	// kind's policies; False with reason Forbidden: its RBAC does not let
	// it list and watch them in every namespace, so the kind is left out
	// until a ClusterRole grants it, docs/install.md; False with reason
	// NotServed: no established CRD serves the kind).
	//
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Watched is the PolicyKind condition that says whether the policy
// controller reads the kind's policies, and its reasons.
const (
	ConditionWatched = "Watched"
	ReasonWatching   = "Watching"
	ReasonForbidden  = "Forbidden"
	ReasonNotServed  = "NotServed"
)

// PolicyKindList is a list of PolicyKind objects (kind PolicyKindList), what
// a client lists and a cache holds.
//
// +kubebuilder:object:root=true
type PolicyKindList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PolicyKind `json:"items"`
}

// PolicyKindSpec describes one policy kind: its targets, strategies and fields.
//
// +kubebuilder:object:generate=true
type PolicyKindSpec struct {
	// Group of the policy CRD, e.g. policies.controller.io.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Group string `json:"group"`
	// Kind of the policy CRD, e.g. ColorPolicy.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`
	Kind string `json:"kind"`
	// Class is Direct or Inherited. Default: Inherited.
	// +optional
	Class Class `json:"class,omitempty"`
	// Managed says Strata is the policy controller of this kind: it writes
	// the kind's policy status and <Kind>Affected conditions. Kinds that are
	// not managed are read for discoverability only, because Strata must not
	// claim enforcement it does not perform.
	Managed bool `json:"managed,omitempty"`
	// ControllerName is written into status.ancestors[].controllerName.
	// Default: strata.dev/policy-controller. Same form as Gateway API's
	// GatewayController, because that is where it is written.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[A-Za-z0-9\/\-._~%!$&'()*+,;=:]+$`
	ControllerName string `json:"controllerName,omitempty"`
	// TargetKinds lists the kinds a policy may target (declared target
	// kinds). Kinds in groups Strata does not model are virtual kinds
	// (GEP-713 "Targeting virtual types"). Empty means any kind.
	TargetKinds []GroupKind `json:"targetKinds,omitempty"`
	// EffectiveTargetKind is the kind whose behaviour the policy augments
	// (GEP-713 "Declared targets versus Effective targets"). Empty means the
	// declared targets themselves.
	EffectiveTargetKind *GroupKind `json:"effectiveTargetKind,omitempty"`
	// EffectiveTargetKinds lists the effective target kinds of a policy
	// that augments several kinds alike (every xRoute kind, or the
	// Gateways and the HTTPRoutes a blueprint renders): each object of
	// one of them below a policy's target is an effective target. Set
	// this or EffectiveTargetKind, not both.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	EffectiveTargetKinds []GroupKind `json:"effectiveTargetKinds,omitempty"`
	// ReferencedBy attaches instances to the objects that name them,
	// Gateway API's parametersRef pattern: a GatewayClass names the object
	// that configures it in spec.parametersRef, so such an object needs no
	// targetRefs to be in force there (a GatewayClassBlueprint's values).
	// Each entry is a kind of TargetKinds and the dotted path, from the
	// object root, of its reference ({group, kind, name, namespace}).
	// +optional
	// +kubebuilder:validation:MaxItems=8
	ReferencedBy []ReferenceField `json:"referencedBy,omitempty"`
	// Contexts says what a context of an effective target holds. Path
	// (the default) is GEP-713's: the policies attached along the path
	// from a root to the target and to the Namespaces of the objects on
	// it. Target is for kinds whose effective targets each stand alone,
	// as the Gateways and HTTPRoutes a blueprint renders do (002: values
	// "in Gateway/HTTPRoute local namespace", "targeting Gateway/HTTPRoute
	// resource"): the policies attached to the target itself, to its own
	// Namespace and to the cluster-scoped objects on the path (its
	// GatewayClass), where a namespaced policy on a cluster-scoped object
	// reaches targets in its own namespace only.
	// +optional
	// +kubebuilder:validation:Enum=Path;Target
	Contexts ContextScope `json:"contexts,omitempty"`
	// ValueSpace makes this kind one rung of a ladder of kinds that set
	// one value together, as 002's GatewayClassConfig and GatewayConfig
	// set one blueprint's values: in every context the blocks of all the
	// kinds of one value space are stacked and folded as one (lower rank
	// first, then hierarchy level, then conflict order), so each policy's
	// standing is the one the shared value gives it. Kinds of one value
	// space declare the same effective target kinds.
	// +optional
	ValueSpace *ValueSpace `json:"valueSpace,omitempty"`
	// Visibility is how much a reader of an affected target may learn of
	// this kind's policies from the EffectivePolicy objects Strata
	// publishes in the target's namespace, where anyone with the
	// namespace's view role reads them: Settings (the default) publishes
	// the policies' names and the effective settings with the policy
	// each field came from; Names only the names of the policies and
	// what became of each; Kind only that policies of this kind affect
	// the target, and how many. Some policies are not for every reader
	// of the objects they affect (WAF rules, authentication settings):
	// their admin chooses Names or Kind (docs/policy-kinds.md).
	// +optional
	// +kubebuilder:validation:Enum=Settings;Names;Kind
	Visibility Visibility `json:"visibility,omitempty"`
	// Strategies says which merge strategies instances may choose.
	Strategies Strategies `json:"strategies,omitempty"`
	// Fields says where in a policy object its parts live.
	Fields Fields `json:"fields,omitempty"`
	// TargetFields maps a field of the spec proper to the path (dotted,
	// from the object root; numeric segments index lists, e.g.
	// spec.rules.0.retry.codes) of the same setting in the effective target
	// object. A value set there is the most specific default (001,
	// "Interactions between defaults, overrides, and field values").
	TargetFields map[string]string `json:"targetFields,omitempty"`
	// ChildMerge lets the more specific policy choose how it merges into
	// the less specific ones, as Envoy Gateway's route policies do with
	// spec.mergeType (StrategicMerge, JSONMerge): a policy whose field has
	// a value listed here is merged into what the less specific policies
	// of its context set, instead of replacing it (None) or being merged
	// with the atomicity the less specific policy dictates (Defaults).
	// GEP-713 lets the less specific policy choose ("Conflict resolution"):
	// this is a deliberate, per-kind deviation (docs/merging.md, "Child
	// merge"). It never weakens an override.
	// +optional
	ChildMerge *ChildMerge `json:"childMerge,omitempty"`
	// GlobalNamespaces are namespaces whose policies targeting a
	// cluster-scoped GatewayClass apply to Gateways of every namespace
	// (002: configs in the controller namespace are global). Elsewhere such
	// a policy applies only to Gateways in its own namespace.
	GlobalNamespaces []string `json:"globalNamespaces,omitempty"`
	// Status says how the kind's policies report what became of them
	// (docs/status.md). Default: the Enforced vocabulary.
	// +optional
	Status *PolicyStatusSpec `json:"status,omitempty"`
}

// ReferenceField is a field of a kind that names a policy object.
//
// +kubebuilder:object:generate=true
type ReferenceField struct {
	// Group of the referring kind; "" is the core group.
	// +optional
	Group string `json:"group"`
	// Kind that refers, e.g. GatewayClass.
	// +kubebuilder:validation:MinLength=1
	Kind string `json:"kind"`
	// Field is the dotted path of the reference, e.g. spec.parametersRef.
	// +kubebuilder:validation:MinLength=1
	Field string `json:"field"`
}

// Visibility is how much of a kind's policies the EffectivePolicy
// objects publish to readers of their targets.
type Visibility string

// Visibilities (Spec.Visibility).
const (
	VisibilitySettings Visibility = "Settings"
	VisibilityNames    Visibility = "Names"
	VisibilityKind     Visibility = "Kind"
)

// ContextScope is what a context of an effective target holds.
type ContextScope string

// Context scopes (Spec.Contexts).
const (
	ContextPath   ContextScope = "Path"
	ContextTarget ContextScope = "Target"
)

// ValueSpace names the shared value a kind sets and the kind's rung.
//
// +kubebuilder:object:generate=true
type ValueSpace struct {
	// Name of the value space; kinds naming the same one fold together.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Rank of this kind: every level of a lower-ranked kind is less
	// specific than any level of a higher-ranked one (002: all of
	// GatewayClassConfig's levels come before GatewayConfig's). For
	// defaults the higher rank wins, for overrides the lower one.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	Rank int32 `json:"rank"`
}

// GroupKind names a kind. Group "" is the core group.
//
// +kubebuilder:object:generate=true
type GroupKind struct {
	// Group of the kind; "" (or omitted) is the core group.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Group string `json:"group"`
	// Kind, e.g. Gateway or Service.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`
	Kind string `json:"kind"`
}

// Schema converts to apimachinery's type.
func (g GroupKind) Schema() schema.GroupKind { return schema.GroupKind{Group: g.Group, Kind: g.Kind} }

// String prints Kind.group, or Kind for the core group, as kubectl does.
func (g GroupKind) String() string { return g.Schema().String() }

// Strategies declares the merge strategies of a kind (GEP-713 "Merge
// strategies").
//
// +kubebuilder:object:generate=true
type Strategies struct {
	// Supported strategies, written as None, AtomicDefaults,
	// AtomicOverrides, PatchDefaults, PatchOverrides or <Custom>Defaults /
	// <Custom>Overrides for a custom atomicity declared in Custom.
	// Default: [None] for Direct kinds and for Inherited kinds that
	// declare no strategy and target one kind that is their effective
	// kind (GEP-713 "Merge strategies"); all four Atomic/Patch ones for
	// other Inherited kinds.
	Supported []string `json:"supported,omitempty"`
	// Default strategy of instances that choose none. Default: None for
	// Direct kinds and single-target Inherited kinds as above,
	// AtomicDefaults for other Inherited kinds (Memorandum).
	Default string `json:"default,omitempty"`
	// Values maps a value of an instance's strategy field to an atomicity
	// (Atomic, Patch or a custom name). Default: atomic→Atomic,
	// patch→Patch, and each custom name lowercased to itself.
	Values map[string]string `json:"values,omitempty"`
	// Exclusive forbids a policy to carry both defaults and overrides (the
	// Memorandum: "MUST NOT be allowed to declare more than one merge
	// strategy"); such a policy is Accepted=False Invalid. When false, a
	// policy may carry both, as 001's CDNCachingPolicy does.
	Exclusive bool `json:"exclusive,omitempty"`
	// Custom atomicities of this kind, each bound to a registered merge
	// function.
	Custom []CustomStrategy `json:"custom,omitempty"`
}

// CustomStrategy binds a custom atomicity name to a merge function from
// the engine's registry, with parameters.
//
// +kubebuilder:object:generate=true
type CustomStrategy struct {
	// Name of the atomicity, e.g. RuleMerge (strategy RuleMergeDefaults).
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// Function is the registry name of the merge function, e.g. mergeByKey.
	// +kubebuilder:validation:MinLength=1
	Function string `json:"function"`
	// Parameters are passed to the function's factory.
	Parameters map[string]string `json:"parameters,omitempty"`
}

// Fields locates the parts of a policy object. Spec is a dotted path from
// the object root, never under metadata or status; the others are single
// field names of Spec, each a different one (Compile refuses anything
// else, naming the field).
//
// +kubebuilder:object:generate=true
type Fields struct {
	// Spec is the object holding targets, blocks and bare fields.
	// Default: spec.
	Spec string `json:"spec,omitempty"`
	// Defaults block. Default: defaults.
	Defaults string `json:"defaults,omitempty"`
	// Overrides block. Default: overrides.
	Overrides string `json:"overrides,omitempty"`
	// Strategy field, looked up inside each block (and at Spec for bare
	// fields). Default: strategy.
	Strategy string `json:"strategy,omitempty"`
	// Ignored are further fields at Spec that are not part of the spec
	// proper. targetRef, targetRefs and the fields above always are.
	Ignored []string `json:"ignored,omitempty"`
}

// PolicyStatusSpec says how the policies of a kind report their status.
//
// +kubebuilder:object:generate=true
type PolicyStatusSpec struct {
	// Vocabulary names the conditions written next to Accepted in each
	// status.ancestors entry. Enforced (the default) writes GEP-713's
	// Enforced, PartiallyEnforced and Overridden conditions ("Metaresource
	// status"); Programmed writes one Programmed condition instead, the
	// form Gateway API's policy status took later (PolicyConditionProgrammed:
	// True with reason Programmed or PartiallyProgrammed, False with
	// reason Overridden or Reconciling), for kinds whose controllers and
	// readers expect it. Accepted is the same in both.
	// +optional
	// +kubebuilder:validation:Enum=Enforced;Programmed
	Vocabulary Vocabulary `json:"vocabulary,omitempty"`
}

// Vocabulary is the set of conditions a kind's policy status uses.
type Vocabulary string

// Vocabularies (PolicyStatusSpec.Vocabulary).
const (
	// VocabularyEnforced writes Enforced, PartiallyEnforced and
	// Overridden (GEP-713 "Metaresource status").
	VocabularyEnforced Vocabulary = "Enforced"
	// VocabularyProgrammed writes Programmed (reasons Programmed,
	// PartiallyProgrammed, Overridden, Reconciling).
	VocabularyProgrammed Vocabulary = "Programmed"
)

// ChildMerge declares the field by which a policy chooses how it merges
// into the less specific policies of its context.
//
//	childMerge:
//	  field: spec.mergeType
//	  values: {JSONMerge: Patch, StrategicMerge: StrategicMergePatch}
//
// +kubebuilder:object:generate=true
type ChildMerge struct {
	// Field is the dotted path, from the object root, of the field whose
	// value chooses, e.g. spec.mergeType. A field at the root of the spec
	// (spec.fields.spec) is not part of the spec proper; one deeper in
	// the spec must be below a field of spec.fields.ignored. An unset
	// field (or null) chooses nothing: the kind's strategies apply.
	// +kubebuilder:validation:MinLength=1
	Field string `json:"field"`
	// Values maps each value the field may take to the atomicity of the
	// merge: Patch (RFC 7386 JSON merge patch), StrategicMergePatch
	// (Kubernetes strategic merge patch, lists merged by the keys the
	// kind's CRD schema declares) or a custom atomicity of
	// spec.strategies.custom. A value not listed makes the policy
	// Invalid.
	// +kubebuilder:validation:MinProperties=1
	Values map[string]string `json:"values"`
	// ListKeys names the lists of the spec proper that a strategic merge
	// merges item by item, by the key field given, beside those the
	// kind's CRD types as x-kubernetes-list-type map: a Go type's
	// patchMergeKey tag (which a CRD cannot carry), e.g.
	// {compression: type, extAuth.contextExtensions: name}. Keys are
	// dotted paths from the spec proper, without list indexes.
	// +optional
	ListKeys map[string]string `json:"listKeys,omitempty"`
}
