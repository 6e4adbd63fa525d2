package topology

import (
	"maps"
	"slices"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"

	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1b1 "sigs.k8s.io/gateway-api/apis/v1beta1"
)

// Graph is the DAG of targetables, its nodes in a slice found through hash
// indexes. It is complete when Build returns it and never changes after,
// so any number of goroutines may read it; Nodes is exported for reading.
type Graph struct {
	// Nodes are pointers, so that a graph made from another by a change
	// (Rerouted) shares every node the change did not touch.
	Nodes []*Node
	// Problems found while building, sorted by object then field.
	Problems []Problem

	index  map[Ref]NodeID
	byKind map[schema.GroupKind][]NodeID
	// byKindIn is byKind split by namespace, for label selectors.
	byKindIn map[kindIn][]NodeID
	grants   Grants
	// origin is shared by a built graph and every Extend of it (Holds).
	origin *origin
	// namespaces are the Namespace nodes by name.
	namespaces map[string]NodeID
	// slab holds the nodes this graph added (addUnindexed).
	slab []Node
	// byParent lists the route nodes whose parentRefs name each Gateway
	// and ListenerSet (by object ref), attached or not, in NodeID order:
	// the routes a change of the parent may move (Regated).
	byParent map[Ref][]NodeID
}

// origin is what a graph and its extensions share: how many nodes the
// graph they all extend had when it was built.
type origin struct{ built int }

// Holds reports whether every node of h is at the same id in g: g is h,
// or both come from one built graph through Extend and h's later nodes
// are g's too, so that a Result and its Recompute match by ids.
func (g *Graph) Holds(h *Graph) bool {
	if g == h {
		return true
	}
	if g.origin == nil || g.origin != h.origin || len(g.Nodes) < len(h.Nodes) {
		return false
	}
	for i := g.origin.built; i < len(h.Nodes); i++ {
		if g.Nodes[i].Ref != h.Nodes[i].Ref {
			return false
		}
	}
	return true
}

// kindIn keys byKindIn.
type kindIn struct {
	gk schema.GroupKind
	ns string
}

// Node returns the node with the given id.
func (g *Graph) Node(id NodeID) *Node { return g.Nodes[id] }

// Lookup finds the node of a ref, or None.
func (g *Graph) Lookup(r Ref) NodeID {
	if id, ok := g.index[r]; ok {
		return id
	}
	if r.Section != "" {
		if obj, ok := g.index[r.Object()]; ok {
			if id, ok := g.Nodes[obj].Sections.Get(r.Section); ok {
				return id
			}
		}
	}
	return None
}

// ByKind lists the object nodes (not sections) of a kind, in insertion order.
func (g *Graph) ByKind(gk schema.GroupKind) []NodeID { return g.byKind[gk] }

// ByKindIn lists the object nodes of a kind in one namespace ("" for
// cluster-scoped ones), in insertion order.
func (g *Graph) ByKindIn(gk schema.GroupKind, ns string) []NodeID {
	return g.byKindIn[kindIn{gk: gk, ns: ns}]
}

// indexKind records an object node (not a section) in ByKind and
// ByKindIn, for a node added after the graph was built (addExtra).
func (g *Graph) indexKind(r Ref, id NodeID) {
	gk := r.GroupKind()
	g.byKind[gk] = append(g.byKind[gk], id)
	k := kindIn{gk: gk, ns: r.Namespace}
	g.byKindIn[k] = append(g.byKindIn[k], id)
}

// listKinds makes ByKind and ByKindIn of a graph's object nodes (every
// node but sections and Service frontends), in id order, once they are
// all added, in one pass that keeps the current kind's lists at hand.
func (g *Graph) listKinds() {
	g.byKind, g.byKindIn = map[schema.GroupKind][]NodeID{}, map[kindIn][]NodeID{}
	var (
		gk   schema.GroupKind
		list []NodeID
		have bool
		// in are the current kind's lists by namespace node.
		in = map[NodeID][]NodeID{}
	)
	done := func() {
		g.byKind[gk] = list
		for ns, ids := range in {
			name := ""
			if ns != None {
				name = g.Nodes[ns].Ref.Name
			}
			k := kindIn{gk: gk, ns: name}
			g.byKindIn[k] = append(g.byKindIn[k], ids...) // a kind met again (implicit namespaces)
		}
		clear(in)
	}
	for i := range g.Nodes {
		n := g.Nodes[i]
		if n.Ref.Section != "" || n.Ref.Role != hierarchy.RoleNone {
			continue
		}
		if k := n.Ref.GroupKind(); !have || k != gk {
			if have {
				done()
			}
			gk, list, have = k, g.byKind[k], true
		}
		list = append(list, NodeID(i))
		in[n.Namespace] = append(in[n.Namespace], NodeID(i))
	}
	if have {
		done()
	}
}

