package query

import (
	"cmp"
	"reflect"
	"slices"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/policykind"
)

// KindDiff is the kind of the document Diff returns.
const KindDiff = "Diff"

// How a target, context or policy differs between the two runs of a Diff.
const (
	DiffAdded   = "Added"   // only the head run has it
	DiffRemoved = "Removed" // only the base run has it
	DiffChanged = "Changed" // both runs have it, and it differs
)

// DiffResult is what changes between two runs of two inputs (issue 18).
type DiffResult struct {
	TypeMeta `json:",inline"`
	Changed  Count        `json:"changed"`  // the targets and contexts that change
	Targets  []TargetDiff `json:"targets"`  // sorted by policy kind (base's order, then head's new kinds) then locator
	Policies []PolicyDiff `json:"policies"` // whose status changes, or that appear or disappear, sorted
}

// Empty reports whether the two runs give the same effective policies and statuses.
func (d *DiffResult) Empty() bool { return len(d.Targets) == 0 && len(d.Policies) == 0 }

// TargetDiff is an effective target whose effective policy changes.
type TargetDiff struct {
	PolicyKind GroupKind     `json:"policyKind"`
	Target     Ref           `json:"target"`
	Change     string        `json:"change"` // Added, Removed or Changed.
	Contexts   []ContextDiff `json:"contexts"`
}

// ContextDiff is one context whose resultant spec changes.
type ContextDiff struct {
	Path   []Ref         `json:"path"`
	Change string        `json:"change"` // Added or Removed when the context exists on one side only, else Changed.
	Fields []FieldChange `json:"fields"` // that change, sorted; each names its source on both sides.
}

// PolicyDiff is a policy whose status changes, or that only one side has.
type PolicyDiff struct {
	PolicyRef `json:",inline"`
	Change    string `json:"change"`
	// Before and After are the rolled-up statuses; absent on the side without the policy.
	Before *StatusSummary `json:"before,omitempty"`
	After  *StatusSummary `json:"after,omitempty"`
}

// Diff compares two runs of two inputs.
func Diff(base, head *engine.Result) *DiffResult {
	d := &DiffResult{TypeMeta: TypeMeta{APIVersion: APIVersion, Kind: KindDiff}, Targets: []TargetDiff{}, Policies: []PolicyDiff{}}
	qb, qh := newQuery(base), newQuery(head)
	type kindPair struct {
		k    *policykind.Kind
		b, h *effective.Result
	}
	var pairs []*kindPair
	// Kinds sharing a value space are paired by the space's name.
	byKey := map[string]*kindPair{}
	add := func(res *engine.Result, isBase bool) {
		for i, kr := range res.Kinds {
			if res.SharedWith(i) != i {
				continue // a value space's result is compared at its first kind
			}
			key := "kind:" + kr.Kind.Key().String()
			if sp := kr.Kind.Space(); sp != "" {
				key = "space:" + sp
			}
			p := byKey[key]
			if p == nil {
				p = &kindPair{k: kr.Kind}
				byKey[key] = p
				pairs = append(pairs, p)
			}
			if isBase {
				p.b = kr.Effective
			} else {
				p.h = kr.Effective
			}
		}
	}
	add(base, true)
	add(head, false)
	for _, p := range pairs {
		d.Targets = append(d.Targets, diffKind(qb, qh, p.k, p.b, p.h)...)
	}
	for _, t := range d.Targets {
		d.Changed.Contexts += len(t.Contexts)
	}
	d.Changed.Targets = len(d.Targets)
	d.Policies = diffPolicies(base, head)
	return d
}

// Within is the part of d about namespace ns and the cluster-scoped objects (`strata diff -n NS`).
func (d *DiffResult) Within(ns string) *DiffResult {
	out := &DiffResult{TypeMeta: d.TypeMeta, Targets: []TargetDiff{}, Policies: []PolicyDiff{}}
	for _, t := range d.Targets {
		if t.Target.Namespace == "" || t.Target.Namespace == ns {
			out.Targets = append(out.Targets, t)
			out.Changed.Contexts += len(t.Contexts)
		}
	}
	out.Changed.Targets = len(out.Targets)
	for _, p := range d.Policies {
		if p.Namespace == "" || p.Namespace == ns {
			out.Policies = append(out.Policies, p)
		}
	}
	return out
}

// diffKind diffs the effective results of one kind; either may be nil.
func diffKind(qb, qh *query, k *policykind.Kind, b, h *effective.Result) []TargetDiff {
	pairs, targets := pairContexts(qb, qh, b, h)
	var out []TargetDiff
	for _, p := range pairs {
		fields := diff(sideValue(qb, qh, k, p.b, p.a), sideValue(qh, qb, k, p.a, p.b))
		if len(fields) == 0 {
			continue
		}
		q, s, change := qb, p.b, DiffChanged
		switch {
		case p.b.ctx == nil:
			q, s, change = qh, p.a, DiffAdded
		case p.a.ctx == nil:
			change = DiffRemoved
		}
		if len(out) == 0 || out[len(out)-1].Target.Key() != p.tk {
			tc := DiffChanged
			switch targets[p.tk] {
			case 1:
				tc = DiffRemoved
			case 2:
				tc = DiffAdded
			}
			out = append(out, TargetDiff{PolicyKind: groupKindOf(k), Target: q.ref(s.target.Node), Change: tc})
		}
		last := &out[len(out)-1]
		last.Contexts = append(last.Contexts, ContextDiff{Path: q.path(s.ctx.Path), Change: change, Fields: fields})
	}
	return out
}

// diffPolicies lists the policies whose rolled-up status differs.
func diffPolicies(base, head *engine.Result) []PolicyDiff {
	all := Filter{AllNamespaces: true}
	bl, hl := Policies(base, all), Policies(head, all)
	before := make(map[PolicyRef]StatusSummary, len(bl.Items))
	for _, p := range bl.Items {
		before[p.PolicyRef] = p.Status
	}
	out := []PolicyDiff{}
	seen := map[PolicyRef]bool{}
	for _, p := range hl.Items {
		seen[p.PolicyRef] = true
		after := p.Status
		b, ok := before[p.PolicyRef]
		switch {
		case !ok:
			out = append(out, PolicyDiff{PolicyRef: p.PolicyRef, Change: DiffAdded, After: &after})
		case !reflect.DeepEqual(b, after):
			out = append(out, PolicyDiff{PolicyRef: p.PolicyRef, Change: DiffChanged, Before: &b, After: &after})
		}
	}
	for _, p := range bl.Items {
		if !seen[p.PolicyRef] {
			b := p.Status
			out = append(out, PolicyDiff{PolicyRef: p.PolicyRef, Change: DiffRemoved, Before: &b})
		}
	}
	slices.SortStableFunc(out, comparePolicyRefs)
	return out
}

// comparePolicyRefs orders policies by group, kind, namespace and name.
func comparePolicyRefs(a, b PolicyDiff) int {
	return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}
