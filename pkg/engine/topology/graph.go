package topology

import (
	"maps"
	"slices"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"

	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1b1 "sigs.k8s.io/gateway-api/apis/v1beta1"
)

// Graph is the DAG of targetables. Nodes are stored in a slice and found
// through hash indexes, so building and querying it is linear in the number
// of objects and edges (no scans over all edges).
//
// A Graph is complete when Build returns it (Extra) and never changes
// after: it has no method that writes, so any number of goroutines may
// read it at once. Nodes is exported for reading; writing to it is a bug.
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
	grants   Grants
	// origin is shared by a built graph and every Extend of it (Holds).
	origin *origin
	// namespaces are the Namespace nodes by name: namespaceNode, asked
	// for every object, hashes one string rather than a five-string Ref
	// into the index of every object.
	namespaces map[string]NodeID
}

// origin is what a graph and its extensions share: how many nodes the
// graph they all extend had when it was built.
type origin struct{ built int }

// Holds reports whether every node of h is at the same id in g: g is h,
// or g and h come from one built graph through Extend and h's nodes
// beyond that graph's are g's too. A NodeID then names the same node in
// both, so that the results of two runs of one topology (a Result and its
// Recompute) are matched by ids, not by the keys of their refs
// (query's impact).
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
func (g *Graph) Node(id NodeID) *Node { return &g.Nodes[id] }

// Lookup finds the node of a ref, or None.
func (g *Graph) Lookup(r Ref) NodeID {
	if id, ok := g.index[r]; ok {
		return id
	}
	if r.Section != "" {
		// A section is found through its object (Graph.section).
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

// ByKindIn lists the object nodes of a kind in one namespace, in insertion
// order: ByKind filtered by namespace, without the scan. Cluster-scoped
// objects are in namespace "".
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

// listKinds makes ByKind and ByKindIn of a graph's nodes, once they are
// all added (objects): its object nodes, that is every node but sections
// and Service frontends, in id order. Recording each node as it was
// added took two lookups of maps keyed by two and three strings for each
// of the performance world's 45,000 objects, on the core that builds the
// graph while the other waits. A pass keeps the list of the current kind
// at hand (the nodes of a kind follow one another), and finds the list of a
// namespace by its node's id.
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
		n := &g.Nodes[i]
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
// known only once the policies are read: the namespaces of policies
// (a policy can always target its own namespace, even when nothing else
// in the input lives there) and the virtual objects targetRefs name
// (GEP-713 "Targeting virtual types"). Build adds them in order, so that
// node ids do not depend on who asks for them later: the graph is
// complete, and frozen, once built.
type Extra struct {
	Namespaces []string
	Virtual    []Ref
}

// addExtra adds the nodes of extra that g lacks, in order: the
// namespaces, then each virtual object (after its namespace) as a leaf
// root. Only Build and Extend call it, on a graph no one else holds yet.
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
// has them all. g is never changed: a Result's graph stays what it was
// while a Recompute derived from it reads new policies
// (engine.Result.Recompute), and both may be read at once. The copy is
// shallow: nodes of g are shared, as they are never written after Build.
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
	}
	// Appending to a shared list must copy it, not write past its end
	// into an array g (or another Extend of g) also uses.
	for k, ids := range n.byKind {
		n.byKind[k] = slices.Clip(ids)
	}
	for k, ids := range n.byKindIn {
		n.byKindIn[k] = slices.Clip(ids)
	}
	n.addExtra(extra)
	return n
}

// Grants are the ReferenceGrants of a snapshot by namespace: what
// attachment needs of the graph to decide a cross-namespace targetRef,
// available before the graph is built (attach.VirtualTargets).
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
// kind from in namespace fromNS refer to the object `to` (Gateway API
// ReferenceGrant semantics: group and kind must match, name if set).
func (gs Grants) Granted(from schema.GroupKind, fromNS string, to Ref) bool {
	for _, rg := range gs[to.Namespace] {
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
// of node ids from least to most specific. Paths are produced in a
// deterministic order (parents in NodeID order). The slice is fn's until
// it returns: the next path is written in it, so fn copies what it
// keeps. A slice made for each path, most of them dropped at once, was
// 56,000 allocations of every run on the performance world.
//
// The walk is depth first, without recursion: a closure and two lists
// grown for each target were nine allocations of every target.
func (g *Graph) Ancestors(id NodeID, fn func(path []NodeID)) {
	// frame is a node on the walk's stack and the next of its parents
	// to walk.
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

// addUnindexed adds a node that Lookup finds otherwise: a section, through
// its object's Sections. Half the nodes of a world of routes are their
// rules; each index entry hashes a five-string Ref into a map of every
// node, most of what building the graph cost.
func (g *Graph) addUnindexed(n Node) NodeID {
	id := NodeID(len(g.Nodes))
	g.Nodes = append(g.Nodes, n)
	return id
}

// namespaceNode returns the node of a namespace, creating an implicit one
// (while building) when no Namespace object was given, so that policies can target a
// namespace offline without its object. "" gives None.
// A node it makes is not in ByKind yet (listKinds, listedNamespace).
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

// Namespaces returns the Namespace nodes that stand above a context path:
// the namespaces of the objects along it, in order of first appearance.
// A policy targeting a Namespace applies to every context that passes
// through an object in that namespace (001, "Interactions between
// defaults, overrides, and field values": a namespace policy affects the
// Gateways in it and the routes attached to them).
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
// frontend at its root (hierarchy.RoleFrontend), None for an ingress
// path; consumer is the namespace of the route below it when that route
// lives in another namespace than the Service. GEP-1426 calls such a
// route a consumer route: it applies to requests from its own namespace
// only, where a producer route (in the Service's namespace, consumer "")
// applies to requests from every namespace. 001 "Policy Attachment for
// Mesh": policy "can only apply to requests from the same namespace if
// the target is in a different namespace".
//
// A frontend is a root, so it is the first node of a path, after the
// Namespaces when path is a context's (they come first): Mesh looks at
// no more, and costs an ingress path nothing.
func (g *Graph) Mesh(path []NodeID) (frontend NodeID, consumer string) {
	for i, id := range path {
		n := &g.Nodes[id]
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
// target (for a Namespace, the Namespace itself). 001 "Policy Attachment
// for Mesh": such a policy "can only apply to requests from the same
// namespace", so on a mesh path it acts only in the contexts of its
// namespace's consumer routes. A cluster-scoped policy is none.
func (g *Graph) ConsumerPolicy(policyNS string, id NodeID) bool {
	if policyNS == "" {
		return false
	}
	r := &g.Nodes[id].Ref
	if r.GroupKind() == hierarchy.NamespaceKind {
		return r.Name != policyNS
	}
	return r.Namespace != "" && r.Namespace != policyNS
}
