package printer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/strata-dev/strata/pkg/query"
)

// description: the object, who affects it, then what is in force per
// policy kind, target and context.
func (h Human) description(w *errWriter, d *query.Description) {
	w.printf("%s\n", h.heading(d.Object.String()))
	if len(d.Sections) > 0 {
		w.printf("Sections:  %s\n", strings.Join(d.Sections, ", "))
	}
	if len(d.Parents) > 0 {
		w.printf("Parents:   %s\n", refList(d.Parents))
	}
	if len(d.Children) > 0 {
		w.printf("Children:  %s\n", refList(d.Children))
	}
	w.printf("\n")
	if len(d.Policies) == 0 {
		w.printf("No policy affects %s.\n", d.Object)
	} else if !h.Full && len(d.Policies) > SummaryContexts {
		// Many policies: by kind, with the results of all of them.
		w.printf("%s\n", h.heading(fmt.Sprintf("Policies (%d), by kind:", len(d.Policies))))
		t := &table{h: h, indent: "  "}
		t.add(c("KIND"), c("POLICIES"), c("ATTACHED"), c("INHERITED"), c("BELOW"), c("RESULTS"))
		var kinds []string
		type tally struct {
			n       int
			rel     map[string]int
			results map[string]int
		}
		by := map[string]*tally{}
		for _, p := range d.Policies {
			tl := by[p.Policy.Kind]
			if tl == nil {
				tl = &tally{rel: map[string]int{}, results: map[string]int{}}
				by[p.Policy.Kind] = tl
				kinds = append(kinds, p.Policy.Kind)
			}
			tl.n++
			tl.rel[p.Relation]++
			for r, n := range p.Results {
				tl.results[r] += n
			}
		}
		for _, k := range kinds {
			tl := by[k]
			t.add(c(k), c(fmt.Sprint(tl.n)), c(fmt.Sprint(tl.rel[query.Attached])), c(fmt.Sprint(tl.rel[query.Inherited])), c(fmt.Sprint(tl.rel[query.Below])), colored(results(tl.results), resultColor(tl.results)))
		}
		w.table(t)
	} else {
		w.printf("%s\n", h.heading(fmt.Sprintf("Policies (%d):", len(d.Policies))))
		t := &table{h: h, indent: "  "}
		t.add(c("KIND"), c("POLICY"), c("RELATION"), c("ATTACHED TO"), c("RESULT"))
		for _, p := range d.Policies {
			res := results(p.Results)
			switch {
			case p.Withheld:
				res = "withheld by its kind"
			case res == "":
				res = "reaches no effective target"
			}
			t.add(c(p.Policy.Kind), c(p.Policy.ID()), c(p.Relation), c(refList(p.AttachedTo)), colored(res, resultColor(p.Results)))
		}
		w.table(t)
	}
	if len(d.Rejected) > 0 {
		w.printf("\n%s\n", h.heading("Rejected targetRefs:"))
		t := &table{h: h, indent: "  "}
		t.add(c("KIND"), c("POLICY"), c("FIELD"), c("REASON"), c("MESSAGE"))
		for _, r := range d.Rejected {
			t.add(c(r.Policy.Kind), c(r.Policy.ID()), c(r.Field), colored(r.Reason, red), c(r.Message))
		}
		w.table(t)
	}
	contexts := 0
	for _, k := range d.Effective {
		for _, tg := range k.Targets {
			contexts += len(tg.Contexts)
		}
	}
	if !h.Full && contexts > SummaryContexts {
		h.effectSummary(w, d, contexts)
		return
	}
	for _, k := range d.Effective {
		for _, tg := range k.Targets {
			where := "on " + tg.Target.String()
			if tg.Target.Key() != d.Object.Key() && !sameObject(tg.Target, d.Object) {
				where += ", through " + d.Object.String()
			}
			w.printf("\n%s\n", h.heading(fmt.Sprintf("%s %s:", kindLabel(k), where)))
			for _, ctx := range tg.Contexts {
				w.printf("  via %s\n", viaConsumer(ctx.Path, ctx.Consumer))
				h.contextFields(w, ctx)
			}
		}
	}
}

