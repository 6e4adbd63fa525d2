package query

import (
	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// APIVersion of every document this package produces.
const APIVersion = "strata.dev/v1alpha1"

// Kinds of the documents.
const (
	KindDescription       = "Description"
	KindPolicyDescription = "PolicyDescription"
	KindExplanation       = "Explanation"
	KindPolicyList        = "PolicyList"
	KindImpact            = "Impact"
)

// TargetSource stands for the target object's own value where a field's
// source is named (001: "the most specific value is the one inside the
// object"); the same string as EffectivePolicy's fieldSources.
const TargetSource = "(target)"

// Relations of a policy to a described object.
const (
	// Attached: the policy targets the object or one of its sections.
	Attached = "Attached"
	// Inherited: the policy is attached above the object on a context
	// path (the GatewayClass, a Gateway, a listener..., or the Namespace
	// of the object or of an object above it).
	Inherited = "Inherited"
	// Below: the policy is attached below the object and acts on the
	// effective targets reached through it (a Service policy, seen from
	// the route in front of the Service; a policy on the Namespace of a
	// route, seen from the route's Gateway in another Namespace).
	Below = "Below"
)

// Changes an Impact describes.
const (
	ChangeDelete  = "Delete"
	ChangeReplace = "Replace"
	// ChangeCreate is a policy that does not exist yet (admission of a
	// create, `impact --add`).
	ChangeCreate = "Create"
)

// TypeMeta identifies a document.
type TypeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// Ref names an object or one of its sections: EffectivePolicy's Ref, so
// a ref reads the same in every document Strata prints or writes
// (topology.Ref.API converts a node's).
type Ref = strata.Ref

// PolicyRef names a policy object.
type PolicyRef struct {
	Group     string `json:"group"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// GroupKind names a policy kind: PolicyKind's GroupKind.
type GroupKind = strata.GroupKind

// Subject is what a KIND/NAME argument names: a node of the topology (an
// object or a section), or a policy.
type Subject struct {
	// Node is the object or section, or topology.None for a policy.
	Node topology.NodeID
	// Policy is the policy, or nil for a node.
	Policy *policykind.Policy
}

// Description answers, for one object, GEP-713's three questions: *that*
// policies affect it, *which* ones (attached to it, inherited from above,
// or acting below it), and *what* is in force, field by field.
type Description struct {
	TypeMeta `json:",inline"`
	// Object is the object (or section) described.
	Object Ref `json:"object"`
	// Sections are the names of the object's sections (listeners, rules,
	// named ports), sorted.
	Sections []string `json:"sections,omitempty"`
	// Parents are the nodes directly above the object or its sections,
	// Children those directly below, sorted by locator.
	Parents  []Ref `json:"parents,omitempty"`
	Children []Ref `json:"children,omitempty"`
	// Policies are every policy in a context shown under Effective, plus
	// the policies attached to the object that reach no effective target;
	// sorted by kind, then namespace/name.
	Policies []Affecting `json:"policies"`
	// Rejected are targetRefs naming the object that could not attach.
	Rejected []Rejection `json:"rejected,omitempty"`
	// NotWritten are Strata's <Kind>Affected conditions the object does
	// not carry for want of room, by list, as its
	// strata.dev/omitted-conditions annotation records them: each list
	// of a Gateway API object holds at most its CRD's maxItems, and other
	// controllers' conditions keep their place (docs/status.md, "Room").
	NotWritten []NotWritten `json:"notWritten,omitempty"`
	// Effective holds, per policy kind (sorted by group/kind), the
	// effective policy in force: on the object itself when it is an
	// effective target of the kind, else on the effective targets below
	// it, in the contexts that pass through it.
	Effective []KindEffect `json:"effective"`
	// Unseen, when set, says Policies and Effective may leave policies
	// out: the reader could not list some policy kinds, and no published
	// EffectivePolicy record reaching the object answers for them.
	Unseen *Unseen `json:"unseen,omitempty"`
}

// Affecting is a policy that affects the described object.
type Affecting struct {
	Policy PolicyRef `json:"policy"`
	// Relation is Attached, Inherited or Below.
	Relation string `json:"relation"`
	// AttachedTo are the nodes through which it acts here, sorted.
	AttachedTo []Ref `json:"attachedTo"`
	// Results counts the contexts shown by what became of the policy in
	// each (Enforced, PartiallyEnforced, Overridden, Conflicted); empty
	// when it reaches no effective target.
	Results map[string]int `json:"results,omitempty"`
	// Withheld says the policy kind withholds what became of its
	// policies from readers who cannot read them (PolicyKind
	// spec.visibility: Kind): Results is empty because it is not told,
	// not because nothing is reached.
	Withheld bool `json:"withheld,omitempty"`
}

// Rejection is a targetRef that could not attach, with the status reason.
type Rejection struct {
	Policy  PolicyRef `json:"policy"`
	Field   string    `json:"field"`
	Reason  string    `json:"reason"`
	Message string    `json:"message"`
}

// NotWritten is what of Strata's conditions one list of conditions of
// the described object has no room for.
type NotWritten struct {
	// Place is the list: status.conditions,
	// status.listeners[NAME].conditions or
	// status.parents[Gateway NS/NAME].conditions.
	Place string `json:"place"`
	// MaxItems is the list's bound, its CRD's maxItems.
	MaxItems int `json:"maxItems"`
	// Types are the condition types not written, sorted.
	Types []string `json:"types"`
}

// KindEffect is the effective policy of one kind.
type KindEffect struct {
	GroupKind `json:",inline"`
	// Class is Direct or Inherited.
	Class string `json:"class"`
	// ValueSpace, when the kind shares its effective value with other
	// kinds (policykind.ValueSpace), names it and lists its kinds in rank
	// order; the targets then hold the one value of all of them.
	ValueSpace *ValueSpace `json:"valueSpace,omitempty"`
	// Targets are the effective targets, sorted by locator.
	Targets []TargetEffect `json:"targets"`
}

// ValueSpace is a value several policy kinds set together.
type ValueSpace struct {
	Name  string      `json:"name"`
	Kinds []GroupKind `json:"kinds"`
}

// TargetEffect is one effective target and its contexts.
type TargetEffect struct {
	Target Ref `json:"target"`
	// Contexts, sorted by path.
	Contexts []ContextEffect `json:"contexts"`
}

// ContextEffect is the effective policy along one context path.
type ContextEffect struct {
	// Path goes from least to most specific: the Namespaces of the objects
	// along it, then the objects and sections from a root down to the
	// target.
	Path []Ref `json:"path"`
	// Consumer is the namespace of the consumer route of a mesh context
	// (GEP-1426): the context is that of requests from that namespace
	// only. Empty for a producer route's context and an ingress one.
	Consumer string `json:"consumer,omitempty"`
	// Stack is the policies' blocks in merge order, least specific first.
	Stack []StackEntry `json:"stack"`
	// Spec is the resultant (merged) spec proper.
	Spec map[string]any `json:"spec"`
	// Fields lists every leaf of Spec with its source and the policies it
	// beat, then the fields some policy set that did not survive the
	// merge (no value, no setBy).
	Fields []FieldEffect `json:"fields"`
}

// StackEntry is one block of one policy in a context's stack.
type StackEntry struct {
	// Policy is namespace/name.
	Policy string `json:"policy"`
	// AttachedTo is the node the policy is attached to on this path.
	AttachedTo Ref `json:"attachedTo"`
	// Level of that node in the hierarchy (0 Namespace ... 8 virtual);
	// higher is more specific (docs/hierarchy.md).
	Level int `json:"level"`
	// Block is where the block is: spec.defaults, spec.overrides, spec.
	Block string `json:"block"`
	// Strategy is the block's merge strategy, e.g. AtomicDefaults.
	Strategy string `json:"strategy"`
	// Result is the policy's standing in this context: Enforced,
	// PartiallyEnforced, Overridden or Conflicted.
	Result string `json:"result"`
}

// FieldEffect is one field of a resultant spec.
type FieldEffect struct {
	// Field is the JSON pointer (RFC 6901) of the field.
	Field string `json:"field"`
	// Value in force; absent for a field no policy's value survived.
	Value any `json:"value,omitempty"`
	// SetBy is the policy that set it (namespace/name), or "(target)" for
	// the target's own value; empty when the field is not in force.
	SetBy string `json:"setBy,omitempty"`
	// Beaten are the other sources in the stack that set the same field
	// (or a part of it) and lost, sorted.
	Beaten []string `json:"beaten,omitempty"`
}

// PolicyDescription describes one policy: what it says, where it attaches,
// its status, and every context it reaches (GEP-713: "How many things
// does this Policy affect?").
type PolicyDescription struct {
	TypeMeta `json:",inline"`
	// Policy is the policy's summary, as `get policies` lists it.
	Policy PolicySummary `json:"policy"`
	// Blocks are its spec proper, one per block.
	Blocks []Block `json:"blocks"`
	// AttachedTo are the nodes its targetRefs resolved to, sorted.
	AttachedTo []Ref `json:"attachedTo"`
	// Rejected are the targetRefs that did not resolve.
	Rejected []Rejection `json:"rejected,omitempty"`
	// Ancestors are the status.ancestors entries Strata computes.
	Ancestors []AncestorStatus `json:"ancestors"`
	// Reaches lists every effective target whose stack holds the policy,
	// sorted by kind of target then locator.
	Reaches []Reach `json:"reaches"`
}

// Block is a block of a policy's spec proper.
type Block struct {
	Field    string         `json:"field"`
	Strategy string         `json:"strategy"`
	Values   map[string]any `json:"values"`
}

// AncestorStatus is one PolicyAncestorStatus, without timestamps.
type AncestorStatus struct {
	Ancestor   Ref         `json:"ancestorRef"`
	Conditions []Condition `json:"conditions"`
}

// Condition is a status condition without lastTransitionTime.
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Reach is one effective target a policy is in the stack of.
type Reach struct {
	Target Ref `json:"target"`
	// Results counts its contexts by the policy's standing.
	Results map[string]int `json:"results"`
}

// Explanation says why one field has its value: for every context of the
// object (or of the effective targets below it) where the field is set,
// the candidates in precedence order with the winner marked.
type Explanation struct {
	TypeMeta `json:",inline"`
	Object   Ref `json:"object"`
	// Field is the JSON pointer asked about.
	Field string `json:"field"`
	// Chains, sorted by policy kind, target, path.
	Chains []Chain `json:"chains"`
}

// Chain is the precedence chain of a field in one context.
type Chain struct {
	PolicyKind GroupKind `json:"policyKind"`
	Target     Ref       `json:"target"`
	Path       []Ref     `json:"path"`
	// Consumer is the namespace of a mesh context's consumer route, as
	// ContextEffect.Consumer.
	Consumer string `json:"consumer,omitempty"`
	// Value in force, absent when the field ends up unset.
	Value any `json:"value,omitempty"`
	// SetBy names the winners (namespace/name or "(target)"): one, or
	// several when Field is an object whose leaves come from different
	// sources.
	SetBy []string `json:"setBy,omitempty"`
	// Candidates, least specific first: every block of the stack, then
	// the target's own value when the kind declares targetFields.
	Candidates []Candidate `json:"candidates"`
}

// Candidate is a stack entry (or the target's own value) seen from one
// field.
type Candidate struct {
	// Source is the policy (namespace/name) or "(target)".
	Source string `json:"source"`
	// AttachedTo is the node the policy is attached to; absent for the
	// target's own value.
	AttachedTo *Ref `json:"attachedTo,omitempty"`
	// Level of AttachedTo in the hierarchy; the target's level for its
	// own value.
	Level int `json:"level"`
	// Block is spec.defaults, spec.overrides or spec; for the target's own
	// value, the object field it comes from.
	Block string `json:"block"`
	// Strategy of the block; absent for the target's own value.
	Strategy string `json:"strategy,omitempty"`
	// Sets says whether the candidate has a value for the field.
	Sets bool `json:"sets"`
	// Value is that value.
	Value any `json:"value,omitempty"`
	// Outcome is Wins, Beaten (it sets the field and lost), Conflicted
	// (rejected by the None strategy) or NotSet.
	Outcome string `json:"outcome"`
	// Note says who beat it, or what the winner is.
	Note string `json:"note,omitempty"`
}

// Candidate outcomes.
const (
	Wins       = "Wins"
	Beaten     = "Beaten"
	Conflicted = "Conflicted"
	NotSet     = "NotSet"
)

// PolicyList is every policy, as `strata get policies` lists them.
type PolicyList struct {
	TypeMeta `json:",inline"`
	Items    []PolicySummary `json:"items"`
}

// PolicySummary is one policy in a list.
type PolicySummary struct {
	PolicyRef `json:",inline"`
	// Class of the kind, Direct or Inherited; Managed says Strata writes
	// its status.
	Class   string `json:"class"`
	Managed bool   `json:"managed"`
	// Created is the creationTimestamp from the input (RFC 3339), which
	// decides ties (GEP-713 "Conflict resolution rules").
	Created string `json:"created,omitempty"`
	// Targets are the targetRefs as written: "Kind name", "Kind
	// ns/name#section", "Kind selector k=v".
	Targets []string `json:"targets"`
	// Status rolls the policy's ancestors up into one line.
	Status StatusSummary `json:"status"`
	// Affects counts the effective targets and contexts in which the
	// policy sets at least one field in force (docs/merging.md
	// "affected").
	Affects Count `json:"affects"`
}

// StatusSummary rolls up a policy's status.ancestors.
type StatusSummary struct {
	// Accepted is True (every ancestor), False (none) or Partial.
	Accepted string `json:"accepted"`
	// Reasons are the reasons of Accepted=False entries, sorted.
	Reasons []string `json:"reasons,omitempty"`
	// Enforcement over the accepted ancestors: Enforced when enforced
	// through all of them, Overridden when through none, else
	// PartiallyEnforced; empty when no ancestor accepted it.
	Enforcement string `json:"enforcement,omitempty"`
}

// Count is a number of effective targets and of contexts.
type Count struct {
	Targets  int `json:"targets"`
	Contexts int `json:"contexts"`
}

// Impact is what changes between two runs: every effective target and
// context whose resultant spec differs, field by field.
type Impact struct {
	TypeMeta `json:",inline"`
	// Policy is the policy deleted or replaced.
	Policy PolicyRef `json:"policy"`
	// Also are the other policies deleted with Policy, together
	// (impact POLICY-KIND -l SELECTOR --delete); empty for one policy.
	Also []PolicyRef `json:"also,omitempty"`
	// Change is Delete or Replace.
	Change string `json:"change"`
	// Changed counts the targets and contexts that change.
	Changed Count `json:"changed"`
	// Targets, sorted by policy kind then locator.
	Targets []TargetChange `json:"targets"`
}

// TargetChange is an effective target whose effective policy changes.
type TargetChange struct {
	PolicyKind GroupKind       `json:"policyKind"`
	Target     Ref             `json:"target"`
	Contexts   []ContextChange `json:"contexts"`
}

// ContextChange is one context whose resultant spec changes.
type ContextChange struct {
	Path []Ref `json:"path"`
	// Fields that change, sorted.
	Fields []FieldChange `json:"fields"`
}

// FieldChange is a leaf whose value differs. Before or After is absent
// when the field is unset on that side.
type FieldChange struct {
	Field       string `json:"field"`
	Before      any    `json:"before,omitempty"`
	BeforeSetBy string `json:"beforeSetBy,omitempty"`
	After       any    `json:"after,omitempty"`
	AfterSetBy  string `json:"afterSetBy,omitempty"`
}

// Diagram is the topology with its policies, ready to draw: nodes
// grouped by namespace, every list sorted, identifiers stable for a given
// input.
type Diagram struct {
	// Clusters are the namespaces, sorted by name.
	Clusters []Cluster
	// Nodes are cluster-scoped (GatewayClasses, cluster-scoped policies),
	// sorted.
	Nodes []DiagramNode
	// Edges are the topology's parent -> child links; PolicyEdges link a
	// policy to each node it is attached to. Both sorted by (From, To).
	Edges       []Edge
	PolicyEdges []Edge
}

// Cluster is one namespace and what lives in it.
type Cluster struct {
	Namespace string
	// Node is the Namespace's own node (policies may target it).
	Node DiagramNode
	// Nodes, sorted: topology objects and sections, then policies.
	Nodes []DiagramNode
}

// DiagramNode is a node to draw.
type DiagramNode struct {
	// ID is a stable identifier: n<index> in locator order, p<index> for
	// policies in policy order.
	ID    string
	Label string
	Shape Shape
}

// Shape says how to draw a node.
type Shape int

// Shapes.
const (
	ObjectShape Shape = iota
	SectionShape
	NamespaceShape
	VirtualShape
	PolicyShape
)

// Edge links two diagram nodes by ID.
type Edge struct{ From, To string }
