package effectivepolicy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"

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
// policy kinds, sorted by target. Each is a deep copy sharing nothing with
// the others (Indexed shares maps): a client decodes the API server's
// response into them.
func Build(r *engine.Result) []*EffectivePolicy {
	out := slices.Collect(All(r))
	for i, ep := range out {
		out[i] = ep.DeepCopy()
	}
	return out
}

// All yields what Build returns, in the same order, making each
// EffectivePolicy only when it is asked for.
func All(r *engine.Result) iter.Seq[*EffectivePolicy] {
	n, at := Indexed(r)
	return func(yield func(*EffectivePolicy) bool) {
		for i := range n {
			if !yield(at(i, nil)) {
				return
			}
		}
	}
}

// Indexed is All by position: n EffectivePolicies, at(i, s) making the
// i-th in s (nil for memory of its own). at only reads the frozen result,
// so goroutines may call it at once, each with a Scratch of its own.
// Contexts whose stacks fold to one effective.Folded share its resultant
// policy and field sources, and targets of one kind their labels: maps no
// reader may change.
func Indexed(r *engine.Result) (n int, at func(i int, s *Scratch) *EffectivePolicy) {
	g := r.Graph
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
	keys := make([]string, len(g.Nodes))
	for _, n := range order {
		keys[n] = g.Node(n).Ref.Key()
	}
	slices.SortFunc(order, func(a, b topology.NodeID) int { return strings.Compare(keys[a], keys[b]) })
	labels := map[string]map[string]string{}
	for _, n := range order {
		if k := g.Node(n).Ref.Kind; labels[k] == nil {
			labels[k] = kindLabels(k)
		}
	}
	var shared sync.Map // *effective.Folded -> *folded
	return len(order), func(i int, s *Scratch) *EffectivePolicy {
		n := order[i]
		var size scratchSize
		size.policies = len(byNode[n])
		for _, p := range byNode[n] {
			size.contexts += len(p.target.Contexts)
			for _, ctx := range p.target.Contexts {
				size.refs += len(ctx.Path)
				size.sources += len(ctx.Entries)
			}
		}
		own := s == nil
		if own {
			s = new(Scratch)
		}
		s.reserve(size)
		ep := &s.ep
		newFor(ep, g.Node(n).Ref, labels[g.Node(n).Ref.Kind])
		ep.Policies = cut(&s.policies, size.policies)
		for _, p := range byNode[n] {
			kp := KindPolicies{Group: p.res.Kind.Group, Kind: p.res.Kind.Kind, ControllerName: p.res.Kind.ControllerName}
			kp.Contexts = sortedContexts(g, p.target.Contexts, &shared, s)
			ep.Policies = append(ep.Policies, kp)
		}
		if own { // the record keeps its parts, not the keys that sorted them
			s.keyed, s.keys = nil, nil
		}
		return ep
	}
}

// Scratch is the memory of the records at (Indexed) makes, which a caller
// may reuse: an EffectivePolicy made in a Scratch is valid until the next
// one made in it. The zero Scratch is ready to use.
type Scratch struct {
	ep       EffectivePolicy
	policies []KindPolicies
	contexts []Context
	refs     []Ref
	sources  []Source
	keyed    []keyed // sortedContexts' keys, which no record keeps
	keys     []byte
}

// keyed is a context and its sort key, buf[from:to] of the keys.
type keyed struct {
	from, to int
	c        Context
}

// scratchSize is how many of each part a record takes, at most.
type scratchSize struct{ policies, contexts, refs, sources int }

// reserve frees the memory of the record made before for the next one,
// which takes at most size, so that cut never outgrows a slab.
func (s *Scratch) reserve(size scratchSize) {
	s.ep = EffectivePolicy{}
	s.policies = slab(s.policies, size.policies)
	s.contexts = slab(s.contexts, size.contexts)
	s.refs = slab(s.refs, size.refs)
	s.sources = slab(s.sources, size.sources)
}

// slab is s emptied, or a new slab when s cannot hold n (a quarter more
// for one that grows); an outgrown slab is left to its records.
func slab[T any](s []T, n int) []T {
	switch {
	case cap(s) == 0:
		return make([]T, 0, n)
	case cap(s) < n:
		return make([]T, 0, n+n/4)
	}
	return s[:0]
}

// cut takes room for n elements from a slab that has it (reserve): an
// empty slice of capacity n.
func cut[T any](slab *[]T, n int) []T {
	from := len(*slab)
	*slab = (*slab)[:from+n]
	return (*slab)[from : from : from+n]
}

