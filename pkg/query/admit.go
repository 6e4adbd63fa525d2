package query

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/attach"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/outcome"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Admission operations, as admission.k8s.io names them.
const (
	OpCreate = "CREATE"
	OpUpdate = "UPDATE"
	OpDelete = "DELETE"
)

// Change is a policy write: Object the new object (nil on delete), Old the stored one.
type Change struct {
	Operation string
	Object    *unstructured.Unstructured
	Old       *unstructured.Unstructured
}

// AdmitOptions tune Admit.
type AdmitOptions struct {
	// Limit is the most status.ancestors a policy of a kind may hold; nil skips the check.
	Limit    func(*policykind.Kind) int
	MaxNames int // bounds the names in one warning; the rest are counted.
}

// Admission is what a policy write would do, said before it is done: the
// warnings `kubectl apply` prints (GEP-713 "Discoverability") and the
// findings `strata check` would report after it.
type Admission struct {
	Policy PolicyRef `json:"policy"` // the policy written; Kind is zero when not of a known policy kind.
	// Warnings: findings, then reach, then what the write takes or gives.
	Warnings []string  `json:"warnings,omitempty"`
	Findings []Finding `json:"findings,omitempty"` // of the policy after the write (none on delete).
	Impact   *Impact   `json:"impact,omitempty"`   // every effective field the write changes.
}

// Admit answers for one write, recomputing only the write's policy kind.
func Admit(before *engine.Result, ch Change, o AdmitOptions) (*Admission, error) {
	if o.MaxNames <= 0 {
		o.MaxNames = 3
	}
	u := ch.Object
	if ch.Operation == OpDelete || u == nil {
		u = ch.Old
	}
	if u == nil {
		return nil, fmt.Errorf("admission %s: no object", ch.Operation)
	}
	if ch.Operation != OpDelete && ch.Object == nil {
		return nil, fmt.Errorf("admission %s: no object", ch.Operation)
	}
	gvk := u.GroupVersionKind()
	k := before.KindOf(gvk.Group, gvk.Kind)
	if k == nil {
		return &Admission{}, nil
	}
	ref := PolicyRef{Group: k.Group, Kind: k.Kind, Namespace: u.GetNamespace(), Name: u.GetName()}
	var old *policykind.Policy
	for _, p := range before.Policies {
		if p.Kind.Key() == k.Key() && p.Namespace == ref.Namespace && p.Name == ref.Name {
			old = p
			break
		}
	}
	change := ChangeReplace
	switch {
	case ch.Operation == OpDelete:
		if old == nil {
			return &Admission{Policy: ref}, nil
		}
		change, u = ChangeDelete, nil
	case old == nil:
		change, u = ChangeCreate, ch.Object
	default:
		u = ch.Object
	}
	after, now, in, err := changed(before, k, old, u)
	if err != nil {
		return nil, err
	}
	im := compare(before, after, ref, change, in)
	a := &Admission{Policy: ref, Impact: im}
	if now != nil {
		kr := after.Of(k.Key())
		// The policy's status, exact from its kind's scoped result.
		att := *kr.Attachments
		att.ByPolicy = map[*policykind.Policy][]*attach.Attachment{now: kr.Attachments.ByPolicy[now]}
		att.Rejections = nil
		for _, r := range kr.Attachments.Rejections {
			if r.Policy == now {
				att.Rejections = append(att.Rejections, r)
			}
		}
		st := &outcome.Compute(after.Graph, []*policykind.Policy{now}, outcome.Input{Attachments: &att, Effective: kr.Effective}).Policies[0]
		c, namespaces := reach(after, now)
		a.Findings = findings(now, st, c.reached > 0)
		for _, f := range a.Findings {
			a.Warnings = append(a.Warnings, fmt.Sprintf("%s: %s", findingWords[f.Class], f.Message))
		}
		if n := len(st.Ancestors); o.Limit != nil && n > o.Limit(k) {
			a.Warnings = append(a.Warnings, fmt.Sprintf("has %s: status.ancestors has room for %d, so %d will not be listed (those with a problem are listed first)", plural(n, "ancestor"), o.Limit(k), n-o.Limit(k)))
		}
		if len(a.Findings) == 0 {
			a.Warnings = append(a.Warnings, fmt.Sprintf("affects %s in %s", plural(c.Targets, "target"), plural(namespaces, "namespace")+contextsNote(c.Count)))
		}
	}
	a.Warnings = append(a.Warnings, o.takes(ref, im, change)...)
	return a, nil
}

