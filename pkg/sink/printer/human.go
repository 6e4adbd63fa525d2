package printer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/strata-dev/strata/pkg/query"
)

// Human is the human-readable format, the default of the discoverability
// commands: tables and indented blocks, no timestamps, every list in the
// order the data has it. Color is for terminals only.
type Human struct {
	// Color emphasizes winners, losers and headings with ANSI colors.
	Color bool
	// Full lists every context of a description, however many; without
	// it, more than SummaryContexts are summarized (`describe --full`).
	Full bool
	// Narrowed says the description is narrowed to some kinds or a field:
	// more than SummaryContexts contexts then print one block per group
	// of targets with the same effect, not the summary.
	Narrowed bool
}

// SummaryContexts is how many contexts a description lists in full before
// it summarizes them: one screen or two.
const SummaryContexts = 20

// Colors, each five bytes long, so that colored cells (two codes each)
// stay aligned in text/tabwriter.
const (
	plain  = "\x1b[39m"
	green  = "\x1b[32m"
	red    = "\x1b[31m"
	yellow = "\x1b[33m"
	grey   = "\x1b[90m"
	reset  = "\x1b[39m"
	bold   = "\x1b[1m"
	unbold = "\x1b[22m"
)

// outcomeColors colors standings, in the words of either vocabulary
// (PolicyKind spec.status.vocabulary), and candidate outcomes.
var outcomeColors = map[string]string{
	query.Wins:            green,
	"Enforced":            green,
	"Programmed":          green,
	query.Beaten:          red,
	"Overridden":          red,
	query.Conflicted:      yellow,
	"PartiallyEnforced":   yellow,
	"PartiallyProgrammed": yellow,
	query.NotSet:          grey,
}

// standingOrder lists standings best first, in the words of both
// vocabularies (a policy's results use one).
var standingOrder = []string{"Enforced", "Programmed", "PartiallyEnforced", "PartiallyProgrammed", "Overridden", "Conflicted"}

// cell is one table cell and its color ("" for none).
type cell struct{ text, color string }

func c(text string) cell            { return cell{text: text} }
func colored(text, col string) cell { return cell{text: text, color: col} }

// table writes rows aligned in columns, indented; the first row is the
// header.
type table struct {
	h      Human
	indent string
	rows   [][]cell
}

func (t *table) add(cells ...cell) { t.rows = append(t.rows, cells) }

// newTable is a table whose header row is header.
func (h Human) newTable(indent string, header ...string) *table {
	t := &table{h: h, indent: indent, rows: [][]cell{make([]cell, len(header))}}
	for i, s := range header {
		t.rows[0][i] = c(s)
	}
	return t
}

// write writes the table through tw and line, kept for every table of a
// document.
func (t *table) write(w io.Writer, tw *tabwriter.Writer, line *[]byte) error {
	tw.Init(w, 0, 0, 2, ' ', 0)
	for _, r := range t.rows {
		b := bytes.NewBuffer((*line)[:0])
		b.WriteString(t.indent)
		for i, cl := range r {
			if i > 0 {
				b.WriteByte('\t')
			}
			text := cl.text
			if text == "" {
				text = "-"
			}
			if t.h.Color {
				col := cl.color
				if col == "" {
					col = plain
				}
				text = col + text + reset
			}
			b.WriteString(text)
		}
		b.WriteByte('\n')
		*line = b.Bytes()
		if _, err := tw.Write(*line); err != nil {
			return err
		}
	}
	return tw.Flush()
}

// heading emphasizes a line when colors are on.
func (h Human) heading(s string) string {
	if h.Color {
		return bold + s + unbold
	}
	return s
}

// value writes a field's value compactly: strings bare, everything else
// as JSON.
func value(v any) string {
	if s, ok := v.(string); ok && s != "" {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// viaConsumer is via, then the namespace of a mesh context's consumer
// route (GEP-1426: the context is that of its namespace's requests only).
func viaConsumer(path []query.Ref, consumer string) string {
	if consumer == "" {
		return via(path)
	}
	return via(path) + "; consumer route from namespace " + consumer
}

// via shortens a context path for people: without Namespaces and the
// target itself, an object followed by one of its sections written once.
func via(path []query.Ref) string {
	var parts []string
	for i, r := range path {
		if i == len(path)-1 {
			break
		}
		if r.Kind == "Namespace" && r.Group == "" {
			continue
		}
		if next := path[i+1]; r.SectionName == "" && next.SectionName != "" && sameObject(r, next) {
			if i+1 == len(path)-1 {
				break // the target is a section of this object
			}
			continue
		}
		parts = append(parts, r.String())
	}
	if len(parts) == 0 {
		return "(no parents)"
	}
	return strings.Join(parts, " > ")
}

func sameObject(a, b query.Ref) bool {
	return a.Group == b.Group && a.Kind == b.Kind && a.Namespace == b.Namespace && a.Name == b.Name
}

// results writes standing counts in a fixed order: Enforced(2),
// Overridden(1); one standing alone is written without its count.
func results(m map[string]int) string {
	var parts []string
	for _, s := range standingOrder {
		if n, ok := m[s]; ok {
			parts = append(parts, s+"("+strconv.Itoa(n)+")")
		}
	}
	if len(parts) == 1 {
		for s := range m {
			return s
		}
	}
	return strings.Join(parts, ", ")
}

// resultColor colors a results cell by its worst standing.
func resultColor(m map[string]int) string {
	for _, s := range slices.Backward(standingOrder) {
		if m[s] > 0 {
			if len(m) > 1 {
				return yellow
			}
			return outcomeColors[s]
		}
	}
	return grey
}

func plural(n int, s string) string {
	if n == 1 {
		return "1 " + s
	}
	return fmt.Sprintf("%d %ss", n, s)
}

// errWriter remembers the first write error.
type errWriter struct {
	w   io.Writer
	err error
	tw  tabwriter.Writer // for every table, see table.write
	row []byte
}

func (e *errWriter) printf(format string, a ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, a...)
	}
}

func (e *errWriter) table(t *table) {
	if e.err == nil {
		e.err = t.write(e.w, &e.tw, &e.row)
	}
}

// PrintHuman writes one of the discover package's documents for people.
func PrintHuman(w io.Writer, v any, h Human) error {
	ew := &errWriter{w: w}
	switch d := v.(type) {
	case *query.Description:
		h.description(ew, d)
	case *query.PolicyDescription:
		h.policyDescription(ew, d)
	case *query.Explanation:
		h.explanation(ew, d)
	case *query.PolicyList:
		h.policyList(ew, d)
	case *query.Impact:
		h.impact(ew, d)
	default:
		return fmt.Errorf("no human format for %T", v)
	}
	return ew.err
}
