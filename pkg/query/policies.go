package query

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/outcome"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Filter selects policies to list.
type Filter struct {
	// Namespace lists the policies of one namespace (and cluster-scoped ones) unless AllNamespaces.
	Namespace     string
	AllNamespaces bool
	Kind          *policykind.Kind // Kind and Names, if set, keep only the policies of that kind and these names.
	Names         []string
	Select        Selector // chooses policies by label and field (-l, --field-selector).
}

// Kept are the policies of res the filter keeps, in engine order.
func (f Filter) Kept(res *engine.Result) []*policykind.Policy {
	var kept []*policykind.Policy
	for _, p := range res.Policies {
		if f.Keeps(p) {
			kept = append(kept, p)
		}
	}
	return kept
}

func (f Filter) Keeps(p *policykind.Policy) bool {
	if f.Kind != nil && p.Kind.Key() != f.Kind.Key() || len(f.Names) > 0 && !slices.Contains(f.Names, p.Name) {
		return false
	}
	if !f.AllNamespaces && p.Namespace != "" && p.Namespace != f.Namespace {
		return false
	}
	return f.Select.Matches(policyLabels(p), p.Namespace, p.Name)
}

// Policies lists every policy the filter keeps, with status and reach.
func Policies(res *engine.Result, f Filter) *PolicyList {
	l := &PolicyList{TypeMeta: TypeMeta{APIVersion: APIVersion, Kind: KindPolicyList}, Items: []PolicySummary{}}
	kept := f.Kept(res)
	sums, err := Summaries(res, kept)
	if err != nil {
		// A scoped run StatusScope did not make: unanswerable statuses are left out.
		sums = summariesWith(res, kept, nil)
	}
	for _, p := range kept {
		l.Items = append(l.Items, sums[p])
	}
	return l
}

// affected counts the targets and contexts where the policies set a field in force.
func affected(res *engine.Result, kinds map[schema.GroupKind]bool) map[*policykind.Policy]Count {
	type counted struct {
		Count
		last int
	}
	out := map[*policykind.Policy]Count{}
	for i, kr := range res.Kinds {
		if res.SharedWith(i) != i {
			continue // a value space's result is counted at its first kind
		}
		mine := map[*policykind.Policy]*counted{}
		for ti, t := range kr.Effective.Targets {
			for _, ctx := range t.Contexts {
				for p := range ctx.Policies {
					if !kinds[p.Kind.Key()] || !ctx.Contributes(p) {
						continue
					}
					c := mine[p]
					if c == nil {
						c = &counted{}
						mine[p] = c
					}
					c.Contexts++
					if c.last != ti+1 {
						c.last = ti + 1
						c.Targets++
					}
				}
			}
		}
		for p, c := range mine {
			sum := out[p]
			sum.Contexts += c.Contexts
			sum.Targets += c.Targets
			out[p] = sum
		}
	}
	return out
}

func statusByPolicy(res *engine.Result) map[*policykind.Policy]*outcome.PolicyStatus {
	out := make(map[*policykind.Policy]*outcome.PolicyStatus, len(res.Outcome.Policies))
	for i := range res.Outcome.Policies {
		out[res.Outcome.Policies[i].Policy] = &res.Outcome.Policies[i]
	}
	return out
}

func summarize(res *engine.Result, p *policykind.Policy, st *outcome.PolicyStatus, c Count) PolicySummary {
	s := PolicySummary{PolicyRef: PolicyRefOf(p), Class: string(p.Kind.Class), Managed: p.Kind.Managed, Targets: []string{}, Affects: c}
	if !p.Created.IsZero() {
		s.Created = p.Created.UTC().Format(time.RFC3339)
	}
	if len(p.Kind.ReferencedBy) > 0 {
		if kr := res.Of(p.Kind.Key()); kr != nil && kr.Kind == p.Kind {
			for _, a := range kr.Attachments.ByPolicy[p] {
				if a.Referral {
					s.Targets = append(s.Targets, res.Graph.Node(a.Node).Ref.String()+" (referenced)")
				}
			}
		}
	}
	for _, t := range p.TargetRefs {
		s.Targets = append(s.Targets, targetString(p, t))
	}
	if st != nil {
		s.Status = rollUp(st.Ancestors, p.Kind.Vocabulary())
	}
	return s
}

