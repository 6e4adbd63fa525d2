package v1alpha1

import (
	"strings"
	"unsafe"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EffectivePolicyKind is the kind of EffectivePolicy objects.
const EffectivePolicyKind = "EffectivePolicy"

// TargetKindLabel is the label every EffectivePolicy carries with its
// target's kind, so `kubectl get effectivepolicies -l
// strata.dev/target-kind=Service` selects by kind (001 "EffectivePolicy"
// objects; the policy controller and the blueprint controller both write
// it).
const TargetKindLabel = Group + "/target-kind"

// EffectivePolicy is the answer to "what settings are in force here":
// for one effective target, per policy kind, the merged spec proper in
// every context, and which policy set each field (001 "EffectivePolicy"
// objects; GEP-713 "The discoverability problem", the *what*). It is
// named after its target: the target's name, plus ".<sectionName>" for a
// section; the policy controller adds ".<kind>" (lower case) when targets
// of two kinds would share the name (an HTTPRoute and its Service).
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,path=effectivepolicies,singular=effectivepolicy,categories=strata
// +kubebuilder:printcolumn:name="Target Kind",type=string,JSONPath=`.target.kind`
// +kubebuilder:printcolumn:name="Target Name",type=string,JSONPath=`.target.name`
// +kubebuilder:printcolumn:name="Section",type=string,JSONPath=`.target.sectionName`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type EffectivePolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// Target is the effective target this object describes.
	Target Ref `json:"target"`
	// Policies holds one entry per policy kind affecting the target,
	// sorted by group then kind.
	Policies []KindPolicies `json:"policies"`
}

// EffectivePolicyList is a list of EffectivePolicy objects.
//
// +kubebuilder:object:root=true
type EffectivePolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []EffectivePolicy `json:"items"`
}

// Ref names an object or one of its sections.
type Ref struct {
	// Group of the object; "" is the core group (Namespace, Service).
	Group string `json:"group"`
	// Kind of the object, e.g. Gateway.
	Kind string `json:"kind"`
	// Namespace of the object; empty for cluster-scoped kinds.
	Namespace string `json:"namespace,omitempty"`
	// Name of the object.
	Name string `json:"name"`
	// SectionName names a section of the object (a Gateway listener, a
	// route rule); empty for the whole object.
	SectionName string `json:"sectionName,omitempty"`
	// Role names the part the object plays when one object is two nodes
	// of the hierarchy: "frontend" for a Service as the parent of mesh
	// routes (GEP-1426), as opposed to the same Service as a backend
	// (empty). Empty for every other object.
	// +optional
	Role string `json:"role,omitempty"`
}

