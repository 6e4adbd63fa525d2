package query

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/attach"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/outcome"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// NoTargets is the scope of a question that reads no effective policy and no status.
func NoTargets(*engine.Result) []topology.NodeID {
	return []topology.NodeID{topology.None} // an empty scope, not "everything"
}

// KindAttachments are the attachments of kind kr of res.
func KindAttachments(res *engine.Result, kr *engine.KindResult) *attach.Result {
	if kr.Attachments != nil {
		return kr.Attachments
	}
	return attach.Resolve(res.Graph, kr.Policies)
}

// StatusScope is the engine.RunScoped scope under which Summaries of ps
// answers as the complete run does: the nodes at and below where they
// attach, since a policy's status rolls up every context that stacks it
// (GEP-713 "Metaresource status"). Nil (the complete run) for a value
// space's kind; never nil otherwise.
func StatusScope(res *engine.Result, ps []*policykind.Policy) []topology.NodeID {
	atts := map[schema.GroupKind]*attach.Result{}
	var at []topology.NodeID
	for _, p := range ps {
		if p.Kind.Space() != "" {
			return nil
		}
		att, ok := atts[p.Kind.Key()]
		if !ok {
			if kr := res.Of(p.Kind.Key()); kr != nil {
				att = KindAttachments(res, kr)
			}
			atts[p.Kind.Key()] = att
		}
		if att == nil {
			continue
		}
		for _, a := range att.ByPolicy[p] {
			at = append(at, a.Node)
		}
	}
	return below(res.Graph, at).scope()
}

// Summaries are the `strata get policies` lines of ps, from a run scoped to StatusScope(ps) or more.
func Summaries(res *engine.Result, ps []*policykind.Policy) (map[*policykind.Policy]PolicySummary, error) {
	statuses, err := Statuses(res, ps)
	if err != nil {
		return nil, err
	}
	return summariesWith(res, ps, statuses), nil
}

// Statuses are the statuses of ps, computed for ps alone on a scoped run.
func Statuses(res *engine.Result, ps []*policykind.Policy) (map[*policykind.Policy]*outcome.PolicyStatus, error) {
	if res.Outcome != nil {
		return statusByPolicy(res), nil
	}
	var byKind [][]*policykind.Policy // ps by kind, in order of first sight
	at := map[schema.GroupKind]int{}
	for _, p := range ps {
		gk := p.Kind.Key()
		if _, ok := at[gk]; !ok {
			at[gk] = len(byKind)
			byKind = append(byKind, nil)
		}
		byKind[at[gk]] = append(byKind[at[gk]], p)
	}
	statuses := map[*policykind.Policy]*outcome.PolicyStatus{}
	for _, kps := range byKind {
		k := kps[0].Kind
		kr := res.Of(k.Key())
		if kr == nil || kr.Kind != k {
			return nil, fmt.Errorf("status of %s %s: not a policy kind of this run", k.Kind, kps[0].ID())
		}
		if k.Space() != "" {
			return nil, fmt.Errorf("status of %s %s: its kind folds with value space %s, which a scoped run cannot answer (StatusScope)", k.Kind, kps[0].ID(), k.Space())
		}
		o := outcome.Compute(res.Graph, kps, outcome.Input{Attachments: kr.Attachments, Effective: kr.Effective})
		for i := range o.Policies {
			statuses[o.Policies[i].Policy] = &o.Policies[i]
		}
	}
	return statuses, nil
}

// summariesWith are the summaries of ps with the statuses given (a policy without one has none).
func summariesWith(res *engine.Result, ps []*policykind.Policy, statuses map[*policykind.Policy]*outcome.PolicyStatus) map[*policykind.Policy]PolicySummary {
	kinds := map[schema.GroupKind]bool{}
	for _, p := range ps {
		kinds[p.Kind.Key()] = true
	}
	affects := affected(res, kinds)
	out := make(map[*policykind.Policy]PolicySummary, len(ps))
	for _, p := range ps {
		out[p] = summarize(res, p, statuses[p], affects[p])
	}
	return out
}

