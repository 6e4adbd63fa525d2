package printer

import (
	"fmt"
	"io"
	"strings"

	"github.com/strata-dev/strata/pkg/query"
)

// Markdown is the -o of strata diff for a pull request's review comment.
const Markdown = "markdown"

// Bounds of the markdown summary (a GitHub comment holds 65,536
// characters): markdownGroups lines, then details up to markdownDetails
// bytes.
const (
	markdownGroups  = 40
	markdownDetails = 40000
)

// PrintDiff writes a diff for people (format ""), for a review comment
// (Markdown) or for programs (YAML, JSON), buffered by the caller.
func PrintDiff(w io.Writer, d *query.DiffResult, format string, h Human) error {
	switch format {
	case "":
		ew := &errWriter{w: w}
		h.diff(ew, d)
		return ew.err
	case Markdown:
		ew := &errWriter{w: w}
		markdownDiff(ew, d)
		return ew.err
	}
	return Print(w, d, format)
}

// diffSummary is the first line of every format: how much changes.
func diffSummary(d *query.DiffResult) string {
	var parts []string
	if d.Changed.Targets > 0 {
		parts = append(parts, fmt.Sprintf("the effective policy of %s in %s", plural(d.Changed.Targets, "target"), plural(d.Changed.Contexts, "context")))
	}
	if n := len(d.Policies); n > 0 {
		parts = append(parts, fmt.Sprintf("the status of %s", pluralPolicies(n)))
	}
	return "This change sets " + strings.Join(parts, " and ") + "."
}

func pluralPolicies(n int) string {
	if n == 1 {
		return "1 policy"
	}
	return fmt.Sprintf("%d policies", n)
}

// changeNote marks a target or context that exists on one side only.
func changeNote(change string) string {
	if change == query.DiffChanged {
		return ""
	}
	return " (" + strings.ToLower(change) + ")"
}

// diff: the summary line, the grouped table of field changes, impact's
// blocks, then the policies whose status changes.
func (h Human) diff(w *errWriter, d *query.DiffResult) {
	if d.Empty() {
		w.printf("No change.\n")
		return
	}
	w.printf("%s\n", h.heading(diffSummary(d)))
	if groups := groupFields(d); len(groups) > 0 {
		w.printf("\n")
		t := h.newTable("  ", "KIND", "FIELD", "BEFORE", "AFTER", "ON", "SET BY")
		for _, g := range groups {
			by := g.by
			if g.after == unset {
				by = "(was) " + by
			}
			t.add(c(g.policyKind), c(g.field), colored(g.before, red), colored(g.after, green), c(g.where()), c(by))
		}
		w.table(t)
	}
	fields := func(fs []query.FieldChange) { w.table(fieldChanges(h, fs)) }
	for _, g := range groupDiff(d) {
		if len(g.targets) > 1 {
			w.printf("\n%s\n", h.heading(fmt.Sprintf("%s on %s%s:", g.policyKind, g.where(), g.note)))
			w.printf("  %s, each in %s%s\n", names(g.targets, 5), plural(g.contexts, "context"), g.contextNote)
			fields(g.fields)
			continue
		}
		tc := d.Targets[g.first]
		w.printf("\n%s\n", h.heading(fmt.Sprintf("%s on %s%s:", tc.PolicyKind.Kind, tc.Target, changeNote(tc.Change))))
		for _, ctx := range tc.Contexts {
			w.printf("  via %s%s\n", via(ctx.Path), changeNote(ctx.Change))
			fields(ctx.Fields)
		}
	}
	if len(d.Policies) == 0 {
		return
	}
	w.printf("\n%s\n", h.heading("Policies whose status changes:"))
	t := h.newTable("  ", "KIND", "POLICY", "CHANGE", "BEFORE", "AFTER")
	for _, p := range d.Policies {
		t.add(c(p.Kind), c(p.ID()), c(p.Change), c(statusOf(p.Before)), colored(statusOf(p.After), statusColor(p.After)))
	}
	w.table(t)
}

// groupDiff folds the targets on which the diff is the same, as
// groupImpact does; those added or removed apart from those that change.
func groupDiff(d *query.DiffResult) []*impactGroup {
	ts := make([]changedTarget, len(d.Targets))
	for i, tc := range d.Targets {
		ts[i] = changedTarget{policyKind: tc.PolicyKind, target: tc.Target, note: changeNote(tc.Change), contexts: make([]changedContext, len(tc.Contexts))}
		for j, ctx := range tc.Contexts {
			ts[i].contexts[j] = changedContext{note: changeNote(ctx.Change), fields: ctx.Fields}
		}
	}
	return groupChanges(ts)
}

func statusOf(s *query.StatusSummary) string {
	if s == nil {
		return ""
	}
	return statusLine(*s)
}

func statusColor(s *query.StatusSummary) string {
	switch {
	case s == nil:
		return grey
	case s.Accepted != "True":
		return red
	}
	return outcomeColors[s.Enforcement]
}

// fieldGroup is one line of the summary: one field changing the same
// way, by the same policy, on targets of one kind in one namespace.
type fieldGroup struct {
	policyKind, targetKind, namespace string
	field, before, after, by          string
	targets                           map[string]bool
}