// targetString writes a targetRef as a person reads it.
func targetString(p *policykind.Policy, t policykind.TargetRef) string {
	s := t.Kind + " "
	if t.Namespace != "" && t.Namespace != p.Namespace {
		s += t.Namespace + "/"
	}
	if t.Selector != nil {
		s += "selector " + metav1.FormatLabelSelector(t.Selector)
	} else {
		s += t.Name
	}
	if t.Section != "" {
		s += "#" + t.Section
	}
	return s
}

// rollUp summarizes status.ancestors (docs/status.md) in the words of the kind's vocabulary v.
func rollUp(ancestors []outcome.Ancestor, v policykind.Vocabulary) StatusSummary {
	var s StatusSummary
	accepted, enforced, overridden := 0, 0, 0
	reasons := map[string]bool{}
	for _, a := range ancestors {
		for _, c := range a.Conditions {
			switch {
			case c.Type == outcome.Accepted && c.Status == metav1.ConditionTrue:
				accepted++
			case c.Type == outcome.Accepted:
				reasons[c.Reason] = true
			}
		}
		switch st, _ := outcome.StandingOf(a.Conditions); st {
		case effective.Enforced:
			enforced++
		case effective.Overridden:
			overridden++
		}
	}
	s.Reasons = slices.Sorted(maps.Keys(reasons))
	switch {
	case accepted == 0:
		s.Accepted = "False"
		return s
	case accepted == len(ancestors):
		s.Accepted = "True"
	default:
		s.Accepted = "Partial"
	}
	switch accepted {
	case enforced:
		s.Enforcement = outcome.Term(v, effective.Enforced)
	case overridden:
		s.Enforcement = outcome.Term(v, effective.Overridden)
	default:
		s.Enforcement = outcome.Term(v, effective.PartiallyEnforced)
	}
	return s
}

// DescribePolicy describes one policy: spec, attachments, status and reach.
func DescribePolicy(res *engine.Result, p *policykind.Policy) *PolicyDescription {
	return PolicyDescriber(res)(p)
}

// PolicyDescriber is DescribePolicy for many policies of one run, on one goroutine.
func PolicyDescriber(res *engine.Result) func(p *policykind.Policy) *PolicyDescription {
	return PolicyDescribers(res)()
}

// PolicyDescribers makes describers of one run, one per goroutine.
func PolicyDescribers(res *engine.Result) func() func(p *policykind.Policy) *PolicyDescription {
	t := &runTables{res: res, affects: map[schema.GroupKind]map[*policykind.Policy]Count{}, stacking: map[schema.GroupKind]map[*policykind.Policy][]stacked{}}
	return func() func(p *policykind.Policy) *PolicyDescription {
		return (&policyDescriber{q: newQuery(res), t: t}).describe
	}
}

type policyDescriber struct {
	q *query
	t *runTables
}

// runTables is what descriptions of a run's policies read of the whole run, once.
type runTables struct {
	res      *engine.Result
	mu       sync.Mutex
	status   map[*policykind.Policy]*outcome.PolicyStatus
	affects  map[schema.GroupKind]map[*policykind.Policy]Count
	stacking map[schema.GroupKind]map[*policykind.Policy][]stacked
}

