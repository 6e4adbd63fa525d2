package printer

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/query"
)

// description: the object, who affects it, then what is in force per
// policy kind, target and context.
func (h Human) description(w *errWriter, d *query.Description) {
	w.printf("%s\n", h.heading(d.Object.String()))
	if len(d.Sections) > 0 {
		w.printf("Sections:  %s\n", h.sectionLine(d.Sections))
	}
	if len(d.Parents) > 0 {
		w.printf("Parents:   %s\n", h.refLine(d.Parents))
	}
	if len(d.Children) > 0 {
		w.printf("Children:  %s\n", h.refLine(d.Children))
	}
	w.printf("\n")
	if len(d.Policies) == 0 && d.Unseen != nil {
		// Not "No policy affects": the reader could not look (query.Unseen).
		w.printf("Cannot tell which policies affect %s: %s.\n%s\n", d.Object, d.Unseen.Reason(), d.Unseen.Hint())
	} else if len(d.Policies) == 0 {
		w.printf("No policy affects %s.\n", d.Object)
	} else if !h.Full && len(d.Policies) > SummaryContexts {
		// Many policies: by kind, with the results of all of them.
		w.printf("%s\n", h.heading(fmt.Sprintf("Policies (%d), by kind:", len(d.Policies))))
		t := h.newTable("  ", "KIND", "POLICIES", "ATTACHED", "INHERITED", "BELOW", "RESULTS")
		var kinds []string
		type tally struct {
			n            int
			rel, results map[string]int
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
		t := h.newTable("  ", "KIND", "POLICY", "RELATION", "ATTACHED TO", "RESULT")
		for _, p := range d.Policies {
			res := results(p.Results)
			switch {
			case p.Withheld:
				res = "withheld by its kind"
			case res == "":
				res = "reaches no effective target"
			}
			t.add(c(p.Policy.Kind), c(p.Policy.ID()), c(p.Relation), c(h.refCell(p.AttachedTo)), colored(res, resultColor(p.Results)))
		}
		w.table(t)
	}
	if len(d.Policies) > 0 && d.Unseen != nil {
		w.printf("\nOther policies may affect %s: %s.\n%s\n", d.Object, d.Unseen.Reason(), d.Unseen.Hint())
	}
	if len(d.Rejected) > 0 {
		w.printf("\n%s\n", h.heading("Rejected targetRefs:"))
		t := h.newTable("  ", "KIND", "POLICY", "FIELD", "REASON", "MESSAGE")
		for _, r := range d.Rejected {
			t.add(c(r.Policy.Kind), c(r.Policy.ID()), c(r.Field), colored(r.Reason, red), c(r.Message))
		}
		w.table(t)
	}
	if len(d.NotWritten) > 0 {
		// What the object's status does not say (docs/status.md, "Room").
		w.printf("\n")
		for _, nw := range d.NotWritten {
			w.printf("%s\n", hierarchy.Omission{Place: nw.Place, Types: nw.Types, MaxItems: nw.MaxItems}.Text())
		}
	}
	contexts := 0
	for _, k := range d.Effective {
		for _, tg := range k.Targets {
			contexts += len(tg.Contexts)
		}
	}
	grouped := !h.Full && contexts > SummaryContexts
	if grouped && !h.Narrowed {
		h.effectSummary(w, d, contexts)
		return
	}
	folded := false
	for _, k := range d.Effective {
		for _, g := range groupEffects(k, grouped) {
			if len(g.targets) > 1 {
				folded = true // narrowed, and still too many contexts to list
				where := "on " + g.where()
				if !slices.ContainsFunc(g.targets, func(t query.Ref) bool { return t.Key() == d.Object.Key() || sameObject(t, d.Object) }) {
					where += ", through " + d.Object.String()
				}
				w.printf("\n%s\n", h.heading(fmt.Sprintf("%s %s:", kindLabel(k), where)))
				w.printf("  %s, each in %s\n", names(g.targets, 5), plural(g.contexts, "context"))
				h.contextFields(w, g.ctx)
				continue
			}
			tg := k.Targets[g.first]
			w.printf("\n%s\n", h.heading(fmt.Sprintf("%s %s:", kindLabel(k), onThrough(tg.Target, d.Object))))
			for _, ctx := range tg.Contexts {
				w.printf("  via %s\n", viaConsumer(ctx.Path, ctx.Consumer))
				h.contextFields(w, ctx)
			}
		}
	}
	if folded {
		w.printf("\n%d contexts in all, targets with the same effect grouped: --full lists each.\n", contexts)
	}
}

// effectGroup is effective targets of one kind in one namespace whose
// contexts all have the same effect.
type effectGroup struct {
	targetKind, namespace string
	targets               []query.Ref
	first                 int // index of the first target in the kind's
	contexts              int // per target
	ctx                   query.ContextEffect
}

func (g *effectGroup) where() string { return where(len(g.targets), g.targetKind, g.namespace) }

// where says which targets: "42 HTTPRoutes in baker".
func where(n int, kind, namespace string) string {
	s := plural(n, kind)
	if namespace != "" {
		s += " in " + namespace
	}
	return s
}

// onThrough is "on target", and ", through obj" when target is not obj.
func onThrough(target, obj query.Ref) string {
	s := "on " + target.String()
	if target.Key() != obj.Key() && !sameObject(target, obj) {
		s += ", through " + obj.String()
	}
	return s
}

// groupEffects folds a kind's targets with the same effect, in the order
// their first target appears, when fold is set; a target whose contexts
// differ from one another is a group of its own.
func groupEffects(k query.KindEffect, fold bool) []*effectGroup {
	out := make([]*effectGroup, 0, len(k.Targets))
	index := map[string]*effectGroup{}
	for i, tg := range k.Targets {
		key := ""
		for j, ctx := range tg.Contexts {
			if !fold || j > 0 && effectKey(ctx.Fields) != effectKey(tg.Contexts[0].Fields) {
				key = ""
				break
			}
			key = fmt.Sprint(tg.Target.Group, "\x00", tg.Target.Kind, "\x00", tg.Target.Namespace, "\x00", len(tg.Contexts), "\x00", effectKey(ctx.Fields))
		}
		if g := index[key]; key != "" && g != nil {
			g.targets = append(g.targets, tg.Target)
			continue
		}
		g := &effectGroup{targetKind: tg.Target.Kind, namespace: tg.Target.Namespace, targets: []query.Ref{tg.Target}, first: i, contexts: len(tg.Contexts)}
		if len(tg.Contexts) > 0 {
			g.ctx = tg.Contexts[0]
		}
		if key != "" {
			index[key] = g
		}
		out = append(out, g)
	}
	return out
}

// effectKey identifies a context's fields by what contextFields prints.
func effectKey(fs []query.FieldEffect) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s\x00%s\x00%s\x00%s\x01", f.Field, value(f.Value), f.SetBy, strings.Join(f.Beaten, ", "))
	}
	return b.String()
}