// findingWords are the warning prefixes of finding classes.
var findingWords = map[string]string{
	FindingInvalid:        "invalid",
	FindingConflicted:     "conflicted",
	FindingTargetNotFound: "targets nothing",
	FindingOverridden:     "overridden everywhere",
	FindingUnused:         "affects nothing",
}

func contextsNote(c Count) string {
	if c.Contexts <= c.Targets {
		return ""
	}
	return " (" + plural(c.Contexts, "context") + ")"
}

// reached is where a policy sets a field in force, and the contexts whose stack holds it.
type reached struct {
	Count
	reached int
}

// reach counts where p is in its kind's result, and the namespaces of the targets it affects.
func reach(res *engine.Result, p *policykind.Policy) (reached, int) {
	var c reached
	namespaces := map[string]bool{}
	kr := res.Of(p.Kind.Key())
	if kr == nil {
		return c, 0
	}
	for _, t := range kr.Effective.Targets {
		hit := false
		for _, ctx := range t.Contexts {
			if slices.ContainsFunc(ctx.Entries, func(e *effective.Entry) bool { return e.Policy() == p }) {
				c.reached++
			}
			if ctx.Contributes(p) {
				c.Contexts++
				hit = true
			}
		}
		if hit {
			c.Targets++
			namespaces[res.Graph.Node(t.Node).Ref.Namespace] = true
		}
	}
	return c, len(namespaces)
}

// changed is the run after a write: old the stored policy (nil on create), u the new (nil on delete).
func changed(before *engine.Result, k *policykind.Kind, old *policykind.Policy, u *unstructured.Unstructured) (after *engine.Result, now *policykind.Policy, in nodeSet, err error) {
	var objs []*unstructured.Unstructured
	for _, q := range before.Policies {
		if q.Kind.Key() == k.Key() && q != old {
			objs = append(objs, q.Object)
		}
	}
	if u != nil {
		objs = append(objs, u)
	}
	var from []topology.NodeID
	if old != nil {
		for _, a := range before.Of(k.Key()).Attachments.ByPolicy[old] {
			from = append(from, a.Node)
		}
	}
	scope := func(res *engine.Result) []topology.NodeID {
		nodes := slices.Clone(from)
		if u != nil {
			for _, p := range res.Policies {
				if p.Kind.Key() == k.Key() && p.Namespace == u.GetNamespace() && p.Name == u.GetName() {
					now = p
				}
			}
			if now != nil {
				for _, a := range attach.Resolve(res.Graph, []*policykind.Policy{now}).ByPolicy[now] {
					nodes = append(nodes, a.Node)
				}
			}
		}
		in = below(res.Graph, nodes)
		return in.scope()
	}
	after, err = before.RecomputeScoped(objs, map[schema.GroupKind]bool{k.Key(): true}, scope)
	return after, now, in, err
}

// below is the nodes given and everything below them; a Namespace stands for its nodes.
func below(g *topology.Graph, nodes []topology.NodeID) nodeSet {
	in := make(nodeSet, len(g.Nodes))
	var stack []topology.NodeID
	push := func(n topology.NodeID) {
		if !in[n] {
			in[n] = true
			stack = append(stack, n)
		}
	}
	var namespaces map[string]bool
	for _, n := range nodes {
		push(n)
		if r := g.Node(n).Ref; r.GroupKind() == hierarchy.NamespaceKind {
			if namespaces == nil {
				namespaces = map[string]bool{}
			}
			namespaces[r.Name] = true
		}
	}
	if namespaces != nil {
		for i := range g.Nodes {
			if namespaces[g.Nodes[i].Ref.Namespace] {
				push(topology.NodeID(i))
			}
		}
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, s := range g.Node(n).Sections {
			push(s.Node)
		}
		for _, c := range g.Node(n).Children {
			push(c)
		}
	}
	return in
}