// of returns the run's status by policy and, for kind gk, what each policy affects and stacks in.
func (t *runTables) of(gk schema.GroupKind, kr *engine.KindResult) (map[*policykind.Policy]*outcome.PolicyStatus, map[*policykind.Policy]Count, map[*policykind.Policy][]stacked) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.status == nil {
		t.status = statusByPolicy(t.res)
	}
	affects, ok := t.affects[gk]
	if !ok {
		affects = affected(t.res, map[schema.GroupKind]bool{gk: true})
		t.affects[gk] = affects
	}
	stacks, ok := t.stacking[gk]
	if !ok && kr != nil {
		stacks = stackingOf(kr)
		t.stacking[gk] = stacks
	}
	return t.status, affects, stacks
}

// stacked is a context whose stack holds a policy, and its target.
type stacked struct {
	target *effective.Target
	ctx    *effective.Context
}

// stackingOf lists, per policy of kr, the contexts whose stack holds it.
func stackingOf(kr *engine.KindResult) map[*policykind.Policy][]stacked {
	out := map[*policykind.Policy][]stacked{}
	for _, t := range kr.Effective.Targets {
		for _, ctx := range t.Contexts {
			for p := range ctx.Policies {
				out[p] = append(out[p], stacked{t, ctx})
			}
		}
	}
	return out
}

func (pd *policyDescriber) describe(p *policykind.Policy) *PolicyDescription {
	q, res := pd.q, pd.q.res
	kr := res.Of(p.Kind.Key())
	status, affects, stacks := pd.t.of(p.Kind.Key(), kr)
	st := status[p]
	d := &PolicyDescription{
		TypeMeta:   TypeMeta{APIVersion: APIVersion, Kind: KindPolicyDescription},
		Policy:     summarize(res, p, st, affects[p]),
		Blocks:     []Block{},
		AttachedTo: []Ref{},
		Ancestors:  []AncestorStatus{},
		Reaches:    []Reach{},
	}
	for _, b := range p.Blocks {
		d.Blocks = append(d.Blocks, Block{Field: b.Field, Strategy: b.Strategy.String(), Values: b.Values})
	}
	if kr == nil {
		return d
	}
	for _, a := range kr.Attachments.ByPolicy[p] {
		d.AttachedTo = append(d.AttachedTo, q.ref(a.Node))
	}
	sortRefs(d.AttachedTo)
	for _, r := range kr.Attachments.Rejections {
		if r.Policy == p {
			d.Rejected = append(d.Rejected, Rejection{Policy: PolicyRefOf(p), Field: r.Field, Reason: r.Reason, Message: r.Message})
		}
	}
	if st != nil {
		for _, a := range st.Ancestors {
			as := AncestorStatus{Ancestor: a.Ref.API()}
			for _, c := range a.Conditions {
				as.Conditions = append(as.Conditions, Condition{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message})
			}
			d.Ancestors = append(d.Ancestors, as)
		}
	}
	var r *reaching
	for _, sc := range stacks[p] {
		if r == nil || r.node != sc.target.Node {
			if r != nil {
				d.Reaches = append(d.Reaches, r.Reach)
			}
			r = &reaching{Reach: Reach{Target: q.ref(sc.target.Node), Results: map[string]int{}}, node: sc.target.Node}
		}
		s, _, _ := sc.ctx.Standing(p)
		r.Results[outcome.Term(p.Kind.Vocabulary(), s)]++
	}
	if r != nil {
		d.Reaches = append(d.Reaches, r.Reach)
	}
	sortReaches(d.Reaches)
	return d
}

// sortReaches sorts reaches by their targets' keys, each key made once.
func sortReaches(rs []Reach) {
	keys := make([]string, len(rs))
	order := make([]int, len(rs))
	for i := range rs {
		keys[i], order[i] = rs[i].Target.Key(), i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(keys[a], keys[b]) })
	sorted := make([]Reach, len(rs))
	for i, j := range order {
		sorted[i] = rs[j]
	}
	copy(rs, sorted)
}

// reaching is a Reach being counted, and its target's node.
type reaching struct {
	Reach
	node topology.NodeID
}
