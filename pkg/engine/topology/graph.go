package topology

import (
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1b1 "sigs.k8s.io/gateway-api/apis/v1beta1"
)

// Graph is the DAG of targetables. Nodes are stored in a slice and found
// through hash indexes, so building and querying it is linear in the number
// of objects and edges (no scans over all edges).
type Graph struct {
	Nodes []Node
	// Problems found while building, sorted by object then field.
	Problems []Problem

	index  map[Ref]NodeID
	byKind map[schema.GroupKind][]NodeID
	// byKindIn is byKind split by namespace, so that a label selector
	// in a policy looks at the objects of one namespace instead of
	// scanning every object of the kind (which made attachment
	// quadratic: selector policies times objects).
	byKindIn map[kindIn][]NodeID
	grants   map[string][]*gwv1b1.ReferenceGrant // by namespace
}

// kindIn keys byKindIn.
type kindIn struct {
	gk schema.GroupKind
	ns string
}

// Node returns the node with the given id.
func (g *Graph) Node(id NodeID) *Node { return &g.Nodes[id] }

// Lookup finds the node of a ref, or None.
func (g *Graph) Lookup(r Ref) NodeID {
	if id, ok := g.index[r]; ok {
		return id
	}
	return None
}

// ByKind lists the object nodes (not sections) of a kind, in insertion order.
func (g *Graph) ByKind(gk schema.GroupKind) []NodeID { return g.byKind[gk] }

// ByKindIn lists the object nodes of a kind in one namespace, in insertion
// order: ByKind filtered by namespace, without the scan. Cluster-scoped
// objects are in namespace "".
func (g *Graph) ByKindIn(gk schema.GroupKind, ns string) []NodeID {
	return g.byKindIn[kindIn{gk: gk, ns: ns}]
}

// indexKind records an object node (not a section) in ByKind and ByKindIn.
func (g *Graph) indexKind(r Ref, id NodeID) {
	gk := r.GroupKind()
	g.byKind[gk] = append(g.byKind[gk], id)
	k := kindIn{gk: gk, ns: r.Namespace}
	g.byKindIn[k] = append(g.byKindIn[k], id)
}

// AddVirtual returns the node of a virtual object (GEP-713 "Targeting
// virtual types"), creating it as a leaf root on first use.
func (g *Graph) AddVirtual(r Ref) NodeID {
	if id, ok := g.index[r]; ok {
		return id
	}
	id := g.add(Node{Ref: r, Level: hierarchy.LevelVirtual, Virtual: true, Namespace: g.namespaceNode(r.Namespace)})
	g.indexKind(r, id)
	return id
}

// Granted reports whether a ReferenceGrant in to.Namespace lets objects of
// kind from in namespace fromNS refer to the object `to` (Gateway API
// ReferenceGrant semantics: group and kind must match, name if set).
func (g *Graph) Granted(from schema.GroupKind, fromNS string, to Ref) bool {
	for _, rg := range g.grants[to.Namespace] {
		fromOK := false
		for _, f := range rg.Spec.From {
			if string(f.Group) == from.Group && string(f.Kind) == from.Kind && string(f.Namespace) == fromNS {
				fromOK = true
				break
			}
		}
		if !fromOK {
			continue
		}
		for _, t := range rg.Spec.To {
			if string(t.Group) == to.Group && string(t.Kind) == to.Kind && (t.Name == nil || string(*t.Name) == to.Name) {
				return true
			}
		}
	}
	return false
}

// Ancestors calls fn for every context path from a root to id, as a slice
// of node ids from least to most specific. Each call gets a new slice that
// fn may keep. Paths are produced in a deterministic order (parents in
// NodeID order).
func (g *Graph) Ancestors(id NodeID, fn func(path []NodeID)) {
	var stack []NodeID
	var walk func(n NodeID)
	walk = func(n NodeID) {
		stack = append(stack, n)
		parents := g.Nodes[n].Parents
		if len(parents) == 0 {
			path := make([]NodeID, len(stack))
			for i := range stack {
				path[i] = stack[len(stack)-1-i]
			}
			fn(path)
		}
		for _, p := range parents {
			walk(p)
		}
		stack = stack[:len(stack)-1]
	}
	walk(id)
}

func (g *Graph) add(n Node) NodeID {
	id := NodeID(len(g.Nodes))
	g.Nodes = append(g.Nodes, n)
	g.index[n.Ref] = id
	return id
}

// EnsureNamespace returns the node of a namespace known to exist (a
// policy's own namespace, say), creating it if no object named it yet.
func (g *Graph) EnsureNamespace(ns string) NodeID { return g.namespaceNode(ns) }

// namespaceNode returns the node of a namespace, creating an implicit one
// when no Namespace object was given, so that policies can target a
// namespace offline without its object. "" gives None.
func (g *Graph) namespaceNode(ns string) NodeID {
	if ns == "" {
		return None
	}
	r := Ref{Group: hierarchy.CoreGroup, Kind: "Namespace", Name: ns}
	if id, ok := g.index[r]; ok {
		return id
	}
	id := g.add(Node{Ref: r, Level: hierarchy.LevelNamespace, Namespace: None})
	g.indexKind(r, id)
	return id
}

func (g *Graph) link(parent, child NodeID) {
	g.Nodes[parent].Children = append(g.Nodes[parent].Children, child)
	g.Nodes[child].Parents = append(g.Nodes[child].Parents, parent)
}

// Namespaces returns the Namespace nodes that stand above a context path:
// the namespaces of the objects along it, in order of first appearance.
// A policy targeting a Namespace applies to every context that passes
// through an object in that namespace (001, "Interactions between
// defaults, overrides, and field values": a namespace policy affects the
// Gateways in it and the routes attached to them).
func (g *Graph) Namespaces(path []NodeID) []NodeID {
	var out []NodeID
	for _, id := range path {
		ns := g.Nodes[id].Namespace
		if ns != None && !slices.Contains(out, ns) {
			out = append(out, ns)
		}
	}
	return out
}