// contextFields is the table of one context's fields: each value with
// who set it and whom it beat, and the fields no longer in force.
func (h Human) contextFields(w *errWriter, ctx query.ContextEffect) {
	t := &table{h: h, indent: "    "}
	t.add(c("FIELD"), c("VALUE"), c("SET BY"), c("BEATEN"))
	for _, f := range ctx.Fields {
		if f.SetBy == "" {
			t.add(colored(f.Field, grey), colored("(not in force)", grey), c(""), c(strings.Join(f.Beaten, ", ")))
			continue
		}
		t.add(c(f.Field), colored(value(f.Value), green), c(f.SetBy), colored(strings.Join(f.Beaten, ", "), red))
	}
	if len(ctx.Fields) == 0 {
		t.add(c("(no fields)"), c(""), c(""), c(""))
	}
	w.table(t)
}

// effectSummary is the effective part of a description too long to list
// context by context: per kind, how many targets and contexts, then each
// field with the values in force and who set them, counted in contexts,
// and the policies beaten on it; then how to see the contexts.
func (h Human) effectSummary(w *errWriter, d *query.Description, contexts int) {
	for _, k := range d.Effective {
		n := 0
		type setting struct {
			value, by string
		}
		counts := map[string]map[setting]int{} // field -> value and setter -> contexts
		beaten := map[string]map[string]int{}  // field -> policy -> contexts
		unset := map[string]int{}              // field -> contexts where it is not in force
		var fields []string
		for _, tg := range k.Targets {
			n += len(tg.Contexts)
			for _, ctx := range tg.Contexts {
				for _, f := range ctx.Fields {
					if counts[f.Field] == nil {
						counts[f.Field], beaten[f.Field] = map[setting]int{}, map[string]int{}
						fields = append(fields, f.Field)
					}
					if f.SetBy == "" {
						unset[f.Field]++
					} else {
						counts[f.Field][setting{value(f.Value), f.SetBy}]++
					}
					for _, b := range f.Beaten {
						beaten[f.Field][b]++
					}
				}
			}
		}
		w.printf("\n%s\n", h.heading(fmt.Sprintf("%s on %s in %s:", kindLabel(k), plural(len(k.Targets), "target"), plural(n, "context"))))
		slices.Sort(fields)
		t := &table{h: h, indent: "  "}
		t.add(c("FIELD"), c("VALUE"), c("SET BY"), c("CONTEXTS"))
		const shown = 3 // settings per field; the rest are counted
		for _, f := range fields {
			type row struct {
				st  setting
				cnt int
			}
			var rows []row
			for st, cnt := range counts[f] {
				rows = append(rows, row{st, cnt})
			}
			slices.SortFunc(rows, func(a, b row) int {
				if a.cnt != b.cnt {
					return b.cnt - a.cnt
				}
				return strings.Compare(a.st.by, b.st.by)
			})
			name := f
			for i, r := range rows {
				if i == shown {
					rest, ctxs := len(rows)-shown, 0
					for _, r := range rows[shown:] {
						ctxs += r.cnt
					}
					t.add(c(""), colored(fmt.Sprintf("and %d more", rest), grey), c(""), c(fmt.Sprint(ctxs)))
					break
				}
				t.add(c(name), colored(r.st.value, green), c(r.st.by), c(fmt.Sprint(r.cnt)))
				name = ""
			}
			if cnt := unset[f]; cnt > 0 {
				t.add(c(name), colored("(not in force)", grey), c(""), c(fmt.Sprint(cnt)))
				name = ""
			}
			if len(beaten[f]) > 0 {
				var lost []string
				total := 0
				for p, cnt := range beaten[f] {
					lost = append(lost, p)
					total += cnt
				}
				slices.Sort(lost)
				who := strings.Join(lost[:min(shown, len(lost))], ", ")
				if len(lost) > shown {
					who += fmt.Sprintf(" and %d more", len(lost)-shown)
				}
				t.add(c(name), colored("beaten: "+pluralPolicies(len(lost)), red), c(who), c(fmt.Sprint(total)))
			}
		}
		if len(fields) == 0 {
			t.add(c("(no fields)"), c(""), c(""), c(""))
		}
		w.table(t)
	}
	w.printf("\n%s contexts in all: --full lists each, --kind KIND and --field FIELD narrow them.\n", fmt.Sprint(contexts))
}

