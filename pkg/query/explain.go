package query

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/merge"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// FieldPointer reads a field as typed: a JSON pointer (RFC 6901) or a dotted path.
func FieldPointer(field string) (string, error) {
	if field == "" || field == "/" {
		return "", fmt.Errorf("--field: want a field of the policy's spec, e.g. /colors/light or colors.light")
	}
	if strings.HasPrefix(field, "/") {
		return field, nil
	}
	var parts []string
	var key strings.Builder
	for i := 0; i < len(field); i++ {
		switch c := field[i]; {
		case c == '\\' && i+1 < len(field) && (field[i+1] == '.' || field[i+1] == '\\'):
			i++
			key.WriteByte(field[i])
		case c == '.':
			parts = append(parts, merge.Escape(key.String()))
			key.Reset()
		default:
			key.WriteByte(c)
		}
	}
	parts = append(parts, merge.Escape(key.String()))
	for _, p := range parts {
		if p == "" {
			return "", fmt.Errorf("--field %q: empty key in a dotted path (write a dot inside a key as \\., or give a JSON pointer)", field)
		}
	}
	return "/" + strings.Join(parts, "/"), nil
}

// Explain gives the precedence chain of one field in every context of node n.
func Explain(res *engine.Result, n topology.NodeID, ptr string, only *policykind.Kind) (*Explanation, error) {
	q := newQuery(res)
	x := &Explanation{TypeMeta: TypeMeta{APIVersion: APIVersion, Kind: KindExplanation}, Object: q.ref(n), Field: ptr, Chains: []Chain{}}
	present := map[string]bool{}
	reached := false
	for _, sc := range q.scope(n) {
		k := res.Kinds[sc.kind].Kind
		if only != nil && k.Key() != only.Key() {
			continue
		}
		for _, t := range sc.targets {
			own := q.targetValues(k, t.node)
			for _, ctx := range t.contexts {
				reached = true
				for p := range ctx.Result.Prov {
					present[p] = true
				}
				if c, ok := q.chain(k, t.node, ctx, ptr, own); ok {
					x.Chains = append(x.Chains, c)
				}
			}
		}
	}
	if len(x.Chains) > 0 {
		return x, nil
	}
	which := "policy"
	if only != nil {
		which = only.Kind
	}
	if !reached {
		return nil, fmt.Errorf("no %s reaches %s", which, x.Object)
	}
	return nil, &FieldNotSetError{Object: x.Object.String(), Field: ptr, Which: which, Fields: slices.Sorted(maps.Keys(present))}
}

// chain builds the candidates of one context for ptr; false when none matters.
func (q *query) chain(k *policykind.Kind, target topology.NodeID, ctx *effective.Context, ptr string, own map[string]any) (Chain, bool) {
	c := Chain{PolicyKind: groupKindOf(k), Target: q.ref(target), Path: q.path(ctx.Path), Consumer: ctx.Consumer(q.g), Candidates: []Candidate{}}
	value, inForce := merge.Get(ctx.Result.Values, ptr)
	winners := map[merge.Source]bool{}
	for p, src := range ctx.Result.Prov {
		if related(p, ptr) {
			winners[src] = true
		}
	}
	if inForce {
		c.Value = value
	}
	for src := range winners {
		c.SetBy = append(c.SetBy, sourceName(effective.PolicyOf(src)))
	}
	sort.Strings(c.SetBy)
	by := strings.Join(c.SetBy, ", ")

	// A policy's overrides win over its own defaults (docs/merging.md).
	winning := map[*policykind.Policy]*effective.Entry{}
	for _, e := range ctx.Entries {
		if _, sets := merge.Get(e.Block.Values, ptr); !sets || !winners[e.Policy()] {
			continue
		}
		if w, ok := winning[e.Policy()]; !ok || w.Block.Strategy.Base != policykind.Overrides {
			winning[e.Policy()] = e
		}
	}
	found := inForce
	for _, e := range ctx.Entries {
		p := e.Policy()
		at := q.ref(e.Attachment.Node)
		cd := Candidate{Source: p.ID(), AttachedTo: &at, Level: int(e.Level), Block: e.Block.Field, Strategy: e.Block.Strategy.String(), Outcome: NotSet}
		if v, sets := merge.Get(e.Block.Values, ptr); sets {
			found = true
			cd.Sets, cd.Value = true, v
			switch w, conflicted := ctx.Conflicted[p]; {
			case conflicted:
				cd.Outcome, cd.Note = Conflicted, "rejected by the None strategy: "+w.ID()+" wins"
			case winning[p] == e:
				cd.Outcome, cd.Note = Wins, winNote(e.Block.Strategy.Base)
			case by != "":
				cd.Outcome, cd.Note = Beaten, "beaten by "+by
			default:
				cd.Outcome, cd.Note = Beaten, "not in force: an atomic merge later in the stack replaced the whole spec"
			}
		} else if w, conflicted := ctx.Conflicted[p]; conflicted {
			cd.Note = "rejected by the None strategy: " + w.ID() + " wins"
		}
		c.Candidates = append(c.Candidates, cd)
	}
	{
		top := strings.SplitN(strings.TrimPrefix(ptr, "/"), "/", 2)[0]
		if path, declared := k.TargetFields[top]; declared {
			cd := Candidate{Source: TargetSource, Level: int(q.g.Node(target).Level), Block: path, Outcome: NotSet}
			if v, sets := merge.Get(own, ptr); sets {
				found = true
				cd.Sets, cd.Value = true, v
				switch {
				case winners[nil]:
					cd.Outcome, cd.Note = Wins, "the target's own value: the most specific default"
				case by != "":
					cd.Outcome, cd.Note = Beaten, "beaten by "+by+" (an override)"
				default:
					cd.Outcome, cd.Note = Beaten, "not in force: an override removed it"
				}
			}
			c.Candidates = append(c.Candidates, cd)
		}
	}
	return c, found
}

