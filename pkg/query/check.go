package query

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/outcome"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Classes of findings, in listing order (GEP-713's Accepted=False reasons first).
const (
	FindingInvalid        = "invalid"
	FindingConflicted     = "conflicted"
	FindingTargetNotFound = "targetnotfound"
	FindingOverridden     = "overridden"
	FindingUnused         = "unused"
)

// FindingClasses lists every class, in order.
var FindingClasses = []string{FindingInvalid, FindingConflicted, FindingTargetNotFound, FindingOverridden, FindingUnused}

// Finding is one problem of one policy, as the status Strata would write says it.
type Finding struct {
	Policy  PolicyRef `json:"policy"`
	Class   string    `json:"class"`
	Message string    `json:"message"` // the condition's message, prefixed by its ancestor when there are several.
}

// CheckOnly is Check for the policies f keeps (`strata check -n NS -l SELECTOR`).
func CheckOnly(res *engine.Result, f Filter) ([]Finding, error) {
	kept := f.Kept(res)
	statuses, err := Statuses(res, kept)
	if err != nil {
		return nil, err
	}
	reached := reachedPolicies(res)
	var out []Finding
	for _, p := range kept {
		out = append(out, findings(p, statuses[p], reached[p])...)
	}
	return out, nil
}

// CheckRequest is what `strata check` asks: the policies Filter keeps, and the classes that fail.
type CheckRequest struct {
	Filter Filter
	FailOn []string // the finding classes (FindingClasses) that fail.
}

// Scope is the nodes a run must compute to answer r; nil for every target.
func (r CheckRequest) Scope() func(*engine.Result) []topology.NodeID {
	if r.Filter.AllNamespaces && r.Filter.Select.Empty() {
		return nil
	}
	return func(res *engine.Result) []topology.NodeID { return StatusScope(res, r.Filter.Kept(res)) }
}

// CheckResult is the answer to a CheckRequest.
type CheckResult struct {
	Findings []Finding // CheckOnly's for the request's Filter.
	Failing  []string  // the classes of FailOn some finding is of, in the order of their first finding.
	Failed   int       // the number of findings of a FailOn class.
}

// RunCheck answers r from res, a run scoped to r.Scope().
func RunCheck(res *engine.Result, r CheckRequest) (*CheckResult, error) {
	found, err := CheckOnly(res, r.Filter)
	if err != nil {
		return nil, err
	}
	out := &CheckResult{Findings: found}
	for _, fd := range found {
		if slices.Contains(r.FailOn, fd.Class) {
			out.Failed++
			if !slices.Contains(out.Failing, fd.Class) {
				out.Failing = append(out.Failing, fd.Class)
			}
		}
	}
	return out, nil
}

// reachedPolicies are the policies some context's stack holds.
func reachedPolicies(res *engine.Result) map[*policykind.Policy]bool {
	out := map[*policykind.Policy]bool{}
	stacks := map[*effective.Entry]bool{} // by each stack's first entry
	for i, kr := range res.Kinds {
		if res.SharedWith(i) != i {
			continue // a value space's contexts are read at its first kind
		}
		for _, t := range kr.Effective.Targets {
			for _, ctx := range t.Contexts {
				if len(ctx.Entries) == 0 || stacks[ctx.Entries[0]] {
					continue
				}
				stacks[ctx.Entries[0]] = true
				for _, e := range ctx.Entries {
					out[e.Policy()] = true
				}
			}
		}
	}
	return out
}

func findings(p *policykind.Policy, st *outcome.PolicyStatus, reached bool) []Finding {
	ref := PolicyRefOf(p)
	if st == nil || len(st.Ancestors) == 0 {
		return []Finding{{Policy: ref, Class: FindingUnused, Message: "has no ancestor: no targetRef names an object it can attach to"}}
	}
	several := len(st.Ancestors) > 1
	msgs := map[string][]string{}
	add := func(class string, a outcome.Ancestor, msg string) {
		if several {
			msg = a.Ref.String() + ": " + msg
		}
		if !slices.Contains(msgs[class], msg) {
			msgs[class] = append(msgs[class], msg)
		}
	}
	accepted, overridden := 0, 0
	for _, a := range st.Ancestors {
		for _, c := range a.Conditions {
			switch {
			case c.Type == outcome.Accepted && c.Status == metav1.ConditionTrue:
				accepted++
			case c.Type == outcome.Accepted:
				add(rejectClass(c.Reason), a, c.Message)
			}
		}
		// Overridden in either vocabulary (Overridden=True, Programmed=False Overridden).
		if st, _ := outcome.StandingOf(a.Conditions); st == effective.Overridden {
			overridden++
			for _, c := range a.Conditions {
				if c.Reason == outcome.ReasonOverridden {
					add(FindingOverridden, a, c.Message)
				}
			}
		}
	}
	if accepted == 0 || overridden < accepted {
		delete(msgs, FindingOverridden) // in force through some ancestor
	}
	if accepted > 0 && !reached {
		msgs[FindingUnused] = []string{"accepted, but no " + effectiveKinds(p.Kind) + " is reached through its targets yet: it affects nothing"}
	}
	var out []Finding
	for _, class := range FindingClasses {
		if m := msgs[class]; len(m) > 0 {
			out = append(out, Finding{Policy: ref, Class: class, Message: strings.Join(m, "; ")})
		}
	}
	return out
}

// rejectClass is the finding class of an Accepted=False reason.
func rejectClass(reason string) string {
	switch reason {
	case outcome.ReasonConflicted:
		return FindingConflicted
	case outcome.ReasonTargetNotFound:
		return FindingTargetNotFound
	}
	return FindingInvalid
}

func effectiveKinds(k *policykind.Kind) string {
	var names []string
	for _, gk := range k.EffectiveKinds() {
		names = append(names, gk.Kind)
	}
	if len(names) == 0 {
		return "target"
	}
	return strings.Join(names, " or ")
}
