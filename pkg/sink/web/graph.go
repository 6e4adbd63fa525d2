package web

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/query"
)

// Graph is a part of the topology ready to draw: nodes placed in columns
// by hierarchy level (least specific on the left), edges by node ID.
type Graph struct {
	// Focus is the ID of the node the graph is centred on, if any.
	Focus string `json:"focus,omitempty"`
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
	// Width and Height bound the nodes' boxes, for the SVG viewBox.
	Width  int `json:"width"`
	Height int `json:"height"`
	// Hidden counts the objects and policies aggregate nodes stand for.
	Hidden int `json:"hidden"`
}

// Node is a box to draw: an object, a section, a policy, or an aggregate
// of objects left out.
type Node struct {
	// ID is unique in the graph: the RefString of an object or section,
	// the PolicyString of a policy, "more:" for an aggregate.
	ID string `json:"id"`
	// Kind of the object or policy (of the hidden objects for an
	// aggregate); Label is what the box says.
	Kind  string `json:"kind"`
	Label string `json:"label"`
	// Type is object, section, policy or more.
	Type string `json:"type"`
	// Standing of a policy: Enforced, PartiallyEnforced, Overridden,
	// Conflicted, Invalid, TargetNotFound.
	Standing string `json:"standing,omitempty"`
	// More is how many objects an aggregate stands for.
	More int `json:"more,omitempty"`
	// X, Y: top-left corner of the box.
	X int `json:"x"`
	Y int `json:"y"`

	layer int
	key   string
}

// Edge links two nodes by ID; Policy edges go from a policy to its
// target, drawn dashed.
type Edge struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Policy bool   `json:"policy,omitempty"`
}

// Node types.
const (
	TypeObject  = "object"
	TypeSection = "section"
	TypePolicy  = "policy"
	TypeMore    = "more"
)

// Limits bound what one graph draws, whatever the size of the world.
type Limits struct {
	// PerGroup is how many neighbours of one kind a node shows before the
	// rest become one aggregate node; policies per node likewise.
	PerGroup int
	// Nodes caps the whole graph: past it, nothing more is expanded.
	Nodes int
}

// DefaultLimits draw a readable graph: a dozen of each kind per node,
// 300 boxes at most.
var DefaultLimits = Limits{PerGroup: 12, Nodes: 300}

// Box geometry, in SVG user units.
const (
	boxWidth  = 200
	boxHeight = 30
	colPitch  = 250
	rowPitch  = 42
	margin    = 20
)

// builder collects a graph's nodes and edges before layout.
type builder struct {
	w      *World
	lim    Limits
	g      Graph
	ids    map[string]int // node ID -> index in g.Nodes
	edges  map[Edge]bool
	nodeOf map[topology.NodeID]string
	// drawn are the policies drawn, in the order they are added.
	drawn []*policykind.Policy
}

func newBuilder(w *World, lim Limits) *builder {
	return &builder{w: w, lim: lim, ids: map[string]int{}, edges: map[Edge]bool{}, nodeOf: map[topology.NodeID]string{}}
}

func (b *builder) full() bool { return len(b.g.Nodes) >= b.lim.Nodes }

// object adds a topology node (once) and returns its ID.
func (b *builder) object(n topology.NodeID) string {
	if id, ok := b.nodeOf[n]; ok {
		return id
	}
	node := b.w.Res.Graph.Node(n)
	r := node.Ref
	id := RefString(r)
	typ, label := TypeObject, r.Kind+" "+strings.TrimPrefix(r.Namespace+"/"+r.Name, "/")
	if r.Section != "" {
		typ, label = TypeSection, hierarchy.Kinds[r.GroupKind()].Section+" "+r.Name+"#"+r.Section
	}
	b.nodeOf[n] = id
	b.add(Node{ID: id, Kind: r.Kind, Label: label, Type: typ, layer: int(node.Level), key: r.Key()})
	return id
}

func (b *builder) add(n Node) {
	if _, ok := b.ids[n.ID]; ok {
		return
	}
	b.ids[n.ID] = len(b.g.Nodes)
	b.g.Nodes = append(b.g.Nodes, n)
}

func (b *builder) edge(e Edge) { b.edges[e] = true }

// edgeDown adds the edge from at to id when down, else from id to at.
func (b *builder) edgeDown(at, id string, down bool) {
	if !down {
		at, id = id, at
	}
	b.edge(Edge{From: at, To: id})
}

