package printer

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/strata-dev/strata/pkg/query"
)

// Diagram formats accepted by `strata graph -o` (query.GraphRequest).
const (
	DOT     = query.DOT
	Mermaid = query.Mermaid
)

// PrintDiagram draws a diagram as Graphviz DOT or a Mermaid flowchart:
// namespaces as clusters, topology edges solid, policy edges dashed; the
// same diagram draws the same bytes.
func PrintDiagram(w io.Writer, d *query.Diagram, format string) error {
	ew := &errWriter{w: w}
	switch format {
	case DOT:
		dotSyntax.draw(ew, d)
	case Mermaid:
		mermaidSyntax.draw(ew, d)
	default:
		return fmt.Errorf("output format %q: want dot or mermaid", format)
	}
	return ew.err
}

// diagramSyntax is how a diagram format writes each part: a node of each
// shape is its ID, shapes[0], the quoted label and shapes[1].
type diagramSyntax struct {
	head, tail                               string
	shapes                                   map[query.Shape][2]string
	quote                                    *strings.Replacer
	cluster, label, clusterEnd, clusterClose string
	edge, edgeEnd                            string
	policyEdge, policyEdgeEnd                string
}

var dotSyntax = diagramSyntax{
	head: "digraph strata {\n  rankdir=LR;\n  node [fontname=\"Helvetica\", fontsize=10];\n", tail: "}\n",
	shapes: map[query.Shape][2]string{
		query.ObjectShape:    {" [label=", ", shape=box];\n"},
		query.SectionShape:   {" [label=", ", shape=box, style=rounded];\n"},
		query.NamespaceShape: {" [label=", ", shape=folder];\n"},
		query.VirtualShape:   {" [label=", ", shape=box, style=dotted];\n"},
		query.PolicyShape:    {" [label=", ", shape=note, style=dashed];\n"},
	},
	quote:   strings.NewReplacer(`\`, `\\`, `"`, `\"`),
	cluster: "  subgraph cluster_", label: " {\n    label=", clusterEnd: ";\n    style=dashed;\n", clusterClose: "  }\n",
	edge: " -> ", edgeEnd: ";\n", policyEdge: " -> ", policyEdgeEnd: " [style=dashed, arrowhead=open];\n",
}

// mermaidSyntax quotes with entity codes: Mermaid has no escapes.
var mermaidSyntax = diagramSyntax{
	head: "flowchart LR\n",
	shapes: map[query.Shape][2]string{
		query.ObjectShape:    {`[`, "]\n"},
		query.SectionShape:   {`(`, ")\n"},
		query.NamespaceShape: {`[/`, "/]\n"},
		query.VirtualShape:   {`[[`, "]]\n"},
		query.PolicyShape:    {`{{`, "}}\n"},
	},
	quote:   strings.NewReplacer(`"`, "#quot;"),
	cluster: "  subgraph cluster", label: "[", clusterEnd: "]\n", clusterClose: "  end\n",
	edge: " --> ", edgeEnd: "\n", policyEdge: " -.-> ", policyEdgeEnd: "\n",
}

func (sx *diagramSyntax) draw(w *errWriter, d *query.Diagram) {
	b := lineBuffer{w: w}
	b.add(sx.head)
	node := func(indent string, n query.DiagramNode) {
		s := sx.shapes[n.Shape]
		b.add(indent, n.ID, s[0], `"`, sx.quote.Replace(n.Label), `"`, s[1])
	}
	for _, n := range d.Nodes {
		node("  ", n)
	}
	for i, cl := range d.Clusters {
		b.add(sx.cluster, strconv.Itoa(i), sx.label, `"`, sx.quote.Replace("namespace "+cl.Namespace), `"`, sx.clusterEnd)
		node("    ", cl.Node)
		for _, n := range cl.Nodes {
			node("    ", n)
		}
		b.add(sx.clusterClose)
	}
	for _, e := range d.Edges {
		b.add("  ", e.From, sx.edge, e.To, sx.edgeEnd)
	}
	for _, e := range d.PolicyEdges {
		b.add("  ", e.From, sx.policyEdge, e.To, sx.policyEdgeEnd)
	}
	b.add(sx.tail)
	b.flush()
}

// lineBuffer gathers a diagram's lines and writes them in large pieces.
type lineBuffer struct {
	w   *errWriter
	buf []byte
}

// add appends the strings to the current line.
func (b *lineBuffer) add(parts ...string) {
	for _, p := range parts {
		b.buf = append(b.buf, p...)
	}
	if len(b.buf) >= 64<<10 {
		b.flush()
	}
}

func (b *lineBuffer) flush() {
	if b.w.err == nil && len(b.buf) > 0 {
		_, b.w.err = b.w.w.Write(b.buf)
	}
	b.buf = b.buf[:0]
}