// policyDescription: what the policy says, where it attached, its status
// per ancestor, and every target it reaches.
func (h Human) policyDescription(w *errWriter, d *query.PolicyDescription) {
	p := d.Policy
	w.printf("%s\n", h.heading(p.Kind+" "+p.ID()))
	managed := "not managed by Strata"
	if p.Managed {
		managed = "managed by Strata"
	}
	w.printf("Kind:      %s.%s (%s, %s)\n", p.Kind, p.Group, p.Class, managed)
	if p.Created != "" {
		w.printf("Created:   %s\n", p.Created)
	}
	w.printf("Targets:   %s\n", strings.Join(p.Targets, ", "))
	w.printf("Status:    %s\n", statusLine(p.Status))
	w.printf("Affects:   %s\n", affects(p.Affects))
	w.printf("\n%s\n", h.heading("Spec:"))
	for _, b := range d.Blocks {
		w.printf("  %s (%s): %s\n", b.Field, b.Strategy, value(b.Values))
	}
	if len(d.Rejected) > 0 {
		w.printf("\n%s\n", h.heading("Rejected targetRefs:"))
		t := &table{h: h, indent: "  "}
		t.add(c("FIELD"), c("REASON"), c("MESSAGE"))
		for _, r := range d.Rejected {
			t.add(c(r.Field), colored(r.Reason, red), c(r.Message))
		}
		w.table(t)
	}
	if len(d.Ancestors) > 0 {
		w.printf("\n%s\n", h.heading("Status by ancestor:"))
		t := &table{h: h, indent: "  "}
		t.add(c("ANCESTOR"), c("CONDITION"), c("REASON"), c("MESSAGE"))
		for _, a := range d.Ancestors {
			// Accepted, or the condition that carries the standing: the
			// True one of Enforced, PartiallyEnforced and Overridden, or
			// Programmed, True or False (PolicyKind spec.status.vocabulary).
			cond := a.Conditions[0] // Accepted
			for _, x := range a.Conditions[1:] {
				if x.Reason != "NotApplicable" {
					cond = x
				}
			}
			col := outcomeColors[cond.Reason]
			if cond.Status != "True" {
				col = red
			}
			t.add(c(a.Ancestor.String()), colored(cond.Type+"="+cond.Status, col), c(cond.Reason), c(cond.Message))
		}
		w.table(t)
	}
	w.printf("\n%s\n", h.heading(fmt.Sprintf("Reaches %s:", plural(len(d.Reaches), "effective target"))))
	if len(d.Reaches) > 0 {
		t := &table{h: h, indent: "  "}
		t.add(c("TARGET"), c("RESULT"))
		for _, r := range d.Reaches {
			t.add(c(r.Target.String()), colored(results(r.Results), resultColor(r.Results)))
		}
		w.table(t)
	}
}

