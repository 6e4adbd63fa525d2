package effectivepolicy

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// TargetSource marks a field whose value is the target object's own.
const TargetSource = "(target)"

// Build makes one EffectivePolicy per effective target of a run, over all
// policy kinds, sorted by target.
func Build(r *engine.Result) []*EffectivePolicy {
	g := r.Graph
	byNode := map[topology.NodeID]*EffectivePolicy{}
	var order []topology.NodeID
	for i, kr := range r.Kinds {
		if r.SharedWith(i) != i {
			continue // the kinds of a value space share one result
		}
		res := kr.Effective
		for _, t := range res.Targets {
			ep := byNode[t.Node]
			if ep == nil {
				ep = newFor(g.Node(t.Node).Ref)
				byNode[t.Node] = ep
				order = append(order, t.Node)
			}
			kp := KindPolicies{Group: res.Kind.Group, Kind: res.Kind.Kind, ControllerName: res.Kind.ControllerName}
			for _, ctx := range t.Contexts {
				kp.Contexts = append(kp.Contexts, context(g, ctx))
			}
			slices.SortFunc(kp.Contexts, func(a, b Context) int { return strings.Compare(pathKey(a.Path), pathKey(b.Path)) })
			ep.Policies = append(ep.Policies, kp)
		}
	}
	slices.SortFunc(order, func(a, b topology.NodeID) int { return strings.Compare(g.Node(a).Ref.Key(), g.Node(b).Ref.Key()) })
	out := make([]*EffectivePolicy, len(order))
	for i, n := range order {
		out[i] = byNode[n]
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
	c := Context{ResultantPolicy: object(ctx.Result.Values), FieldSources: map[string]string{}}
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

func standing(ctx *effective.Context, p *policykind.Policy) string {
	st, _, _ := ctx.Standing(p)
	return string(st)
}

func sourceName(p *policykind.Policy) string {
	if p == nil {
		return TargetSource
	}
	return p.ID()
}

func pathKey(path []Ref) string {
	var b strings.Builder
	for _, r := range path {
		b.WriteString(r.Key())
		b.WriteByte('>')
	}
	return b.String()
}