// Extra lists the nodes a graph holds beyond its snapshot's objects,
// known once the policies are read: the policies' namespaces and the
// virtual objects targetRefs name (GEP-713 "Targeting virtual types").
// Build adds them in order, so the graph is frozen once built.
type Extra struct {
	Namespaces []string
	Virtual    []Ref
}

// addExtra adds the nodes of extra that g lacks, in order: the
// namespaces, then each virtual object as a leaf root.
func (g *Graph) addExtra(extra Extra) {
	for _, ns := range extra.Namespaces {
		g.listedNamespace(ns)
	}
	for _, r := range extra.Virtual {
		if g.Lookup(r) != None {
			continue
		}
		id := g.add(Node{Ref: r, Level: hierarchy.LevelVirtual, Virtual: true, Namespace: g.listedNamespace(r.Namespace)})
		g.indexKind(r, id)
	}
}

// has reports whether g holds every node of extra already.
func (g *Graph) has(extra Extra) bool {
	for _, ns := range extra.Namespaces {
		if ns != "" && g.Lookup(Ref{Group: hierarchy.CoreGroup, Kind: "Namespace", Name: ns}) == None {
			return false
		}
	}
	for _, r := range extra.Virtual {
		if g.Lookup(r) == None {
			return false
		}
	}
	return true
}

// Extend returns a graph with g's nodes, at the same ids, and those of
// extra that g lacks, appended as Build appends them; g itself when it
// has them all. g is never changed; the copy shares g's nodes.
func (g *Graph) Extend(extra Extra) *Graph {
	if g.has(extra) {
		return g
	}
	n := &Graph{
		Nodes:      slices.Clip(g.Nodes),
		Problems:   g.Problems,
		index:      maps.Clone(g.index),
		byKind:     maps.Clone(g.byKind),
		byKindIn:   maps.Clone(g.byKindIn),
		grants:     g.grants,
		origin:     g.origin,
		namespaces: maps.Clone(g.namespaces),
		byParent:   g.byParent,
	}
	// An append to a shared list must copy it.
	for k, ids := range n.byKind {
		n.byKind[k] = slices.Clip(ids)
	}
	for k, ids := range n.byKindIn {
		n.byKindIn[k] = slices.Clip(ids)
	}
	n.addExtra(extra)
	return n
}

// Grants are the ReferenceGrants of a snapshot by namespace, available
// before the graph is built (attach.VirtualTargets).
type Grants map[string][]*gwv1b1.ReferenceGrant

// NewGrants indexes ReferenceGrants by namespace.
func NewGrants(rgs []*gwv1b1.ReferenceGrant) Grants {
	out := Grants{}
	for _, rg := range rgs {
		out[rg.Namespace] = append(out[rg.Namespace], rg)
	}
	return out
}

// Grants of the graph's snapshot.
func (g *Graph) Grants() Grants { return g.grants }

// Granted is Grants.Granted for the graph's snapshot.
func (g *Graph) Granted(from schema.GroupKind, fromNS string, to Ref) bool {
	return g.grants.Granted(from, fromNS, to)
}