// explanation: one chain per context, candidates least specific first.
func (h Human) explanation(w *errWriter, x *query.Explanation) {
	w.printf("%s\n", h.heading(fmt.Sprintf("Field %s of %s", x.Field, x.Object)))
	for _, ch := range x.Chains {
		where := "on " + ch.Target.String()
		if ch.Target.Key() != x.Object.Key() && !sameObject(ch.Target, x.Object) {
			where += ", through " + x.Object.String()
		}
		w.printf("\n%s\n", h.heading(fmt.Sprintf("%s %s:", ch.PolicyKind.Kind, where)))
		w.printf("  via %s\n", viaConsumer(ch.Path, ch.Consumer))
		if len(ch.SetBy) > 0 {
			w.printf("  value: %s (set by %s)\n", value(ch.Value), strings.Join(ch.SetBy, ", "))
		} else {
			w.printf("  value: (not in force)\n")
		}
		t := &table{h: h, indent: "    "}
		t.add(c("#"), c("SOURCE"), c("ATTACHED TO"), c("LEVEL"), c("BLOCK"), c("STRATEGY"), c("VALUE"), c("OUTCOME"), c("NOTE"))
		for i, cd := range ch.Candidates {
			at := "(the target)"
			if cd.AttachedTo != nil {
				at = cd.AttachedTo.String()
			}
			val := ""
			if cd.Sets {
				val = value(cd.Value)
			}
			t.add(c(fmt.Sprint(i+1)), c(cd.Source), c(at), c(fmt.Sprint(cd.Level)), c(cd.Block), c(cd.Strategy),
				c(val), colored(cd.Outcome, outcomeColors[cd.Outcome]), c(cd.Note))
		}
		w.table(t)
	}
}

// policyList: one row per policy.
func (h Human) policyList(w *errWriter, l *query.PolicyList) {
	if len(l.Items) == 0 {
		w.printf("No policies found.\n")
		return
	}
	t := &table{h: h}
	t.add(c("KIND"), c("POLICY"), c("TARGETS"), c("CLASS"), c("STATUS"), c("AFFECTS"))
	for _, p := range l.Items {
		st := statusLine(p.Status)
		col := outcomeColors[p.Status.Enforcement]
		if p.Status.Accepted != "True" {
			col = red
		}
		t.add(c(p.Kind), c(p.ID()), c(strings.Join(p.Targets, ", ")), c(p.Class), colored(st, col), c(affects(p.Affects)))
	}
	w.table(t)
}

// impact: a summary line, then per target and context the fields that
// change.
func (h Human) impact(w *errWriter, im *query.Impact) {
	verb := "Deleting"
	switch im.Change {
	case query.ChangeReplace:
		verb = "Replacing"
	case query.ChangeCreate:
		verb = "Adding"
	}
	subject := fmt.Sprintf("%s %s %s", verb, im.Policy.Kind, im.Policy.ID())
	for _, p := range im.Also {
		subject += fmt.Sprintf(", %s %s", p.Kind, p.ID())
	}
	if len(im.Also) > 0 {
		subject += " together"
	}
	if im.Changed.Targets == 0 {
		w.printf("%s changes no effective policy.\n", h.heading(subject))
		return
	}
	w.printf("%s changes the effective policy of %s in %s.\n", h.heading(subject),
		plural(im.Changed.Targets, "target"), plural(im.Changed.Contexts, "context"))
	fields := func(fs []query.FieldChange) {
		t := &table{h: h, indent: "    "}
		t.add(c("FIELD"), c("BEFORE"), c("AFTER"))
		for _, f := range fs {
			t.add(c(f.Field), colored(setValue(f.Before, f.BeforeSetBy), red), colored(setValue(f.After, f.AfterSetBy), green))
		}
		w.table(t)
	}
	for _, g := range groupImpact(im) {
		if len(g.targets) > 1 {
			// Identical effects on many targets: one block, the targets
			// counted and named (the first few), as a reader of a
			// change to a namespace's policy wants it ("42 HTTPRoutes
			// in baker"); -o yaml lists every one.
			w.printf("\n%s\n", h.heading(fmt.Sprintf("%s on %s:", g.policyKind, g.where())))
			w.printf("  %s, each in %s\n", names(g.targets, 5), plural(g.contexts, "context"))
			fields(g.fields)
			continue
		}
		tc := g.targets[0]
		w.printf("\n%s\n", h.heading(fmt.Sprintf("%s on %s:", tc.PolicyKind.Kind, tc.Target)))
		for _, ctx := range tc.Contexts {
			w.printf("  via %s\n", via(ctx.Path))
			fields(ctx.Fields)
		}
	}
}

