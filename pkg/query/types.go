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

// TargetSource names the target's own value as a field's source.
const TargetSource = "(target)"

// Relations of a policy to a described object.
const (
	// Attached: the policy targets the object or one of its sections.
	Attached = "Attached"
	// Inherited: the policy is attached above the object on a context path.
	Inherited = "Inherited"
	// Below: the policy is attached below the object and acts on the effective targets reached through it.
	Below = "Below"
)

// Changes an Impact describes.
const (
	ChangeDelete  = "Delete"
	ChangeReplace = "Replace"
	// ChangeCreate is a policy that does not exist yet (`impact --add`).
	ChangeCreate = "Create"
)

// TypeMeta identifies a document.
type TypeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// Ref names an object or one of its sections: EffectivePolicy's Ref.
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

// Subject is what a KIND/NAME argument names: a node of the topology or a policy.
type Subject struct {
	Node   topology.NodeID    // topology.None for a policy
	Policy *policykind.Policy // nil for a node
}

// Description answers GEP-713's *that*, *which* and *what* for one object.
type Description struct {
	TypeMeta `json:",inline"`
	Object   Ref      `json:"object"`
	Sections []string `json:"sections,omitempty"` // the names of the object's sections, sorted.
	// Parents and Children are the nodes directly above and below, sorted.
	Parents  []Ref `json:"parents,omitempty"`
	Children []Ref `json:"children,omitempty"`
	// Policies are those in a context under Effective plus those attached that reach nothing.
	Policies []Affecting `json:"policies"`
	Rejected []Rejection `json:"rejected,omitempty"` // targetRefs naming the object that could not attach.
	// NotWritten are the <Kind>Affected conditions left out for want of room (docs/status.md, "Room").
	NotWritten []NotWritten `json:"notWritten,omitempty"`
	// Effective holds, per policy kind, the effective policy on the object or on the targets below it.
	Effective []KindEffect `json:"effective"`
	// Unseen says Policies and Effective may leave out policy kinds the reader could not list.
	Unseen *Unseen `json:"unseen,omitempty"`
}

// Affecting is a policy that affects the described object.
type Affecting struct {
	Policy     PolicyRef `json:"policy"`
	Relation   string    `json:"relation"`   // Attached, Inherited or Below
	AttachedTo []Ref     `json:"attachedTo"` // the nodes through which it acts here, sorted
	// Results counts the contexts by the policy's standing in each.
	Results map[string]int `json:"results,omitempty"`
	// Withheld says the kind withholds its policies' results (PolicyKind spec.visibility: Kind).
	Withheld bool `json:"withheld,omitempty"`
}

// Rejection is a targetRef that could not attach, with the status reason.
type Rejection struct {
	Policy  PolicyRef `json:"policy"`
	Field   string    `json:"field"`
	Reason  string    `json:"reason"`
	Message string    `json:"message"`
}

// NotWritten is what of Strata's conditions one list of conditions has no room for.
type NotWritten struct {
	Place    string   `json:"place"`    // the list, e.g. status.listeners[NAME].conditions
	MaxItems int      `json:"maxItems"` // the list's CRD maxItems
	Types    []string `json:"types"`    // the condition types not written, sorted
}

// KindEffect is the effective policy of one kind.
type KindEffect struct {
	GroupKind `json:",inline"`
	Class     string `json:"class"` // Direct or Inherited
	// ValueSpace names the value the kind shares with other kinds, if any.
	ValueSpace *ValueSpace    `json:"valueSpace,omitempty"`
	Targets    []TargetEffect `json:"targets"` // sorted by locator
}

// ValueSpace is a value several policy kinds set together.
type ValueSpace struct {
	Name  string      `json:"name"`
	Kinds []GroupKind `json:"kinds"`
}

// TargetEffect is one effective target and its contexts.
type TargetEffect struct {
	Target   Ref             `json:"target"`
	Contexts []ContextEffect `json:"contexts"` // sorted by path
}

// ContextEffect is the effective policy along one context path.
type ContextEffect struct {
	// Path goes from least to most specific: Namespaces, then objects down to the target.
	Path     []Ref          `json:"path"`
	Consumer string         `json:"consumer,omitempty"` // the namespace of a mesh context's consumer route (GEP-1426).
	Stack    []StackEntry   `json:"stack"`              // the policies' blocks in merge order, least specific first.
	Spec     map[string]any `json:"spec"`               // the resultant (merged) spec proper.
	// Fields lists every leaf of Spec with its source, then fields set that did not survive.
	Fields []FieldEffect `json:"fields"`
}

// StackEntry is one block of one policy in a context's stack.
type StackEntry struct {
	Policy     string `json:"policy"`     // namespace/name
	AttachedTo Ref    `json:"attachedTo"` // the node the policy is attached to on this path
	Level      int    `json:"level"`      // of that node in the hierarchy (docs/hierarchy.md)
	Block      string `json:"block"`      // spec.defaults, spec.overrides, spec
	Strategy   string `json:"strategy"`   // the block's merge strategy
	Result     string `json:"result"`     // the policy's standing in this context
}

// FieldEffect is one field of a resultant spec.
type FieldEffect struct {
	Field  string   `json:"field"`            // JSON pointer (RFC 6901)
	Value  any      `json:"value,omitempty"`  // in force; absent for a field no policy's value survived.
	SetBy  string   `json:"setBy,omitempty"`  // the policy that set it, or "(target)"; empty when not in force.
	Beaten []string `json:"beaten,omitempty"` // the other sources that set the field and lost, sorted.
}