// Granted reports whether a ReferenceGrant in to.Namespace lets objects of
// kind from in namespace fromNS refer to the object `to`.
func (gs Grants) Granted(from schema.GroupKind, fromNS string, to Ref) bool {
	for _, rg := range gs[to.Namespace] {
		if !slices.ContainsFunc(rg.Spec.From, func(f gwv1b1.ReferenceGrantFrom) bool {
			return string(f.Group) == from.Group && string(f.Kind) == from.Kind && string(f.Namespace) == fromNS
		}) {
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
// of node ids from least to most specific. Paths are produced in a
// deterministic order (parents in NodeID order). The slice is fn's until
// it returns (the next path is written in it), so fn copies what it keeps.
func (g *Graph) Ancestors(id NodeID, fn func(path []NodeID)) {
	// A node on the walk's stack and the next of its parents to walk.
	type frame struct {
		n    NodeID
		next int
	}
	var frames [16]frame // paths are short: the stack grows beyond it rarely
	var nodes [16]NodeID
	stack, path := frames[:0], nodes[:0]
	stack = append(stack, frame{n: id})
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		parents := g.Nodes[top.n].Parents
		if top.next == 0 && len(parents) == 0 {
			path = path[:0]
			for i := len(stack) - 1; i >= 0; i-- {
				path = append(path, stack[i].n)
			}
			fn(path)
		}
		if top.next < len(parents) {
			p := parents[top.next]
			top.next++
			stack = append(stack, frame{n: p})
			continue
		}
		stack = stack[:len(stack)-1]
	}
}

func (g *Graph) add(n Node) NodeID {
	id := g.addUnindexed(n)
	g.index[n.Ref] = id
	return id
}

// addUnindexed adds a node that Lookup finds otherwise: a section,
// through its object's Sections.
func (g *Graph) addUnindexed(n Node) NodeID {
	id := NodeID(len(g.Nodes))
	if len(g.slab) == cap(g.slab) {
		g.slab = make([]Node, 0, nodeSlab)
	}
	g.slab = append(g.slab, n)
	g.Nodes = append(g.Nodes, &g.slab[len(g.slab)-1])
	return id
}

// nodeSlab is how many nodes a graph allocates at a time: one allocation
// for many small ones, and never a move (the nodes are shared by pointer).
const nodeSlab = 1024

// namespaceNode returns the node of a namespace, creating an implicit one
// when no Namespace object was given; "" gives None. A node it makes is
// not in ByKind yet (listKinds, listedNamespace).
func (g *Graph) namespaceNode(ns string) (id NodeID) {
	id, _ = g.namespaceMade(ns)
	return id
}

// namespaceMade is namespaceNode, and whether it made the node.
func (g *Graph) namespaceMade(ns string) (NodeID, bool) {
	if ns == "" {
		return None, false
	}
	if id, ok := g.namespaces[ns]; ok {
		return id, false
	}
	id := g.add(Node{Ref: Ref{Group: hierarchy.CoreGroup, Kind: "Namespace", Name: ns}, Level: hierarchy.LevelNamespace, Namespace: None})
	if g.namespaces == nil {
		g.namespaces = map[string]NodeID{}
	}
	g.namespaces[ns] = id
	return id, true
}

// listedNamespace is namespaceNode for a graph already built: a node it
// makes is listed in ByKind.
func (g *Graph) listedNamespace(ns string) NodeID {
	id, made := g.namespaceMade(ns)
	if made {
		g.indexKind(g.Nodes[id].Ref, id)
	}
	return id
}

func (g *Graph) link(parent, child NodeID) {
	g.Nodes[parent].Children = append(g.Nodes[parent].Children, child)
	g.Nodes[child].Parents = append(g.Nodes[child].Parents, parent)
}

// Namespaces returns the namespaces of the objects along a context path,
// in order of first appearance: a Namespace's policy applies to every
// context through an object in it (001, "Interactions between defaults,
// overrides, and field values").
func (g *Graph) Namespaces(path []NodeID) []NodeID { return g.AppendNamespaces(nil, path) }

// AppendNamespaces appends Namespaces(path) to dst.
func (g *Graph) AppendNamespaces(dst, path []NodeID) []NodeID {
	start := len(dst)
	for _, id := range path {
		ns := g.Nodes[id].Namespace
		if ns != None && !slices.Contains(dst[start:], ns) {
			dst = append(dst, ns)
		}
	}
	return dst
}

// Mesh says what a context path is in the mesh: frontend is the Service
// frontend at its root, None for an ingress path; consumer is the
// namespace of the route below it when that route lives in another
// namespace than the Service (a GEP-1426 consumer route).
func (g *Graph) Mesh(path []NodeID) (frontend NodeID, consumer string) {
	for i, id := range path {
		n := g.Nodes[id]
		if n.Level == hierarchy.LevelNamespace {
			continue
		}
		if n.Ref.Role != hierarchy.RoleFrontend {
			return None, ""
		}
		if i+1 < len(path) {
			if ns := g.Nodes[path[i+1]].Ref.Namespace; ns != n.Ref.Namespace {
				consumer = ns
			}
		}
		return id, consumer
	}
	return None, ""
}

// ConsumerPolicy reports whether a policy of namespace policyNS attached
// at node id is a consumer policy: one in another namespace than its
// target (001 "Policy Attachment for Mesh": it "can only apply to
// requests from the same namespace"). A cluster-scoped policy is none.
func (g *Graph) ConsumerPolicy(policyNS string, id NodeID) bool {
	if policyNS == "" {
		return false
	}
	r := g.Nodes[id].Ref
	if r.GroupKind() == hierarchy.NamespaceKind {
		return r.Name != policyNS
	}
	return r.Namespace != "" && r.Namespace != policyNS
}
