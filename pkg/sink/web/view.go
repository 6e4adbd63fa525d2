package web

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/outcome"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/query"
)

// Standings a policy is coloured by, rolled up over its ancestors: a
// policy not accepted stands by its reason (GEP-713
// PolicyConditionReason), an accepted one by its enforcement.
const (
	Enforced          = outcome.Enforced
	PartiallyEnforced = outcome.PartiallyEnforced
	Overridden        = outcome.Overridden
	Conflicted        = outcome.ReasonConflicted
	Invalid           = outcome.ReasonInvalid
	TargetNotFound    = outcome.ReasonTargetNotFound
)

// World is one engine result indexed for the pages: built once, frozen
// after (it is shared by every request, as the Result is).
type World struct {
	Res *engine.Result
	// Source says where the objects come from; Live that the view
	// follows its changes.
	Source string
	Live   bool
	// NotVisible are the kinds the source was not allowed to read.
	NotVisible []string
	// summaries of every policy, by policy (query.Policies).
	summaries map[*policykind.Policy]query.PolicySummary
	// attached lists the policies attached to each node (every kind),
	// sorted by kind then namespace/name.
	attached map[topology.NodeID][]*policykind.Policy
}

// NewWorld indexes a complete engine result (engine.Run, Outcome set).
func NewWorld(res *engine.Result) *World {
	w := index(res)
	list := query.Policies(res, query.Filter{AllNamespaces: true})
	byRef := make(map[query.PolicyRef]query.PolicySummary, len(list.Items))
	for _, s := range list.Items {
		byRef[s.PolicyRef] = s
	}
	for _, p := range res.Policies {
		w.summaries[p] = byRef[query.PolicyRefOf(p)]
	}
	return w
}

// index is a World without summaries: the policies attached to each
// node, read as a scope of engine.RunScoped may (query.KindAttachments).
func index(res *engine.Result) *World {
	w := &World{Res: res, summaries: map[*policykind.Policy]query.PolicySummary{}, attached: map[topology.NodeID][]*policykind.Policy{}}
	type at struct {
		n topology.NodeID
		p *policykind.Policy
	}
	seen := map[at]bool{}
	for _, kr := range res.Kinds {
		for n, as := range query.KindAttachments(res, kr).ByNode {
			for _, a := range as {
				if !seen[at{n, a.Policy}] {
					seen[at{n, a.Policy}] = true
					w.attached[n] = append(w.attached[n], a.Policy)
				}
			}
		}
	}
	for _, ps := range w.attached {
		slices.SortFunc(ps, comparePolicies)
	}
	return w
}

func comparePolicies(a, b *policykind.Policy) int {
	return cmp.Or(strings.Compare(a.Kind.Kind, b.Kind.Kind), strings.Compare(a.ID(), b.ID()))
}

// Standing is the colour of a policy (see the constants).
func (w *World) Standing(p *policykind.Policy) string {
	st := w.summaries[p].Status
	if st.Accepted == "False" {
		for _, r := range []string{Conflicted, Invalid, TargetNotFound} {
			if slices.Contains(st.Reasons, r) {
				return r
			}
		}
		if len(st.Reasons) > 0 {
			return st.Reasons[0]
		}
		return Invalid
	}
	return st.Enforcement
}

// Summary is the policy's line of `strata get policies`.
func (w *World) Summary(p *policykind.Policy) query.PolicySummary { return w.summaries[p] }

// RefString names a node in URLs and in the API: Kind/namespace/name, or
// Kind/name for a cluster-scoped object, with #section for a section.
func RefString(r topology.Ref) string {
	s := r.Kind + "/"
	if r.Namespace != "" {
		s += r.Namespace + "/"
	}
	s += r.Name
	if r.Section != "" {
		s += "#" + r.Section
	}
	return s
}

// PolicyString names a policy as RefString names a node.
func PolicyString(p *policykind.Policy) string {
	if p.Namespace == "" {
		return p.Kind.Kind + "/" + p.Name
	}
	return p.Kind.Kind + "/" + p.Namespace + "/" + p.Name
}

// Resolve finds what a RefString (or PolicyString) names: KIND/NS/NAME
// or KIND/NAME, KIND as `strata describe` reads it (query.ResolveKind:
// any case, short names, policy kinds).
func (w *World) Resolve(s string) (query.Subject, error) {
	parts := strings.Split(s, "/")
	var kind, ns, name string
	switch len(parts) {
	case 2:
		kind, name = parts[0], parts[1]
	case 3:
		kind, ns, name = parts[0], parts[1], parts[2]
	}
	if kind == "" || name == "" {
		return query.Subject{}, fmt.Errorf("%q: want KIND/NAMESPACE/NAME or KIND/NAME", s)
	}
	k, err := query.ResolveKind(w.Res, kind)
	if err != nil {
		return query.Subject{}, err
	}
	if k.Policy != nil {
		if p := query.FindPolicy(w.Res, k.Policy, ns, name); p != nil {
			return query.Subject{Node: topology.None, Policy: p}, nil
		}
		return query.Subject{}, fmt.Errorf("%s %s not found", k.Policy.Kind, strings.TrimPrefix(ns+"/"+name, "/"))
	}
	name, section, _ := strings.Cut(name, "#")
	ref := topology.Ref{Group: k.Topology.Group, Kind: k.Topology.Kind, Name: name, Section: section}
	if hierarchy.Kinds[k.Topology].Namespaced {
		if ns == "" {
			return query.Subject{}, fmt.Errorf("%q: %s is namespaced: want %s/NAMESPACE/NAME", s, k.Topology.Kind, k.Topology.Kind)
		}
		ref.Namespace = ns
	}
	n := w.Res.Graph.Lookup(ref)
	if n == topology.None {
		return query.Subject{}, fmt.Errorf("%s not found", ref)
	}
	return query.Subject{Node: n}, nil
}