// PolicyDescription describes one policy and every context it reaches.
type PolicyDescription struct {
	TypeMeta   `json:",inline"`
	Policy     PolicySummary    `json:"policy"`
	Blocks     []Block          `json:"blocks"`
	AttachedTo []Ref            `json:"attachedTo"` // the nodes its targetRefs resolved to, sorted
	Rejected   []Rejection      `json:"rejected,omitempty"`
	Ancestors  []AncestorStatus `json:"ancestors"`
	Reaches    []Reach          `json:"reaches"` // every effective target whose stack holds the policy.
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
	Target  Ref            `json:"target"`
	Results map[string]int `json:"results"` // its contexts by the policy's standing
}

// Explanation says why one field has its value, per context.
type Explanation struct {
	TypeMeta `json:",inline"`
	Object   Ref     `json:"object"`
	Field    string  `json:"field"`  // the JSON pointer asked about
	Chains   []Chain `json:"chains"` // sorted by policy kind, target, path
}

// Chain is the precedence chain of a field in one context.
type Chain struct {
	PolicyKind GroupKind `json:"policyKind"`
	Target     Ref       `json:"target"`
	Path       []Ref     `json:"path"`
	Consumer   string    `json:"consumer,omitempty"` // as ContextEffect.Consumer
	Value      any       `json:"value,omitempty"`    // in force, absent when the field ends up unset.
	// SetBy names the winners: several when Field is an object set by several sources.
	SetBy      []string    `json:"setBy,omitempty"`
	Candidates []Candidate `json:"candidates"` // Candidates, least specific first, then the target's own value.
}

// Candidate is a stack entry (or the target's own value) seen from one field.
type Candidate struct {
	Source     string `json:"source"`               // the policy (namespace/name) or "(target)"
	AttachedTo *Ref   `json:"attachedTo,omitempty"` // absent for the target's own value
	Level      int    `json:"level"`                // of AttachedTo, or of the target
	Block      string `json:"block"`                // or the object field of the target's value
	Strategy   string `json:"strategy,omitempty"`
	Sets       bool   `json:"sets"` // the candidate has a value for the field
	Value      any    `json:"value,omitempty"`
	Outcome    string `json:"outcome"` // Wins, Beaten, Conflicted or NotSet
	Note       string `json:"note,omitempty"`
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
	Class     string `json:"class"`   // Direct or Inherited
	Managed   bool   `json:"managed"` // Strata writes its status
	// Created is the creationTimestamp, which decides ties (GEP-713 "Conflict resolution rules").
	Created string        `json:"created,omitempty"`
	Targets []string      `json:"targets"` // the targetRefs as written
	Status  StatusSummary `json:"status"`
	// Affects counts the targets and contexts where the policy sets a field in force.
	Affects Count `json:"affects"`
}

// StatusSummary rolls up a policy's status.ancestors.
type StatusSummary struct {
	Accepted string   `json:"accepted"`          // True, False or Partial
	Reasons  []string `json:"reasons,omitempty"` // of Accepted=False entries, sorted
	// Enforcement over the accepted ancestors; empty when none accepted it.
	Enforcement string `json:"enforcement,omitempty"`
}

// Count is a number of effective targets and of contexts.
type Count struct {
	Targets  int `json:"targets"`
	Contexts int `json:"contexts"`
}

// Impact is what changes between two runs, field by field.
type Impact struct {
	TypeMeta `json:",inline"`
	Policy   PolicyRef      `json:"policy"`
	Also     []PolicyRef    `json:"also,omitempty"` // other policies deleted together
	Change   string         `json:"change"`
	Changed  Count          `json:"changed"`
	Targets  []TargetChange `json:"targets"` // sorted by policy kind then locator
}

// TargetChange is an effective target whose effective policy changes.
type TargetChange struct {
	PolicyKind GroupKind       `json:"policyKind"`
	Target     Ref             `json:"target"`
	Contexts   []ContextChange `json:"contexts"`
}

// ContextChange is one context whose resultant spec changes.
type ContextChange struct {
	Path   []Ref         `json:"path"`
	Fields []FieldChange `json:"fields"` // sorted
}

// FieldChange is a leaf whose value differs; a side where it is unset is absent.
type FieldChange struct {
	Field       string `json:"field"`
	Before      any    `json:"before,omitempty"`
	BeforeSetBy string `json:"beforeSetBy,omitempty"`
	After       any    `json:"after,omitempty"`
	AfterSetBy  string `json:"afterSetBy,omitempty"`
}

// Diagram is the topology with its policies, ready to draw; every list sorted.
type Diagram struct {
	Clusters    []Cluster     // the namespaces
	Nodes       []DiagramNode // cluster-scoped nodes
	Edges       []Edge        // parent -> child links; PolicyEdges link a policy to its targets.
	PolicyEdges []Edge
}

// Cluster is one namespace and what lives in it.
type Cluster struct {
	Namespace string
	Node      DiagramNode   // the Namespace's own node
	Nodes     []DiagramNode // objects and sections, then policies
}

// DiagramNode is a node to draw.
type DiagramNode struct {
	ID    string // n<index> in locator order, p<index> for policies
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