func winNote(b policykind.Base) string {
	switch b {
	case policykind.Overrides:
		return "in force: an override, which no more specific policy can change"
	case policykind.None:
		return "in force: the policy in effect (None strategy)"
	}
	return "in force: the most specific default that sets it"
}

// ExplainRequest is explain's question: one field of one object's
// effective policies, of every policy kind or of one.
type ExplainRequest struct {
	Node  topology.NodeID
	Arg   string // the object as typed, for errors
	Field string // a JSON pointer (FieldPointer)
	Kind  string // --kind as typed; "" for every kind
	// KindAlias, when set, turns a kind's name as typed into one
	// ResolvePolicyKind knows (a CRD's short name).
	KindAlias func(string) string
}

// RunExplain answers r on res and, for the kinds only the published
// records tell of, from p (nil when none). A field set nowhere Strata
// could look, where seen says some kind could not be read, is an
// IncompleteError, not a plain "not set".
func RunExplain(res *engine.Result, r ExplainRequest, seen Seen, p *Published) (*Explanation, error) {
	var only *policykind.Kind
	onlyName := ""
	unseen := seen.Unseen(res, r.Node)
	if r.Kind != "" {
		var gk schema.GroupKind
		var err error
		if only, gk, err = PolicyKindNamed(res, r.Kind, r.KindAlias, p); err != nil {
			return nil, err
		}
		onlyName = gk.Kind
		unseen = unseen.Only([]GroupKind{{Group: gk.Group, Kind: gk.Kind}})
	}
	var x *Explanation
	var err error
	if only != nil || onlyName == "" {
		x, err = Explain(res, r.Node, r.Field, only)
	}
	if p != nil {
		if chains := p.Explain(res, r.Node, r.Field, onlyName); len(chains) > 0 {
			if x == nil || err != nil {
				n := res.Graph.Node(r.Node).Ref
				x = &Explanation{TypeMeta: TypeMeta{APIVersion: APIVersion, Kind: KindExplanation},
					Object: Ref{Group: n.Group, Kind: n.Kind, Namespace: n.Namespace, Name: n.Name, SectionName: n.Section}, Field: r.Field}
				err = nil
			}
			x.Chains = append(x.Chains, chains...)
		}
	}
	if err != nil {
		return nil, Incomplete(err, unseen)
	}
	if x == nil {
		return nil, Incomplete(fmt.Errorf("field %s is not set on %s by any %s", r.Field, r.Arg, onlyName), unseen)
	}
	return x, nil
}

// PolicyKindNamed reads a --kind NAME: a kind the engine knows, or (only
// nil) one the published records p alone tell of.
func PolicyKindNamed(res *engine.Result, name string, alias func(string) string, p *Published) (only *policykind.Kind, gk schema.GroupKind, err error) {
	typed := name
	if alias != nil {
		name = alias(name)
	}
	k, err := ResolvePolicyKind(res, name)
	if gk, ok := p.KindNamed(typed); err != nil && ok {
		return nil, gk, nil // known from the records only
	} else if err != nil {
		return nil, schema.GroupKind{}, fmt.Errorf("--kind %q: %w", typed, err)
	}
	return k, k.Key(), nil
}

// Incomplete is err, a field not set, as an IncompleteError when unseen says
// the read could not look everywhere.
func Incomplete(err error, unseen *Unseen) error {
	if err == nil || unseen == nil {
		return err
	}
	return &IncompleteError{Unseen: unseen, Err: err}
}