// Key is the ref's locator, `Kind.group:namespace/name#section` (the
// group left out for the core group): a targetRef and the object it names
// give the same key. The engine's topology.Ref.Key is the same string.
// A role follows as `@role` (`Service:ns/foo@frontend`).
func (r Ref) Key() string {
	// One allocation: keys are made for every node of large worlds
	// (`strata graph` sorts 120,000 of them; issue 18).
	// The bytes are never written again once made, so the string can
	// share them, as strings.Builder does.
	b := r.AppendKey(make([]byte, 0, len(r.Kind)+len(r.Group)+len(r.Namespace)+len(r.Name)+len(r.SectionName)+len(r.Role)+5))
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// AppendKey appends Key to b, for keys of many refs in one buffer (the
// key of a context path, one per context of a large world).
func (r Ref) AppendKey(b []byte) []byte {
	b = append(b, r.Kind...)
	if r.Group != "" {
		b = append(b, '.')
		b = append(b, r.Group...)
	}
	b = append(b, ':')
	if r.Namespace != "" {
		b = append(b, r.Namespace...)
		b = append(b, '/')
	}
	b = append(b, r.Name...)
	if r.SectionName != "" {
		b = append(b, '#')
		b = append(b, r.SectionName...)
	}
	if r.Role != "" {
		b = append(b, '@')
		b = append(b, r.Role...)
	}
	return b
}

// String is the short human form: `Kind namespace/name#section`, then
// ` (role)` for a node with a role.
func (r Ref) String() string {
	var b strings.Builder // one allocation, as Key
	b.Grow(len(r.Kind) + len(r.Namespace) + len(r.Name) + len(r.SectionName) + len(r.Role) + 6)
	b.WriteString(r.Kind)
	b.WriteString(" ")
	if r.Namespace != "" {
		b.WriteString(r.Namespace)
		b.WriteString("/")
	}
	b.WriteString(r.Name)
	if r.SectionName != "" {
		b.WriteString("#")
		b.WriteString(r.SectionName)
	}
	if r.Role != "" {
		b.WriteString(" (")
		b.WriteString(r.Role)
		b.WriteString(")")
	}
	return b.String()
}

// KindPolicies is the effective policy of one kind on the target.
type KindPolicies struct {
	// Group of the policy kind, e.g. policies.controller.io.
	Group string `json:"group"`
	// Kind of the policy kind, e.g. ColorPolicy.
	Kind string `json:"kind"`
	// ControllerName is the policy controller of the kind.
	ControllerName string `json:"controllerName"`
	// Contexts lists every path through which the target is reached by at
	// least one policy of the kind, sorted by path.
	Contexts []Context `json:"contexts"`
	// Visibility is the kind's PolicyKind visibility the contexts were
	// published with: empty or Settings (names, settings and the policy
	// each field came from), Names (the policies' names and results; no
	// settings) or Kind (no context at all: PolicyCount says how many
	// policies of the kind affect the target).
	// +optional
	Visibility string `json:"visibility,omitempty"`
	// PolicyCount is the number of policies of the kind in the target's
	// contexts; set when their names are withheld (Visibility Kind).
	// +optional
	PolicyCount int32 `json:"policyCount,omitempty"`
	// OmittedContexts is set when the object is a summary: the target has
	// more contexts than one object may hold (docs/controller.md), and
	// this many were left out of Contexts.
	// +optional
	OmittedContexts int32 `json:"omittedContexts,omitempty"`
	// ConditionOmittedFrom names the lists of the target's status that
	// do not hold the kind's <Kind>Affected condition for want of room
	// (status.conditions, status.listeners[NAME].conditions,
	// status.parents[Gateway NS/NAME].conditions): the list holds at
	// most its CRD's maxItems and other controllers' conditions took the
	// rest. The target's strata.dev/omitted-conditions annotation says
	// the same (docs/status.md, "Room"). Empty when the condition is
	// written.
	// +optional
	ConditionOmittedFrom []string `json:"conditionOmittedFrom,omitempty"`
}

// Context is the effective policy along one path of the hierarchy (the
// GEP's "a1 > b2 > c1").
type Context struct {
	// Path goes from least to most specific: the Namespaces of the objects
	// along it, then the objects and sections from a root of the DAG down
	// to the target.
	Path []Ref `json:"path"`
	// ResultantPolicy is the merged spec proper: an object whose fields are
	// the policy kind's, hence free-form here. Build always sets it, to {}
	// when no field is set.
	// +kubebuilder:validation:Type=object
	// +kubebuilder:pruning:PreserveUnknownFields
	ResultantPolicy *apiextensionsv1.JSON `json:"resultantPolicy"`
	// Sources are the policies of the stack, least specific first, with
	// what became of each one here.
	Sources []Source `json:"sources"`
	// FieldSources maps the JSON pointer of every field of the resultant
	// policy to the policy that set it (namespace/name), or to "(target)"
	// when the target object's own value stands.
	FieldSources map[string]string `json:"fieldSources,omitempty"`
}

// Source is a policy in a context.
type Source struct {
	// Namespace of the policy; empty for a cluster-scoped policy.
	Namespace string `json:"namespace,omitempty"`
	// Name of the policy.
	Name string `json:"name"`
	// Result is Enforced, PartiallyEnforced, Overridden or Conflicted in
	// this context; for a kind of the Programmed status vocabulary
	// (PolicyKind spec.status.vocabulary) Programmed, PartiallyProgrammed,
	// Overridden or Conflicted, the words of the policy's status.
	Result string `json:"result"`
	// AttachedTo are the nodes of the context's path the policy is
	// attached to, least specific first: where a reader who may not read
	// the policy learns it comes from (its Namespace, a Gateway).
	// +optional
	AttachedTo []Ref `json:"attachedTo,omitempty"`
}