// Map lays out a run for drawing, grouped by namespace.
func Map(res *engine.Result) *Diagram {
	g := res.Graph
	type keyed struct {
		key string
		n   topology.NodeID
	}
	order := make([]keyed, len(g.Nodes))
	for i := range g.Nodes {
		order[i] = keyed{g.Nodes[i].Ref.Key(), topology.NodeID(i)}
	}
	slices.SortFunc(order, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	rank := make([]int, len(g.Nodes))
	ids := make([]string, len(g.Nodes))
	edges := 0
	for i, o := range order {
		rank[o.n] = i
		ids[o.n] = "n" + strconv.Itoa(i)
		edges += len(g.Node(o.n).Children)
	}
	byRank := func(a, b topology.NodeID) int { return rank[a] - rank[b] }

	d := &Diagram{Edges: make([]Edge, 0, edges)}
	clusters := map[string]*Cluster{}
	cluster := func(ns string) *Cluster {
		c := clusters[ns]
		if c == nil {
			c = &Cluster{Namespace: ns}
			clusters[ns] = c
		}
		return c
	}
	var children []topology.NodeID
	for _, o := range order {
		n := o.n
		node := g.Node(n)
		dn := DiagramNode{ID: ids[n], Label: node.Ref.String(), Shape: ObjectShape}
		switch {
		case node.Virtual:
			dn.Shape = VirtualShape
		case node.Ref.Section != "":
			dn.Shape = SectionShape
		}
		switch {
		case node.Ref.GroupKind() == hierarchy.NamespaceKind:
			dn.Shape = NamespaceShape
			cluster(node.Ref.Name).Node = dn
		case node.Ref.Namespace != "":
			c := cluster(node.Ref.Namespace)
			c.Nodes = append(c.Nodes, dn)
		default:
			d.Nodes = append(d.Nodes, dn)
		}
		// Edges in (From, To) order: nodes come in rank order, so only children need sorting.
		children = append(children[:0], node.Children...)
		slices.SortFunc(children, byRank)
		for _, ch := range children {
			d.Edges = append(d.Edges, Edge{From: ids[n], To: ids[ch]})
		}
	}
	var targets []topology.NodeID
	for i, p := range res.Policies {
		dn := DiagramNode{ID: "p" + strconv.Itoa(i), Label: p.Kind.Kind + " " + p.Name, Shape: PolicyShape}
		if p.Namespace == "" {
			d.Nodes = append(d.Nodes, dn)
		} else {
			c := cluster(p.Namespace)
			c.Nodes = append(c.Nodes, dn)
		}
		// Likewise, policies come in ID order: sort each one's targets, once each.
		targets = targets[:0]
		for _, a := range res.Of(p.Kind.Key()).Attachments.ByPolicy[p] {
			targets = append(targets, a.Node)
		}
		slices.SortFunc(targets, byRank)
		for _, t := range slices.Compact(targets) {
			d.PolicyEdges = append(d.PolicyEdges, Edge{From: dn.ID, To: ids[t]})
		}
	}
	for i, ns := range slices.Sorted(maps.Keys(clusters)) {
		c := clusters[ns]
		if c.Node.ID == "" { // every namespace has a node; kept for safety
			c.Node = DiagramNode{ID: fmt.Sprintf("ns%d", i), Label: "Namespace " + ns, Shape: NamespaceShape}
		}
		d.Clusters = append(d.Clusters, *c)
	}
	return d
}

// Chosen reports whether sel chooses policy p, by its labels, name and namespace.
func Chosen(p *policykind.Policy, sel Selector) bool {
	return sel.Matches(policyLabels(p), p.Namespace, p.Name)
}

// ChosenPolicies is Map's diagram with only the policies sel chooses (`strata graph -l`).
func ChosenPolicies(res *engine.Result, d *Diagram, sel Selector) *Diagram {
	keep := map[string]bool{}
	d.eachNode(func(n DiagramNode) { keep[n.ID] = n.Shape != PolicyShape })
	for i, p := range res.Policies { // Map names policy i "p<i>"
		if Chosen(p, sel) {
			keep["p"+strconv.Itoa(i)] = true
		}
	}
	return d.only(keep)
}

// Within is the part of a diagram about one namespace (`strata graph -n`).
func Within(d *Diagram, ns string) *Diagram {
	keep := map[string]bool{}
	for _, c := range d.Clusters {
		if c.Namespace != ns {
			continue
		}
		keep[c.Node.ID] = true
		for _, n := range c.Nodes {
			keep[n.ID] = true
		}
	}
	inside := maps.Clone(keep)
	for _, e := range slices.Concat(d.Edges, d.PolicyEdges) {
		if inside[e.From] || inside[e.To] {
			keep[e.From], keep[e.To] = true, true
		}
	}
	return d.only(keep)
}

// Around is the part of a diagram about node n up to depth steps away.
func Around(res *engine.Result, d *Diagram, n topology.NodeID, depth int) *Diagram {
	g := res.Graph
	nodes := map[topology.NodeID]bool{}
	add := func(m topology.NodeID) {
		nodes[m] = true
		for _, s := range g.Node(m).Sections {
			nodes[s.Node] = true
		}
	}
	add(n)
	for _, up := range []bool{true, false} {
		frontier := append([]topology.NodeID{n}, sectionsOf(g, n)...)
		for range depth {
			var next []topology.NodeID
			for _, m := range frontier {
				links := g.Node(m).Children
				if up {
					links = g.Node(m).Parents
				}
				for _, l := range links {
					if !nodes[l] {
						add(l)
						next = append(next, l)
						next = append(next, sectionsOf(g, l)...)
					}
				}
			}
			frontier = next
		}
	}
	labels := map[string]bool{}
	for m := range nodes {
		labels[g.Node(m).Ref.String()] = true
		// Its Namespace too: a policy on it applies here (docs/hierarchy.md).
		if ns := g.Node(m).Namespace; ns != topology.None {
			labels[g.Node(ns).Ref.String()] = true
		}
	}
	keep := map[string]bool{}
	d.eachNode(func(dn DiagramNode) {
		if dn.Shape != PolicyShape && labels[dn.Label] {
			keep[dn.ID] = true
		}
	})
	for _, e := range d.PolicyEdges {
		if keep[e.To] {
			keep[e.From] = true
		}
	}
	return d.only(keep)
}

// sectionsOf lists a node's sections in NodeID order.
func sectionsOf(g *topology.Graph, n topology.NodeID) []topology.NodeID {
	out := g.Node(n).Sections.Nodes()
	slices.Sort(out)
	return out
}

// eachNode calls fn with every node of d.
func (d *Diagram) eachNode(fn func(DiagramNode)) {
	for _, c := range d.Clusters {
		fn(c.Node)
		for _, n := range c.Nodes {
			fn(n)
		}
	}
	for _, n := range d.Nodes {
		fn(n)
	}
}

// only is the diagram with the nodes of keep and the edges between them.
func (d *Diagram) only(keep map[string]bool) *Diagram {
	out := &Diagram{}
	for _, c := range d.Clusters {
		var nodes []DiagramNode
		for _, n := range c.Nodes {
			if keep[n.ID] {
				nodes = append(nodes, n)
			}
		}
		if len(nodes) > 0 || keep[c.Node.ID] {
			out.Clusters = append(out.Clusters, Cluster{Namespace: c.Namespace, Node: c.Node, Nodes: nodes})
		}
	}
	for _, n := range d.Nodes {
		if keep[n.ID] {
			out.Nodes = append(out.Nodes, n)
		}
	}
	edges := func(es []Edge) []Edge {
		var out []Edge
		for _, e := range es {
			if keep[e.From] && keep[e.To] {
				out = append(out, e)
			}
		}
		return out
	}
	out.Edges, out.PolicyEdges = edges(d.Edges), edges(d.PolicyEdges)
	return out
}

// The diagram formats of a GraphRequest; svg and html are drawn by the web view.
const (
	DOT     = "dot"
	Mermaid = "mermaid"
)

// GraphRequest is what `strata graph` asks: the object whose neighbourhood
// to draw (empty for everything), the output format and the depth, the
// policies chosen by Select (all when empty) and, drawing everything, the
// one namespace to draw (Namespace; "" for all).
type GraphRequest struct {
	Subject, Format string
	Depth           int
	Select          Selector
	Namespace       string
}

// Check rejects the formats and depths graph cannot draw: svg and html draw
// one object's neighbourhood, dot and mermaid may draw everything.
func (r GraphRequest) Check() error {
	switch r.Format {
	case DOT, Mermaid:
	case "svg", "html":
		if r.Subject == "" {
			return fmt.Errorf("--output %s draws one object's neighbourhood: give KIND/NAME (or use dot or mermaid for everything)", r.Format)
		}
	default:
		return fmt.Errorf("--output %q: want dot, mermaid, svg or html", r.Format)
	}
	if r.Depth < 0 {
		return fmt.Errorf("--depth %d: want 0 or more", r.Depth)
	}
	return nil
}

// Diagram is the diagram graph draws as DOT or Mermaid: the world's map
// with the policies r chooses, around node n (r.Subject) to r.Depth, or
// within r.Namespace.
func (r GraphRequest) Diagram(res *engine.Result, n topology.NodeID) *Diagram {
	d := Map(res)
	if !r.Select.Empty() {
		d = ChosenPolicies(res, d, r.Select)
	}
	switch {
	case r.Subject != "":
		d = Around(res, d, n, r.Depth)
	case r.Namespace != "":
		d = Within(d, r.Namespace)
	}
	return d
}
