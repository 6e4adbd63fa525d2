package topology

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
)

// Ref identifies a node: an object, a named section of an object, or a
// virtual object. Its Key is the node's locator, the same string a
// targetRef and its target produce.
type Ref struct {
	Group     string `json:"group"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Section   string `json:"sectionName,omitempty"`
	// Role tells apart the two nodes of one object (hierarchy.Role).
	Role hierarchy.Role `json:"role,omitempty"`
}

// API is the ref as Strata's API and documents name objects; FromAPI is
// its inverse. Both give the same Key and String.
func (r Ref) API() strata.Ref {
	return strata.Ref{Group: r.Group, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, SectionName: r.Section, Role: r.Role.String()}
}

// FromAPI is the node ref an API ref names.
func FromAPI(r strata.Ref) Ref {
	return Ref{Group: r.Group, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, Section: r.SectionName, Role: hierarchy.ParseRole(r.Role)}
}

// GroupKind of the referenced object.
func (r Ref) GroupKind() schema.GroupKind { return schema.GroupKind{Group: r.Group, Kind: r.Kind} }

// Object is the ref without its section.
func (r Ref) Object() Ref { r.Section = ""; return r }

// Key is the locator `Kind.group:namespace/name#section`, the API ref's
// (strata.Ref.Key): one spelling for the engine and the documents.
func (r Ref) Key() string { return r.API().Key() }

// String is a short human form: Kind ns/name#section (strata.Ref.String).
func (r Ref) String() string { return r.API().String() }

// NodeID indexes Graph.Nodes.
type NodeID int32

// None is the absent node.
const None NodeID = -1

// Node is a targetable: an object, a section of one, or a virtual object.
type Node struct {
	Ref   Ref
	Level hierarchy.Level
	// Labels of the object (of the owning object for sections).
	Labels map[string]string
	// Generation of the object, for observedGeneration.
	Generation int64
	// Object is the typed object the node was built from (nil for
	// sections, implicit namespaces and virtual nodes).
	Object any
	// Virtual nodes stand for kinds unknown to the API server.
	Virtual bool
	// Namespace is the node of the object's namespace, or None.
	Namespace NodeID
	// Parents are the less specific nodes directly above; Children the
	// more specific ones directly below. Sorted by NodeID.
	Parents  []NodeID
	Children []NodeID
	// Sections of an object node, by section name.
	Sections Sections
	// Ambiguous section names (declared more than once).
	Ambiguous map[string]bool
}

// Problem is something wrong in the input that the topology had to skip or
// could not resolve unambiguously, named by object and field.
type Problem struct {
	Object  Ref    `json:"object"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (p Problem) Error() string {
	return fmt.Sprintf("%s: %s: %s", p.Object, p.Field, p.Message)
}

// Sections are the named sections of an object node, sorted by name,
// each name once, found by binary search (issue 11, "No cliffs").
type Sections []Section

// Section is one named section of an object node: its name and its node.
type Section struct {
	Name string
	Node NodeID
}

// Get returns the node of the section called name, or None and false.
func (s Sections) Get(name string) (NodeID, bool) {
	if i, ok := slices.BinarySearchFunc(s, name, compareSection); ok {
		return s[i].Node, true
	}
	return None, false
}

// Nodes returns the sections' nodes, in the order of their names.
func (s Sections) Nodes() []NodeID {
	out := make([]NodeID, len(s))
	for i, sec := range s {
		out[i] = sec.Node
	}
	return out
}

func compareSection(s Section, name string) int { return strings.Compare(s.Name, name) }