// nodeSet is a set of a graph's nodes, a flag by NodeID.
type nodeSet []bool

// has reports whether n is in the set; an id beyond the graph the set was made for is not.
func (s nodeSet) has(n topology.NodeID) bool { return n >= 0 && int(n) < len(s) && s[n] }

// sorted lists the set's nodes in order.
func (s nodeSet) sorted() []topology.NodeID {
	var out []topology.NodeID
	for n, in := range s {
		if in {
			out = append(out, topology.NodeID(n))
		}
	}
	return out
}

// scope is the set as an engine.RunScoped scope; topology.None alone when empty.
func (s nodeSet) scope() []topology.NodeID {
	out := s.sorted()
	if len(out) == 0 {
		out = append(out, topology.None)
	}
	return out
}

// takes says what the write takes from other policies and what it hands back or leaves unset.
func (o AdmitOptions) takes(self PolicyRef, im *Impact, change string) []string {
	me, meKind := self.ID(), self.Kind+" "+self.ID()
	isMe := func(s string) bool { return s == me || s == meKind }
	type tally struct {
		fields   []string
		contexts int
	}
	overrides := map[string]*tally{} // by the policy whose fields it takes
	var order []string
	removed := map[string]bool{} // targets where a field of it goes away
	var removedOrder []string
	for _, t := range im.Targets {
		tk := t.Target.Kind + " " + id(t.Target.Namespace, t.Target.Name)
		for _, c := range t.Contexts {
			seen := map[string]bool{}
			for _, f := range c.Fields {
				if isMe(f.AfterSetBy) && f.BeforeSetBy != "" && !isMe(f.BeforeSetBy) {
					tl := overrides[f.BeforeSetBy]
					if tl == nil {
						tl = &tally{}
						overrides[f.BeforeSetBy] = tl
						order = append(order, f.BeforeSetBy)
					}
					if !slices.Contains(tl.fields, f.Field) {
						tl.fields = append(tl.fields, f.Field)
					}
					if !seen[f.BeforeSetBy] {
						seen[f.BeforeSetBy] = true
						tl.contexts++
					}
				}
				if isMe(f.BeforeSetBy) && !isMe(f.AfterSetBy) && !removed[tk] {
					removed[tk] = true
					removedOrder = append(removedOrder, tk)
				}
			}
		}
	}
	var out []string
	slices.Sort(order)
	for _, p := range order {
		tl := overrides[p]
		slices.Sort(tl.fields)
		out = append(out, fmt.Sprintf("overrides %s of %s in %s", o.names(tl.fields, "field"), p, plural(tl.contexts, "context")))
	}
	if len(removedOrder) > 0 {
		verb := "no longer sets fields it set on"
		if change == ChangeDelete {
			verb = "removes the policy in force on"
		}
		out = append(out, fmt.Sprintf("%s %s: %s", verb, plural(len(removedOrder), "target"), o.names(removedOrder, "")))
	}
	return out
}

// names lists items up to MaxNames and counts the rest.
func (o AdmitOptions) names(items []string, noun string) string {
	var b strings.Builder
	if noun != "" && len(items) > 1 {
		b.WriteString(noun + "s ")
	} else if noun != "" {
		b.WriteString(noun + " ")
	}
	n := min(len(items), o.MaxNames)
	b.WriteString(strings.Join(items[:n], ", "))
	if len(items) > n {
		fmt.Fprintf(&b, " and %d more", len(items)-n)
	}
	return b.String()
}

// plural is n and the noun, plural unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
