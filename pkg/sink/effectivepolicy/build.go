package effectivepolicy

import (
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/outcome"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// TargetSource marks a field whose value is the target object's own.
const TargetSource = "(target)"

// Build makes one EffectivePolicy per effective target of a run, over all
// policy kinds, sorted by target.
func Build(r *engine.Result) []*EffectivePolicy {
	return slices.Collect(All(r))
}

// All yields what Build returns, in the same order, making each
// EffectivePolicy only when it is asked for: a caller that prints or
// publishes them one at a time holds one at a time (the `effective` of
// 100,000 listeners is half a gigabyte of YAML; issue 11, "No cliffs").
func All(r *engine.Result) iter.Seq[*EffectivePolicy] {
	n, at := Indexed(r)
	return func(yield func(*EffectivePolicy) bool) {
		for i := range n {
			if !yield(at(i)) {
				return
			}
		}
	}
}

// Indexed is All by position: n EffectivePolicies, at(i) making the i-th.
// at only reads the frozen result, so any number of goroutines may call
// it at once (a printer that renders on every core, printer.ListWriter's
// Items).
func Indexed(r *engine.Result) (n int, at func(i int) *EffectivePolicy) {
	g := r.Graph
	// Index first (which kinds' targets each node is), build later.
	type part struct {
		res    *effective.Result
		target *effective.Target
	}
	byNode := map[topology.NodeID][]part{}
	var order []topology.NodeID
	for i, kr := range r.Kinds {
		if r.SharedWith(i) != i {
			continue // the kinds of a value space share one result
		}
		res := kr.Effective
		for _, t := range res.Targets {
			if _, ok := byNode[t.Node]; !ok {
				order = append(order, t.Node)
			}
			byNode[t.Node] = append(byNode[t.Node], part{res, t})
		}
	}
	// Sorted by key, each key made once (not twice per comparison).
	keys := make([]string, len(g.Nodes))
	for _, n := range order {
		keys[n] = g.Node(n).Ref.Key()
	}
	slices.SortFunc(order, func(a, b topology.NodeID) int { return strings.Compare(keys[a], keys[b]) })
	return len(order), func(i int) *EffectivePolicy {
		n := order[i]
		ep := newFor(g.Node(n).Ref)
		for _, p := range byNode[n] {
			kp := KindPolicies{Group: p.res.Kind.Group, Kind: p.res.Kind.Kind, ControllerName: p.res.Kind.ControllerName}
			kp.Contexts = sortedContexts(g, p.target.Contexts)
			ep.Policies = append(ep.Policies, kp)
		}
		return ep
	}
}

// sortedContexts are a target's contexts sorted by path, each path's key
// made once (not once per comparison: a Service below 100,000 listeners
// has 100,000 contexts).
func sortedContexts(g *topology.Graph, ctxs []*effective.Context) []Context {
	type keyed struct {
		key string
		c   Context
	}
	switch len(ctxs) {
	case 0:
		return nil
	case 1: // most targets: nothing to sort
		return []Context{context(g, ctxs[0])}
	}
	ks := make([]keyed, len(ctxs))
	for i, ctx := range ctxs {
		c := context(g, ctx)
		ks[i] = keyed{pathKey(c.Path), c}
	}
	slices.SortFunc(ks, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	out := make([]Context, len(ks))
	for i, k := range ks {
		out[i] = k.c
	}
	return out
}

func newFor(r topology.Ref) *EffectivePolicy {
	ep := &EffectivePolicy{Target: r.API()}
	ep.APIVersion = Group + "/" + Version
	ep.Kind = Kind
	ep.Name = r.Name
	if r.Section != "" {
		ep.Name += "." + r.Section
	}
	ep.Namespace = r.Namespace
	ep.Labels = map[string]string{Group + "/target-kind": r.Kind}
	return ep
}

func context(g *topology.Graph, ctx *effective.Context) Context {
	c := Context{ResultantPolicy: object(ctx.Result.Values), FieldSources: make(map[string]string, len(ctx.Result.Prov)), Path: make([]Ref, 0, len(ctx.Path))}
	for _, n := range ctx.Path {
		c.Path = append(c.Path, g.Node(n).Ref.API())
	}
	for ptr, src := range ctx.Result.Prov {
		c.FieldSources[ptr] = sourceName(effective.PolicyOf(src))
	}
	seen := map[*policykind.Policy]bool{}
	for _, e := range ctx.Entries {
		p := e.Policy()
		if seen[p] {
			continue
		}
		seen[p] = true
		c.Sources = append(c.Sources, Source{Namespace: p.Namespace, Name: p.Name, Result: standing(ctx, p)})
	}
	return c
}

// object encodes a merged spec as the JSON of a free-form CRD field; nil
// is the empty object, so that a context without fields still says {}.
// The values were decoded from JSON (or YAML, through JSON) and merged, so
// they always encode: a failure is a bug in a merge function.
func object(values map[string]any) *apiextensionsv1.JSON {
	if values == nil {
		values = map[string]any{}
	}
	raw, err := json.Marshal(values)
	if err != nil {
		panic(fmt.Sprintf("effectivepolicy: merged values do not encode as JSON: %v", err))
	}
	return &apiextensionsv1.JSON{Raw: raw}
}

// standing is p's standing in ctx in the words of its kind's vocabulary
// (docs/status.md "Vocabularies"): what its status says, so that a reader
// of the record, who may not read the PolicyKind, sees the same words.
func standing(ctx *effective.Context, p *policykind.Policy) string {
	st, _, _ := ctx.Standing(p)
	return outcome.Term(p.Kind.Vocabulary(), st)
}

func sourceName(p *policykind.Policy) string {
	if p == nil {
		return TargetSource
	}
	return p.ID()
}

func pathKey(path []Ref) string {
	n := 0
	for _, r := range path {
		n += len(r.Kind) + len(r.Group) + len(r.Namespace) + len(r.Name) + len(r.SectionName) + len(r.Role) + 6
	}
	b := make([]byte, 0, n)
	for _, r := range path {
		b = r.AppendKey(b)
		b = append(b, '>')
	}
	return string(b)
}
