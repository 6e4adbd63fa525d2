package printer

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/strata-dev/strata/pkg/query"
)

// Diagram formats accepted by `strata graph -o`.
const (
	DOT     = "dot"
	Mermaid = "mermaid"
)

// PrintDiagram draws a diagram as Graphviz DOT or a Mermaid flowchart:
// namespaces as clusters, topology edges solid, policy edges dashed; the
// same diagram draws the same bytes.
func PrintDiagram(w io.Writer, d *query.Diagram, format string) error {
	ew := &errWriter{w: w}
	switch format {
	case DOT:
		dot(ew, d)
	case Mermaid:
		mermaid(ew, d)
	default:
		return fmt.Errorf("output format %q: want dot or mermaid", format)
	}
	return ew.err
}

// dotShapes are the Graphviz attributes of each node shape.
var dotShapes = map[query.Shape]string{
	query.ObjectShape:    `shape=box`,
	query.SectionShape:   `shape=box, style=rounded`,
	query.NamespaceShape: `shape=folder`,
	query.VirtualShape:   `shape=box, style=dotted`,
	query.PolicyShape:    `shape=note, style=dashed`,
}

func dot(w *errWriter, d *query.Diagram) {
	b := lineBuffer{w: w}
	b.add("digraph strata {\n  rankdir=LR;\n  node [fontname=\"Helvetica\", fontsize=10];\n")
	node := func(indent string, n query.DiagramNode) {
		b.add(indent, n.ID, " [label=")
		b.addDotQuote(n.Label)
		b.add(", ", dotShapes[n.Shape], "];\n")
	}
	for _, n := range d.Nodes {
		node("  ", n)
	}
	for i, cl := range d.Clusters {
		b.add("  subgraph cluster_", strconv.Itoa(i), " {\n    label=")
		b.addDotQuote("namespace " + cl.Namespace)
		b.add(";\n    style=dashed;\n")
		node("    ", cl.Node)
		for _, n := range cl.Nodes {
			node("    ", n)
		}
		b.add("  }\n")
	}
	for _, e := range d.Edges {
		b.add("  ", e.From, " -> ", e.To, ";\n")
	}
	for _, e := range d.PolicyEdges {
		b.add("  ", e.From, " -> ", e.To, " [style=dashed, arrowhead=open];\n")
	}
	b.add("}\n")
	b.flush()
}

// dotEscaper escapes a DOT string's backslashes and quotes, built once.
var dotEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

// addDotQuote adds s as a quoted DOT string.
func (b *lineBuffer) addDotQuote(s string) {
	b.add(`"`, dotEscaper.Replace(s), `"`)
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

// mermaidShapes open and close a node of each shape.
var mermaidShapes = map[query.Shape][2]string{
	query.ObjectShape:    {`[`, `]`},
	query.SectionShape:   {`(`, `)`},
	query.NamespaceShape: {`[/`, `/]`},
	query.VirtualShape:   {`[[`, `]]`},
	query.PolicyShape:    {`{{`, `}}`},
}

func mermaid(w *errWriter, d *query.Diagram) {
	b := lineBuffer{w: w}
	b.add("flowchart LR\n")
	node := func(indent string, n query.DiagramNode) {
		s := mermaidShapes[n.Shape]
		b.add(indent, n.ID, s[0])
		b.addMermaidQuote(n.Label)
		b.add(s[1], "\n")
	}
	for _, n := range d.Nodes {
		node("  ", n)
	}
	for i, cl := range d.Clusters {
		b.add("  subgraph cluster", strconv.Itoa(i), "[")
		b.addMermaidQuote("namespace " + cl.Namespace)
		b.add("]\n")
		node("    ", cl.Node)
		for _, n := range cl.Nodes {
			node("    ", n)
		}
		b.add("  end\n")
	}
	for _, e := range d.Edges {
		b.add("  ", e.From, " --> ", e.To, "\n")
	}
	for _, e := range d.PolicyEdges {
		b.add("  ", e.From, " -.-> ", e.To, "\n")
	}
	b.flush()
}

// addMermaidQuote adds s as a quoted label; Mermaid has entity codes,
// not escapes.
func (b *lineBuffer) addMermaidQuote(s string) {
	b.add(`"`, mermaidEscaper.Replace(s), `"`)
}

// mermaidEscaper writes quotes as their entity code.
var mermaidEscaper = strings.NewReplacer(`"`, "#quot;")