// more adds an aggregate node for n objects (or policies) of a kind left
// out next to node at, on the given layer.
func (b *builder) more(at string, kind string, n, layer int, below bool) {
	id := fmt.Sprintf("more:%s:%s:%v", at, kind, below)
	noun := kind + "s"
	if strings.HasSuffix(kind, "y") {
		noun = strings.TrimSuffix(kind, "y") + "ies"
	}
	b.add(Node{ID: id, Kind: kind, Label: fmt.Sprintf("and %d more %s", n, noun), Type: TypeMore, More: n, layer: layer, key: "~" + id})
	b.g.Hidden += n
	b.edgeDown(at, id, below)
}

// policies adds the policies attached to topology node n, capped.
func (b *builder) policies(n topology.NodeID) {
	ps := b.w.attached[n]
	if len(ps) == 0 || (b.full() && b.g.Focus != b.nodeOf[n]) {
		return // past the cap, only the focus's policies are drawn
	}
	at := b.object(n)
	layer := int(b.w.Res.Graph.Node(n).Level)
	for i, p := range ps {
		if i == b.lim.PerGroup || b.full() {
			b.more(at, "Policy", len(ps)-i, layer, false)
			return
		}
		b.policy(p, layer)
		b.edge(Edge{From: PolicyString(p), To: at, Policy: true})
	}
}

func (b *builder) policy(p *policykind.Policy, layer int) {
	if _, ok := b.ids[PolicyString(p)]; !ok {
		b.drawn = append(b.drawn, p)
	}
	b.add(Node{ID: PolicyString(p), Kind: p.Kind.Kind, Label: p.Kind.Kind + " " + p.ID(), Type: TypePolicy,
		Standing: b.w.Standing(p), layer: layer, key: "policy:" + PolicyString(p)})
}

// neighbours adds the parents (up) or children of n, grouped by kind and
// capped per kind, and returns those added.
func (b *builder) neighbours(n topology.NodeID, up bool) []topology.NodeID {
	g := b.w.Res.Graph
	node := g.Node(n)
	next := node.Children
	if up {
		next = node.Parents
	}
	at := b.object(n)
	byKind := map[string][]topology.NodeID{}
	for _, m := range next {
		byKind[g.Node(m).Ref.Kind] = append(byKind[g.Node(m).Ref.Kind], m)
	}
	var added []topology.NodeID
	for _, k := range slices.Sorted(maps.Keys(byKind)) {
		ms := byKind[k]
		slices.SortFunc(ms, func(x, y topology.NodeID) int { return strings.Compare(g.Node(x).Ref.Key(), g.Node(y).Ref.Key()) })
		for i, m := range ms {
			if _, seen := b.nodeOf[m]; !seen && (i >= b.lim.PerGroup || b.full()) {
				b.more(at, k, len(ms)-i, int(g.Node(m).Level), !up)
				break
			}
			id := b.object(m)
			b.edgeDown(at, id, !up)
			added = append(added, m)
		}
	}
	return added
}

// Neighbourhood is the graph around one node: depth steps up (parents)
// and down (children) from it, the namespace of the focus, and the
// policies attached to every object drawn; at most lim.PerGroup of a kind
// per node and lim.Nodes in all, the rest as aggregate nodes.
func (w *World) Neighbourhood(focus topology.NodeID, depth int, lim Limits) *Graph {
	b := w.neighbourhood(focus, depth, lim)
	b.layout()
	return &b.g
}

// neighbourhood collects the nodes and edges of Neighbourhood.
func (w *World) neighbourhood(focus topology.NodeID, depth int, lim Limits) *builder {
	b := newBuilder(w, lim)
	g := w.Res.Graph
	b.g.Focus = b.object(focus)
	if ns := g.Node(focus).Namespace; ns != topology.None {
		b.object(ns)
	}
	for _, up := range []bool{true, false} {
		frontier := []topology.NodeID{focus}
		for d := 0; d < depth && len(frontier) > 0 && !b.full(); d++ {
			var next []topology.NodeID
			for _, n := range frontier {
				next = append(next, b.neighbours(n, up)...)
			}
			frontier = next
		}
	}
	drawn := slices.Sorted(maps.Keys(b.nodeOf))
	b.policies(focus) // first, so that the cap never hides them
	for _, n := range drawn {
		if n != focus {
			b.policies(n)
		}
	}
	return b
}

// Plan draws one neighbourhood from a scoped engine run, which computes
// only what the standings drawn read (query.StatusScope): Scope is the
// run's scope, then Neighbourhood draws; a Plan is for one run.
type Plan struct {
	// Focus finds the node to draw around in the run so far; false asks
	// for the complete run (the node is not found, or is not a node).
	Focus  func(*engine.Result) (topology.NodeID, bool)
	Depth  int
	Limits Limits
	// Keep, when not nil, chooses the policies drawn (`strata graph
	// -l`); the objects are drawn as without it.
	Keep func(*policykind.Policy) bool

	// Set by Scope: the node and the policies drawn, and what is attached
	// where (World.attached).
	asked    bool
	focus    topology.NodeID
	drawn    []*policykind.Policy
	attached map[topology.NodeID][]*policykind.Policy
}