// impactGroup is targets of one kind in one namespace on which a change
// has the same effect: the same fields change the same way, by the same
// policies, in each of their contexts.
type impactGroup struct {
	policyKind, targetKind, namespace string
	targets                           []query.TargetChange
	contexts                          int // per target
	fields                            []query.FieldChange
}

// where says which targets: "42 HTTPRoutes in baker".
func (g *impactGroup) where() string {
	s := plural(len(g.targets), g.targetKind)
	if g.namespace != "" {
		s += " in " + g.namespace
	}
	return s
}

// groupImpact folds targets with identical effects, in the order their
// first target appears. A target whose contexts differ from one another
// is a group of its own.
func groupImpact(im *query.Impact) []*impactGroup {
	var out []*impactGroup
	index := map[string]*impactGroup{}
	for _, tc := range im.Targets {
		key := ""
		for i, ctx := range tc.Contexts {
			if i > 0 && !slices.EqualFunc(ctx.Fields, tc.Contexts[0].Fields, sameFieldChange) {
				key = ""
				break
			}
			key = fmt.Sprint(tc.PolicyKind, "\x00", tc.Target.Kind, "\x00", tc.Target.Namespace, "\x00", len(tc.Contexts), "\x00", fieldsKey(ctx.Fields))
		}
		if g := index[key]; key != "" && g != nil {
			g.targets = append(g.targets, tc)
			continue
		}
		g := &impactGroup{policyKind: tc.PolicyKind.Kind, targetKind: tc.Target.Kind, namespace: tc.Target.Namespace, targets: []query.TargetChange{tc}, contexts: len(tc.Contexts)}
		if len(tc.Contexts) > 0 {
			g.fields = tc.Contexts[0].Fields
		}
		if key != "" {
			index[key] = g
		}
		out = append(out, g)
	}
	return out
}

func sameFieldChange(a, b query.FieldChange) bool {
	return fieldsKey([]query.FieldChange{a}) == fieldsKey([]query.FieldChange{b})
}

// fieldsKey identifies a list of field changes by what they print.
func fieldsKey(fs []query.FieldChange) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s\x00%s\x00%s\x01", f.Field, setValue(f.Before, f.BeforeSetBy), setValue(f.After, f.AfterSetBy))
	}
	return b.String()
}

// names lists the first n targets' names and counts the rest.
func names(ts []query.TargetChange, n int) string {
	var parts []string
	for _, t := range ts[:min(n, len(ts))] {
		parts = append(parts, t.Target.Name)
	}
	s := strings.Join(parts, ", ")
	if len(ts) > n {
		s += fmt.Sprintf(" and %d more", len(ts)-n)
	}
	return s
}

// setValue writes a value with its source, or "unset".
func setValue(v any, by string) string {
	if by == "" {
		return "unset"
	}
	return fmt.Sprintf("%s (%s)", value(v), by)
}

// statusLine writes a status summary in a few words.
func statusLine(s query.StatusSummary) string {
	switch s.Accepted {
	case "False":
		return "NotAccepted: " + strings.Join(s.Reasons, ", ")
	case "Partial":
		return s.Enforcement + " (partly NotAccepted: " + strings.Join(s.Reasons, ", ") + ")"
	case "":
		return "unknown"
	}
	return s.Enforcement
}

func affects(c query.Count) string {
	if c.Targets == 0 {
		return "none"
	}
	return plural(c.Targets, "target") + ", " + plural(c.Contexts, "context")
}

func refList(rs []query.Ref) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ", ")
}

// kindLabel names the kind of an effective policy, or the kinds that share
// it (a value space), least specific first.
func kindLabel(k query.KindEffect) string {
	if k.ValueSpace == nil {
		return k.Kind
	}
	names := make([]string, len(k.ValueSpace.Kinds))
	for i, gk := range k.ValueSpace.Kinds {
		names[i] = gk.Kind
	}
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