// contextFields is the table of one context's fields: each value with
// who set it and whom it beat.
func (h Human) contextFields(w *errWriter, ctx query.ContextEffect) {
	t := h.newTable("    ", "FIELD", "VALUE", "SET BY", "BEATEN")
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
// context by context: per kind, each field's values in force, who set
// them and whom they beat, counted in contexts.
func (h Human) effectSummary(w *errWriter, d *query.Description, contexts int) {
	for _, k := range d.Effective {
		n := 0
		type setting struct{ value, by string }
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
		t := h.newTable("  ", "FIELD", "VALUE", "SET BY", "CONTEXTS")
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
			slices.SortFunc(rows, func(a, b row) int { return cmp.Or(b.cnt-a.cnt, strings.Compare(a.st.by, b.st.by)) })
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
				lost, total := slices.Sorted(maps.Keys(beaten[f])), 0
				for _, cnt := range beaten[f] {
					total += cnt
				}
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
		t := h.newTable("  ", "FIELD", "REASON", "MESSAGE")
		for _, r := range d.Rejected {
			t.add(c(r.Field), colored(r.Reason, red), c(r.Message))
		}
		w.table(t)
	}
	if len(d.Ancestors) > 0 {
		w.printf("\n%s\n", h.heading("Status by ancestor:"))
		if !h.Full && len(d.Ancestors) > listedRows {
			h.groupedAncestors(w, d.Ancestors)
		} else {
			t := h.newTable("  ", "ANCESTOR", "CONDITION", "REASON", "MESSAGE")
			for _, a := range d.Ancestors {
				cond := standingCondition(a)
				t.add(c(a.Ancestor.String()), conditionCell(cond), c(cond.Reason), c(cond.Message))
			}
			w.table(t)
		}
	}
	w.printf("\n%s\n", h.heading(fmt.Sprintf("Reaches %s:", plural(len(d.Reaches), "effective target"))))
	switch {
	case len(d.Reaches) == 0:
	case !h.Full && len(d.Reaches) > listedRows:
		h.groupedReaches(w, d.Reaches)
	default:
		t := h.newTable("  ", "TARGET", "RESULT")
		for _, r := range d.Reaches {
			t.add(c(r.Target.String()), colored(results(r.Results), resultColor(r.Results)))
		}
		w.table(t)
	}
}

// listedRows is how many ancestors or reached targets a policy's
// description lists one by one; more are grouped (--full lists them).
const listedRows = 20

// standingCondition is the condition of an ancestor entry a description
// shows: Accepted, or the one that carries the standing (PolicyKind
// spec.status.vocabulary).
func standingCondition(a query.AncestorStatus) query.Condition {
	cond := a.Conditions[0] // Accepted
	for _, x := range a.Conditions[1:] {
		if x.Reason != "NotApplicable" {
			cond = x
		}
	}
	return cond
}

// conditionCell is TYPE=STATUS coloured by its reason.
func conditionCell(cond query.Condition) cell {
	col := outcomeColors[cond.Reason]
	if cond.Status != "True" {
		col = red
	}
	return colored(cond.Type+"="+cond.Status, col)
}

// refGroup is the items of one key, in groupRefs' order, and their refs.
type refGroup[T any] struct {
	first *T
	refs  kindCounts
}

// groupRefs groups items by key, in the order the keys first appear.
func groupRefs[T any](items []T, key func(*T) string, ref func(*T) *query.Ref) []*refGroup[T] {
	var groups []*refGroup[T]
	index := map[string]*refGroup[T]{}
	for i := range items {
		k := key(&items[i])
		g := index[k]
		if g == nil {
			g = &refGroup[T]{first: &items[i]}
			index[k] = g
			groups = append(groups, g)
		}
		g.refs.add(ref(&items[i]))
	}
	return groups
}

// groupedAncestors lists ancestors grouped by condition and reason; their
// messages (which count each one's contexts) are --full's.
func (h Human) groupedAncestors(w *errWriter, as []query.AncestorStatus) {
	groups := groupRefs(as, func(a *query.AncestorStatus) string {
		cond := standingCondition(*a)
		return cond.Type + "=" + cond.Status + "/" + cond.Reason
	}, func(a *query.AncestorStatus) *query.Ref { return &a.Ancestor })
	t := h.newTable("  ", "CONDITION", "REASON", "ANCESTORS")
	for _, g := range groups {
		cond := standingCondition(*g.first)
		t.add(conditionCell(cond), c(cond.Reason), c(g.refs.String()))
	}
	w.table(t)
	w.printf("  %d ancestors grouped: --full lists each with its message.\n", len(as))
}

// groupedReaches lists reached targets grouped by result.
func (h Human) groupedReaches(w *errWriter, rs []query.Reach) {
	groups := groupRefs(rs, func(r *query.Reach) string { return results(r.Results) },
		func(r *query.Reach) *query.Ref { return &r.Target })
	t := h.newTable("  ", "RESULT", "TARGETS")
	for _, g := range groups {
		t.add(colored(results(g.first.Results), resultColor(g.first.Results)), c(g.refs.String()))
	}
	w.table(t)
	w.printf("  %d targets grouped: --full lists each.\n", len(rs))
}

// explanation: one chain per context, candidates least specific first.
func (h Human) explanation(w *errWriter, x *query.Explanation) {
	w.printf("%s\n", h.heading(fmt.Sprintf("Field %s of %s", x.Field, x.Object)))
	for _, ch := range x.Chains {
		w.printf("\n%s\n", h.heading(fmt.Sprintf("%s %s:", ch.PolicyKind.Kind, onThrough(ch.Target, x.Object))))
		w.printf("  via %s\n", viaConsumer(ch.Path, ch.Consumer))
		if len(ch.SetBy) > 0 {
			w.printf("  value: %s (set by %s)\n", value(ch.Value), strings.Join(ch.SetBy, ", "))
		} else {
			w.printf("  value: (not in force)\n")
		}
		t := h.newTable("    ", "#", "SOURCE", "ATTACHED TO", "LEVEL", "BLOCK", "STRATEGY", "VALUE", "OUTCOME", "NOTE")
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
	t := h.newTable("", "KIND", "POLICY", "TARGETS", "CLASS", "STATUS", "AFFECTS")
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
	for _, g := range groupImpact(im) {
		if w.err != nil {
			return
		}
		h.impactGroup(w, im, g)
	}
}

// impactGroup writes one block of an impact: the group's targets and
// their fields, or a target alone and each of its contexts.
func (h Human) impactGroup(w *errWriter, im *query.Impact, g *impactGroup) {
	fields := func(fs []query.FieldChange) { w.table(fieldChanges(h, fs)) }
	if len(g.targets) > 1 {
		w.printf("\n%s\n", h.heading(fmt.Sprintf("%s on %s:", g.policyKind, g.where())))
		w.printf("  %s, each in %s\n", names(g.targets, 5), plural(g.contexts, "context"))
		fields(g.fields)
		return
	}
	tc := im.Targets[g.first]
	w.printf("\n%s\n", h.heading(fmt.Sprintf("%s on %s:", tc.PolicyKind.Kind, tc.Target)))
	for _, ctx := range tc.Contexts {
		w.printf("  via %s\n", via(ctx.Path))
		fields(ctx.Fields)
	}
}

// impactGroup is targets of one kind in one namespace on which a change
// has the same effect in each of their contexts (in a diff, all added,
// all removed or all changed).
type impactGroup struct {
	policyKind, targetKind, namespace string
	targets                           []query.Ref
	first                             int // index of the first target in the list grouped
	contexts                          int // per target
	fields                            []query.FieldChange
	note, contextNote                 string // a diff's changeNote of the targets and of their contexts
}

// changedTarget is a target of an impact or a diff, as groupChanges
// reads it.
type changedTarget struct {
	policyKind query.GroupKind
	target     query.Ref
	note       string
	contexts   []changedContext
}

type changedContext struct {
	note   string
	fields []query.FieldChange
}

func (g *impactGroup) where() string { return where(len(g.targets), g.targetKind, g.namespace) }

func groupImpact(im *query.Impact) []*impactGroup {
	ts := make([]changedTarget, len(im.Targets))
	for i, tc := range im.Targets {
		ts[i] = changedTarget{policyKind: tc.PolicyKind, target: tc.Target, contexts: make([]changedContext, len(tc.Contexts))}
		for j, ctx := range tc.Contexts {
			ts[i].contexts[j] = changedContext{fields: ctx.Fields}
		}
	}
	return groupChanges(ts)
}

// groupChanges folds targets with identical effects, in the order their
// first target appears, each target's key made once.
func groupChanges(ts []changedTarget) []*impactGroup {
	keys := make([]string, len(ts))
	for i := range len(ts) {
		keys[i] = groupKey(ts[i])
	}
	var out []*impactGroup
	index := map[string]*impactGroup{}
	for i, tc := range ts {
		key := keys[i]
		if g := index[key]; key != "" && g != nil {
			g.targets = append(g.targets, tc.target)
			continue
		}
		g := &impactGroup{policyKind: tc.policyKind.Kind, targetKind: tc.target.Kind, namespace: tc.target.Namespace, targets: []query.Ref{tc.target}, first: i, contexts: len(tc.contexts), note: tc.note}
		if len(tc.contexts) > 0 {
			g.fields, g.contextNote = tc.contexts[0].fields, tc.contexts[0].note
		}
		if key != "" {
			index[key] = g
		}
		out = append(out, g)
	}
	return out
}

// groupKey is what a target shares with the targets it is grouped with;
// "" when it has no context or its contexts change different things.
func groupKey(tc changedTarget) string {
	if len(tc.contexts) == 0 {
		return ""
	}
	first := tc.contexts[0]
	fields := fieldsKey(first.fields)
	for _, ctx := range tc.contexts[1:] {
		if ctx.note != first.note || len(ctx.fields) != len(first.fields) || fieldsKey(ctx.fields) != fields {
			return ""
		}
	}
	return fmt.Sprint(tc.policyKind, "\x00", tc.target.Group, "\x00", tc.target.Kind, "\x00", tc.target.Namespace, "\x00", tc.note, "\x00", first.note, "\x00", len(tc.contexts), "\x00", fields)
}

// fieldsKey identifies a list of field changes by what they print.
func fieldsKey(fs []query.FieldChange) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s\x00%s\x00%s\x01", f.Field, setValue(f.Before, f.BeforeSetBy), setValue(f.After, f.AfterSetBy))
	}
	return b.String()
}