// Scope is the engine.RunScoped scope of the plan's drawing: what is drawn
// depends on the topology and the attachments alone, which the run holds
// before it asks; the standings need the effective targets below.
func (p *Plan) Scope(res *engine.Result) []topology.NodeID {
	focus, ok := p.Focus(res)
	if !ok {
		return nil
	}
	w := index(res)
	w.attached = p.kept(w.attached)
	p.asked, p.focus, p.attached = true, focus, w.attached
	p.drawn = w.neighbourhood(focus, p.Depth, p.Limits).drawn
	return query.StatusScope(res, p.drawn)
}

// Neighbourhood is World.Neighbourhood of focus with the plan's depth and
// limits, from a complete run (NewWorld) or from the run Scope scoped,
// whose World has the summaries of the policies drawn only.
func (p *Plan) Neighbourhood(res *engine.Result, focus topology.NodeID) (*Graph, error) {
	if res.Scope == nil {
		w := NewWorld(res)
		w.attached = p.kept(w.attached)
		return w.Neighbourhood(focus, p.Depth, p.Limits), nil
	}
	if !p.asked || focus != p.focus {
		return nil, fmt.Errorf("draw %s: the run was not scoped for it (Plan.Scope)", res.Graph.Node(focus).Ref)
	}
	sums, err := query.Summaries(res, p.drawn)
	if err != nil {
		return nil, err
	}
	w := &World{Res: res, summaries: sums, attached: p.attached}
	return w.Neighbourhood(focus, p.Depth, p.Limits), nil
}

// kept is attached with only the policies Keep chooses, in a new map.
func (p *Plan) kept(attached map[topology.NodeID][]*policykind.Policy) map[topology.NodeID][]*policykind.Policy {
	if p.Keep == nil {
		return attached
	}
	out := make(map[topology.NodeID][]*policykind.Policy, len(attached))
	for n, ps := range attached {
		if keep := slices.DeleteFunc(slices.Clone(ps), func(q *policykind.Policy) bool { return !p.Keep(q) }); len(keep) > 0 {
			out[n] = keep
		}
	}
	return out
}

