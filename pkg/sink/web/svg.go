package web

import (
	"fmt"
	"html"
	"io"
	"strings"
)

// standingColors are the fills of policy boxes by standing, as in the web
// view's legend (assets/app.css).
var standingColors = map[string]string{
	"Enforced":          "#2e7d32",
	"PartiallyEnforced": "#b7791f",
	"Overridden":        "#6b7280",
	"Conflicted":        "#c2410c",
	"Invalid":           "#b91c1c",
	"TargetNotFound":    "#7c3aed",
	// The Programmed vocabulary's words (docs/status.md).
	"Programmed":          "#2e7d32",
	"PartiallyProgrammed": "#b7791f",
}

// SVG writes a graph as a standalone SVG document, without script or
// external resource: parent-child edges solid, policy edges dashed,
// policies filled by standing.
func SVG(w io.Writer, g *Graph) error {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" font-family="sans-serif" font-size="11" role="img">`+"\n", g.Width, g.Height, g.Width, g.Height)
	title := "Strata topology"
	if g.Focus != "" {
		title += " around " + g.Focus
	}
	fmt.Fprintf(&b, "<title>%s</title>\n", html.EscapeString(title))
	at := make(map[string]Node, len(g.Nodes))
	for _, n := range g.Nodes {
		at[n.ID] = n
	}
	for _, e := range g.Edges {
		from, ok1 := at[e.From]
		to, ok2 := at[e.To]
		if !ok1 || !ok2 {
			continue
		}
		x1, y1 := from.X+boxWidth, from.Y+boxHeight/2
		x2, y2 := to.X, to.Y+boxHeight/2
		if from.X > to.X {
			x1, x2 = from.X, to.X+boxWidth
		}
		if from.X == to.X { // a policy below its target
			x1, x2 = from.X+boxWidth, to.X+boxWidth
		}
		style := `stroke="#c9d1dc"`
		if e.Policy {
			style = `stroke="#8b5cf6" stroke-dasharray="4 3"`
		}
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" %s fill="none"/>`+"\n", x1, y1, x2, y2, style)
	}
	for _, n := range g.Nodes {
		fill, stroke, text, dash := "#ffffff", "#5b6575", "#1d2430", ""
		switch n.Type {
		case TypePolicy:
			if c, ok := standingColors[n.Standing]; ok {
				fill, stroke, text = c, c, "#ffffff"
			}
		case TypeSection, TypeMore:
			fill, dash = "#f1f4f8", ` stroke-dasharray="3 2"`
		}
		if n.ID == g.Focus {
			stroke = "#1f5fbf"
		}
		label := n.Label
		if n.Standing != "" {
			label += " (" + n.Standing + ")"
		}
		fmt.Fprintf(&b, `<g><title>%s</title><rect x="%d" y="%d" width="%d" height="%d" rx="3" fill="%s" stroke="%s"%s/>`,
			html.EscapeString(label), n.X, n.Y, boxWidth, boxHeight, fill, stroke, dash)
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="%s">%s</text></g>`+"\n", n.X+6, n.Y+boxHeight/2+4, text, html.EscapeString(clip(n.Label, 32)))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// HTML writes a self-contained page holding the graph's SVG and the
// legend of standings (`strata graph -o html`).
func HTML(w io.Writer, g *Graph) error {
	var svg strings.Builder
	if err := SVG(&svg, g); err != nil {
		return err
	}
	title := "Strata topology"
	if g.Focus != "" {
		title += ": " + g.Focus
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<!doctype html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>%s</title></head>\n<body style=\"font-family:sans-serif;margin:1rem\">\n<header><h1 style=\"font-size:1.2rem\">%s</h1></header>\n<main>\n", html.EscapeString(title), html.EscapeString(title))
	b.WriteString("<figure style=\"margin:0;overflow:auto;border:1px solid #c9d1dc\">\n")
	b.WriteString(svg.String())
	b.WriteString("</figure>\n<ul aria-label=\"Standings\" style=\"list-style:none;padding:0;display:flex;gap:.5rem\">\n")
	for _, s := range []string{"Enforced", "PartiallyEnforced", "Overridden", "Conflicted", "Invalid", "TargetNotFound"} {
		fmt.Fprintf(&b, "<li style=\"background:%s;color:#fff;padding:0 .4rem;border-radius:9px\">%s</li>\n", standingColors[s], s)
	}
	b.WriteString("</ul>\n")
	if g.Hidden > 0 {
		fmt.Fprintf(&b, "<p>%d more objects and policies are summarized in the dashed boxes.</p>\n", g.Hidden)
	}
	b.WriteString("</main>\n</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// clip shortens a label to n runes with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