// folded is what a context's record takes from its folded value alone.
type folded struct {
	resultant    *apiextensionsv1.JSON
	fieldSources map[string]string
}

// foldedOf is the record's part of f, made once per f in shared.
func foldedOf(f *effective.Folded, shared *sync.Map) *folded {
	if v, ok := shared.Load(f); ok {
		return v.(*folded)
	}
	out := &folded{resultant: object(f.Result.Values), fieldSources: make(map[string]string, len(f.Result.Prov))}
	for ptr, src := range f.Result.Prov {
		out.fieldSources[ptr] = sourceName(effective.PolicyOf(src))
	}
	v, _ := shared.LoadOrStore(f, out)
	return v.(*folded)
}

// sortedContexts are a target's contexts sorted by path, each path's key
// made once, all of them in one buffer.
func sortedContexts(g *topology.Graph, ctxs []*effective.Context, shared *sync.Map, s *Scratch) []Context {
	switch {
	case len(ctxs) == 0:
		return nil
	case len(ctxs) <= fewContexts: // keys made on the stack per comparison
		out := cut(&s.contexts, len(ctxs))
		for _, ctx := range ctxs {
			out = append(out, context(g, ctx, shared, s))
		}
		slices.SortFunc(out, func(a, b Context) int { return comparePaths(a.Path, b.Path) })
		return out
	}
	s.keyed = slab(s.keyed, len(ctxs))
	ks := s.keyed[:len(ctxs)]
	size := 0
	for _, ctx := range ctxs {
		for _, n := range ctx.Path {
			r := g.Node(n).Ref
			size += len(r.Kind) + len(r.Group) + len(r.Namespace) + len(r.Name) + len(r.Section) + 16 // separators and a role
		}
	}
	s.keys = slab(s.keys, size)
	buf := s.keys
	for i, ctx := range ctxs {
		c := context(g, ctx, shared, s)
		from := len(buf)
		buf = appendPathKey(buf, c.Path)
		ks[i] = keyed{from, len(buf), c}
	}
	s.keys = buf[:0]
	slices.SortFunc(ks, func(a, b keyed) int { return bytes.Compare(buf[a.from:a.to], buf[b.from:b.to]) })
	out := cut(&s.contexts, len(ks))
	for _, k := range ks {
		out = append(out, k.c)
	}
	return out
}

// kindLabels are the labels of the EffectivePolicy of a target of kind
// k, which `strata effective -l` selects on.
func kindLabels(k string) map[string]string { return map[string]string{TargetKindLabel: k} }

// newFor makes ep the EffectivePolicy of target r, without its policies,
// with labels, which it does not copy.
func newFor(ep *EffectivePolicy, r topology.Ref, labels map[string]string) {
	ep.Target = r.API()
	ep.APIVersion = Group + "/" + Version
	ep.Kind = Kind
	ep.Name = r.Name
	if r.Section != "" {
		ep.Name += "." + r.Section
	}
	ep.Namespace = r.Namespace
	ep.Labels = labels
}

func context(g *topology.Graph, ctx *effective.Context, shared *sync.Map, s *Scratch) Context {
	f := foldedOf(ctx.Folded, shared)
	c := Context{ResultantPolicy: f.resultant, FieldSources: f.fieldSources, Path: cut(&s.refs, len(ctx.Path)), Sources: cut(&s.sources, len(ctx.Entries))}
	for _, n := range ctx.Path {
		c.Path = append(c.Path, g.Node(n).Ref.API())
	}
	// Each policy is listed once, at its first block.
	for p := range ctx.Policies {
		c.Sources = append(c.Sources, Source{Namespace: p.Namespace, Name: p.Name, Result: standing(ctx, p)})
	}
	return c
}

// object encodes a merged spec as the JSON of a free-form CRD field, nil
// as {}. The values were decoded from JSON, so a failure is a bug.
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
// (docs/status.md "Vocabularies"), as its status says it.
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

// fewContexts is the most contexts sortedContexts sorts by keys made at
// each comparison rather than once each.
const fewContexts = 8

// comparePaths orders two paths by their keys, made on the stack.
func comparePaths(a, b []Ref) int {
	var ab, bb [512]byte
	return bytes.Compare(appendPathKey(ab[:0], a), appendPathKey(bb[:0], b))
}

// appendPathKey appends a path's sort key to b.
func appendPathKey(b []byte, path []Ref) []byte {
	for _, r := range path {
		b = r.AppendKey(b)
		b = append(b, '>')
	}
	return b
}