// names lists the first n targets' short names and counts the rest.
func names(ts []query.Ref, n int) string {
	var parts []string
	for _, t := range ts[:min(n, len(ts))] {
		parts = append(parts, shortName(t))
	}
	s := strings.Join(parts, ", ")
	if len(ts) > n {
		s += fmt.Sprintf(" and %d more", len(ts)-n)
	}
	return s
}

// shortName is a ref without its kind and namespace.
func shortName(r query.Ref) string {
	s := r.String()[len(r.Kind)+1:]
	if r.Namespace != "" {
		s = s[len(r.Namespace)+1:]
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

// listedRefs is how many refs a description names in a line; more are
// counted by kind, with the first namedRefs names of each.
const (
	listedRefs = 10
	namedRefs  = 3
)

// refLine is a description's line of parents or children: all of them
// when they are few or h.Full, else counted per kind (refCell).
func (h Human) refLine(rs []query.Ref) string {
	if h.Full || len(rs) <= listedRefs {
		return refList(rs)
	}
	return h.refCell(rs) + " (--full lists them)"
}

// sectionLine is an object's section names, bounded as refLine's refs.
func (h Human) sectionLine(names []string) string {
	if h.Full || len(names) <= listedRefs {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%d sections: %s and %d more (--full lists them)", len(names), strings.Join(names[:namedRefs], ", "), len(names)-namedRefs)
}

// kindCounts counts refs per kind for refCell, keeping the first
// namedRefs of each kind and no other. The zero kindCounts is empty.
type kindCounts struct {
	kinds []*kindCount
	index map[[2]string]*kindCount // by kind and group
}

type kindCount struct {
	kind  string
	n     int
	named []query.Ref
}

func (k *kindCounts) add(r *query.Ref) {
	key := [2]string{r.Kind, r.Group}
	c := k.index[key]
	if c == nil {
		if k.index == nil {
			k.index = map[[2]string]*kindCount{}
		}
		c = &kindCount{kind: r.Kind}
		k.index[key] = c
		k.kinds = append(k.kinds, c)
	}
	c.n++
	if len(c.named) < namedRefs {
		c.named = append(c.named, *r)
	}
}

// String is refCell's text.
func (k *kindCounts) String() string {
	parts := make([]string, len(k.kinds))
	for i, c := range k.kinds {
		ns := make([]string, len(c.named))
		for j, r := range c.named {
			ns[j] = r.String()[len(r.Kind)+1:]
		}
		parts[i] = plural(c.n, c.kind) + ": " + strings.Join(ns, ", ")
		if c.n > namedRefs {
			parts[i] += " and " + strconv.Itoa(c.n-namedRefs) + " more"
		}
	}
	return strings.Join(parts, "; ")
}

// refCell is a table cell of refs, bounded as refLine's: more are
// counted per kind, in the order the kinds first appear, with the first
// namedRefs names of each.
func (h Human) refCell(rs []query.Ref) string {
	if h.Full || len(rs) <= listedRefs {
		return refList(rs)
	}
	var k kindCounts
	for i := range rs {
		k.add(&rs[i])
	}
	return k.String()
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