// groupFields folds the diff's fields into summary lines, in the order
// they first appear, each field by the policy that sets it in the head,
// or else in the base.
func groupFields(d *query.DiffResult) []*fieldGroup {
	var out []*fieldGroup
	index := map[string]*fieldGroup{}
	for _, tc := range d.Targets {
		for _, ctx := range tc.Contexts {
			for _, f := range ctx.Fields {
				g := &fieldGroup{
					policyKind: tc.PolicyKind.Kind, targetKind: tc.Target.Kind, namespace: tc.Target.Namespace,
					field: f.Field, before: unsetOr(f.Before, f.BeforeSetBy), after: unsetOr(f.After, f.AfterSetBy), by: f.AfterSetBy,
				}
				if g.by == "" {
					g.by = f.BeforeSetBy
				}
				key := strings.Join([]string{g.policyKind, g.targetKind, g.namespace, g.field, g.before, g.after, g.by}, "\x00")
				if have := index[key]; have != nil {
					g = have
				} else {
					g.targets = map[string]bool{}
					index[key] = g
					out = append(out, g)
				}
				g.targets[tc.Target.Key()] = true
			}
		}
	}
	return out
}

// unset stands for a field one side does not set.
const unset = "unset"

func (g *fieldGroup) where() string { return where(len(g.targets), g.targetKind, g.namespace) }

func unsetOr(v any, by string) string {
	if by == "" {
		return unset
	}
	return value(v)
}

// mdValue writes a value as inline code, and unset in italics.
func mdValue(s string) string {
	if s == unset {
		return "_" + unset + "_"
	}
	return code(s)
}

// markdownDiff writes a review comment: the summary line, one line per
// field group, the policies whose status changes, and the targets' fields
// in a collapsed <details> block (groupDiff), both lists bounded.
func markdownDiff(w *errWriter, d *query.DiffResult) {
	w.printf("### Strata: effective policy changes\n\n")
	if d.Empty() {
		w.printf("No change.\n")
		return
	}
	w.printf("%s\n\n", diffSummary(d))
	groups := groupFields(d)
	for i, g := range groups {
		if i == markdownGroups {
			w.printf("- ... and %d more (see the details below)\n", len(groups)-i)
			break
		}
		set := "set by"
		if g.after == unset {
			set = "was set by"
		}
		w.printf("- %s %s %s -> %s on **%s** (%s %s)\n", g.policyKind, code(g.field), mdValue(g.before), mdValue(g.after), g.where(), set, g.by)
	}
	if len(d.Policies) > 0 {
		if len(groups) > 0 {
			w.printf("\n")
		}
		w.printf("| Policy | Change | Before | After |\n| --- | --- | --- | --- |\n")
		for _, p := range d.Policies {
			w.printf("| %s %s | %s | %s | %s |\n", cellText(p.Kind), cellText(p.ID()), p.Change, cellText(dashed(statusOf(p.Before))), cellText(dashed(statusOf(p.After))))
		}
	}
	if len(d.Targets) == 0 {
		return
	}
	w.printf("\n<details><summary>Changes per target and context (%s)</summary>\n", plural(d.Changed.Targets, "target"))
	var b strings.Builder
	shown := 0 // targets
	for _, g := range groupDiff(d) {
		var t strings.Builder
		table := func(fs []query.FieldChange) {
			t.WriteString("| Field | Before | After |\n| --- | --- | --- |\n")
			for _, f := range fs {
				fmt.Fprintf(&t, "| %s | %s | %s |\n", code(f.Field), cellText(setValue(f.Before, f.BeforeSetBy)), cellText(setValue(f.After, f.AfterSetBy)))
			}
		}
		if len(g.targets) > 1 {
			fmt.Fprintf(&t, "\n**%s on %s**%s\n\n%s, each in %s%s\n\n", g.policyKind, cellText(g.where()), g.note, cellText(names(g.targets, 5)), plural(g.contexts, "context"), g.contextNote)
			table(g.fields)
		} else {
			tc := d.Targets[g.first]
			fmt.Fprintf(&t, "\n**%s on %s**%s\n", tc.PolicyKind.Kind, cellText(tc.Target.String()), changeNote(tc.Change))
			for _, ctx := range tc.Contexts {
				fmt.Fprintf(&t, "\nvia %s%s\n\n", cellText(via(ctx.Path)), changeNote(ctx.Change))
				table(ctx.Fields)
			}
		}
		if b.Len()+t.Len() > markdownDetails {
			fmt.Fprintf(&b, "\n_... and %s more; run `strata diff` for all of them._\n", plural(len(d.Targets)-shown, "target"))
			break
		}
		b.WriteString(t.String())
		shown += len(g.targets)
	}
	w.printf("%s\n</details>\n", b.String())
}

// code writes a value as inline code; a backtick inside would end it.
func code(s string) string { return "`" + cellText(strings.ReplaceAll(s, "`", "'")) + "`" }

// cellText keeps a value inside its table cell: a pipe would end it and
// a newline the row.
func cellText(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// fieldChanges is the table of a target's changed fields, each value
// with the policy that set it, as impact and diff print it.
func fieldChanges(h Human, fs []query.FieldChange) *table {
	t := h.newTable("    ", "FIELD", "BEFORE", "AFTER")
	for _, f := range fs {
		t.add(c(f.Field), colored(setValue(f.Before, f.BeforeSetBy), red), colored(setValue(f.After, f.AfterSetBy), green))
	}
	return t
}