// layout places the nodes in columns by layer (a policy in its target's,
// below the objects), each column ordered by the mean row of its placed
// neighbours, then by key: deterministic, one pass.
func (b *builder) layout() {
	var layers []int
	for _, n := range b.g.Nodes {
		if !slices.Contains(layers, n.layer) {
			layers = append(layers, n.layer)
		}
	}
	slices.Sort(layers)
	col := map[int]int{}
	for i, l := range layers {
		col[l] = i
	}
	edges := slices.SortedFunc(maps.Keys(b.edges), func(x, y Edge) int {
		return cmp.Or(strings.Compare(x.From, y.From), strings.Compare(x.To, y.To))
	})
	b.g.Edges = edges
	adj := map[string][]string{}
	for _, e := range edges {
		adj[e.From] = append(adj[e.From], e.To)
		adj[e.To] = append(adj[e.To], e.From)
	}
	row := map[string]float64{}
	rows := 0
	for _, l := range layers {
		var idx []int
		for i, n := range b.g.Nodes {
			if n.layer == l {
				idx = append(idx, i)
			}
		}
		bary := map[int]float64{}
		for _, i := range idx {
			sum, k := 0.0, 0
			for _, m := range adj[b.g.Nodes[i].ID] {
				if r, ok := row[m]; ok {
					sum += r
					k++
				}
			}
			bary[i] = 1e9
			if k > 0 {
				bary[i] = sum / float64(k)
			}
		}
		slices.SortFunc(idx, func(x, y int) int { // objects first, then by mean row
			px, py := b.g.Nodes[x].Type == TypePolicy, b.g.Nodes[y].Type == TypePolicy
			return cmp.Or(cmpBool(px, py), cmp.Compare(bary[x], bary[y]), strings.Compare(b.g.Nodes[x].key, b.g.Nodes[y].key))
		})
		for r, i := range idx {
			n := &b.g.Nodes[i]
			n.X = margin + col[l]*colPitch
			n.Y = margin + r*rowPitch
			row[n.ID] = float64(r)
		}
		rows = max(rows, len(idx))
	}
	b.g.Width = 2*margin + max(0, len(layers)-1)*colPitch + boxWidth
	b.g.Height = 2*margin + max(0, rows-1)*rowPitch + boxHeight
	slices.SortFunc(b.g.Nodes, func(x, y Node) int { return cmp.Or(x.X-y.X, x.Y-y.Y) })
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// Overview is the start page: how big the world is, the policies by
// standing, the GatewayClasses and the Gateways with their route and
// policy counts, and a graph of classes and Gateways (capped).
type Overview struct {
	// Counts of objects by kind and of policies ("Policies").
	Counts map[string]int `json:"counts"`
	// Standings counts the policies by standing.
	Standings map[string]int `json:"standings"`
	Classes   []ClassRow     `json:"classes"`
	Gateways  []GatewayRow   `json:"gateways"`
	// MoreGateways is how many Gateways the list leaves out.
	MoreGateways int    `json:"moreGateways"`
	Graph        *Graph `json:"graph"`
	// Source, Live and NotVisible are the World's.
	Source     string   `json:"source,omitempty"`
	Live       bool     `json:"live,omitempty"`
	NotVisible []string `json:"notVisible,omitempty"`
}

// ClassRow is a GatewayClass and how many Gateways use it.
type ClassRow struct {
	Ref      string `json:"ref"`
	Name     string `json:"name"`
	Gateways int    `json:"gateways"`
}

// GatewayRow is a Gateway with its listeners, the routes attached to
// them, and the policies attached to it, its listeners and its routes.
type GatewayRow struct {
	Ref       string `json:"ref"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Class     string `json:"class"`
	Listeners int    `json:"listeners"`
	Routes    int    `json:"routes"`
	Policies  int    `json:"policies"`
}

// maxGatewayRows is how many Gateways the overview lists.
const maxGatewayRows = 200

// Summarize is the overview of the world.
func (w *World) Summarize(lim Limits) *Overview {
	g := w.Res.Graph
	o := &Overview{Counts: map[string]int{}, Standings: map[string]int{}, Source: w.Source, Live: w.Live, NotVisible: w.NotVisible}
	for _, row := range hierarchy.Table {
		if row.Targetable {
			if n := len(g.ByKind(row.GroupKind)); n > 0 {
				o.Counts[row.Kind] = n
			}
		}
	}
	o.Counts["Policies"] = len(w.Res.Policies)
	for _, p := range w.Res.Policies {
		o.Standings[w.Standing(p)]++
	}
	classes := slices.Clone(g.ByKind(hierarchy.GatewayClassKind))
	slices.SortFunc(classes, func(x, y topology.NodeID) int { return strings.Compare(g.Node(x).Ref.Name, g.Node(y).Ref.Name) })
	gateways := slices.Clone(g.ByKind(hierarchy.GatewayKind))
	slices.SortFunc(gateways, func(x, y topology.NodeID) int { return strings.Compare(g.Node(x).Ref.Key(), g.Node(y).Ref.Key()) })
	b := newBuilder(w, lim)
	for _, c := range classes {
		o.Classes = append(o.Classes, ClassRow{Ref: RefString(g.Node(c).Ref), Name: g.Node(c).Ref.Name, Gateways: len(g.Node(c).Children)})
		b.object(c)
		b.policies(c)
		b.neighbours(c, false)
	}
	for i, gw := range gateways {
		if i == maxGatewayRows {
			o.MoreGateways = len(gateways) - i
			break
		}
		o.Gateways = append(o.Gateways, w.gatewayRow(gw))
	}
	b.layout()
	o.Graph = &b.g
	return o
}

func (w *World) gatewayRow(gw topology.NodeID) GatewayRow {
	g := w.Res.Graph
	n := g.Node(gw)
	row := GatewayRow{Ref: RefString(n.Ref), Namespace: n.Ref.Namespace, Name: n.Ref.Name, Listeners: len(n.Sections)}
	for _, p := range n.Parents {
		if g.Node(p).Ref.GroupKind() == hierarchy.GatewayClassKind {
			row.Class = g.Node(p).Ref.Name
		}
	}
	routes := map[topology.NodeID]bool{}
	policies := map[*policykind.Policy]bool{}
	count := func(n topology.NodeID) {
		for _, p := range w.attached[n] {
			policies[p] = true
		}
	}
	// Down through its listeners, and ListenerSets' (GEP-1713), to routes.
	seen := map[topology.NodeID]bool{gw: true}
	stack := []topology.NodeID{gw}
	for len(stack) > 0 {
		m := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		count(m)
		for _, c := range g.Node(m).Children {
			if seen[c] {
				continue
			}
			seen[c] = true
			switch lvl := g.Node(c).Level; {
			case lvl == hierarchy.LevelRoute:
				routes[c] = true
				count(c)
				for _, s := range g.Node(c).Sections {
					count(s.Node)
				}
			case lvl < hierarchy.LevelRoute:
				stack = append(stack, c)
			}
		}
	}
	row.Routes, row.Policies = len(routes), len(policies)
	return row
}
