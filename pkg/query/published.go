package query

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	stratav1 "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/merge"
	"github.com/strata-dev/strata/pkg/engine/outcome"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Seen is what a read of the cluster could see of the policies, plain data
// for the answers a user who may not read every policy kind gets from the
// EffectivePolicy records the controller publishes next to every affected
// target (docs/cli.md, "When you cannot read a policy kind"; GEP-713's
// parable).
type Seen struct {
	// Declared are the policy kinds the read knows of.
	Declared []schema.GroupKind
	// HiddenKinds are the policy kinds it could not list.
	HiddenKinds []schema.GroupKind
	// HiddenDeclarations are the kinds declaring policy kinds (CRDs,
	// PolicyKinds) it could not list: behind them kinds hide unnamed.
	HiddenDeclarations []schema.GroupKind
	// Records are the EffectivePolicy records it read; RecordsForbidden
	// says it could not list them.
	Records          []*stratav1.EffectivePolicy
	RecordsForbidden bool
}

// Hidden says whether some policy kind, or the declarations of kinds, could not be listed.
func (s Seen) Hidden() bool { return len(s.HiddenKinds) > 0 || len(s.HiddenDeclarations) > 0 }

// Unseen is what describe of node n cannot see; nil when nothing is hidden or a record reaches n.
func (s Seen) Unseen(res *engine.Result, n topology.NodeID) *Unseen {
	if !s.Hidden() || recordReaches(s.Records, res, n) {
		return nil
	}
	return &Unseen{Records: len(s.Records), RecordsForbidden: s.RecordsForbidden,
		Kinds: groupKinds(s.HiddenKinds), Declarations: groupKinds(s.HiddenDeclarations)}
}

func groupKinds(gks []schema.GroupKind) (out []GroupKind) {
	for _, gk := range gks {
		out = append(out, GroupKind{Group: gk.Group, Kind: gk.Kind})
	}
	return out
}

// recordReaches says whether one of records reaches node n, as Published.Describe reads them.
func recordReaches(records []*stratav1.EffectivePolicy, res *engine.Result, n topology.NodeID) bool {
	if len(records) == 0 {
		return false
	}
	o, below := ownBelow(res, n)
	for _, r := range records {
		if o.has(r.Target) || below[targetKey(r.Target)] {
			return true
		}
		for _, kp := range r.Policies {
			for _, c := range kp.Contexts {
				if o.first(c.Path) >= 0 {
					return true
				}
			}
		}
	}
	return false
}

// ownBelow matches node n, and holds the keys of the nodes below it.
func ownBelow(res *engine.Result, n topology.NodeID) (ownRef, map[string]bool) {
	below := map[string]bool{}
	for _, m := range Scope(res, n) {
		below[res.Graph.Node(m).Ref.Key()] = true
	}
	return ownRef(res.Graph.Node(n).Ref), below
}

// Published answers for the policy kinds a user may not read from the
// records (Seen.Records): describe, explain, get policies, impact
// --delete and simulate, less what the records do not hold (stack
// details, the policies a winner beat).
type Published struct {
	records []*stratav1.EffectivePolicy
	kinds   map[schema.GroupKind]bool // the kinds answered from the records; names their Kind, sorted.
	names   []string
}

// NewPublished keeps, of the records' kinds, those the user could not read; nil when none.
func NewPublished(s Seen) *Published {
	hidden := map[schema.GroupKind]bool{}
	for _, gk := range s.HiddenKinds {
		hidden[gk] = true
	}
	declared := map[schema.GroupKind]bool{}
	for _, gk := range s.Declared {
		declared[gk] = true
	}
	// Kinds whose CRDs or declarations were forbidden are as unreadable.
	undeclaredHidden := len(s.HiddenDeclarations) > 0
	p := &Published{records: s.Records, kinds: map[schema.GroupKind]bool{}}
	for _, r := range s.Records {
		for _, kp := range r.Policies {
			gk := schema.GroupKind{Group: kp.Group, Kind: kp.Kind}
			if hidden[gk] || undeclaredHidden && !declared[gk] {
				p.kinds[gk] = true
			}
		}
	}
	if len(p.kinds) == 0 {
		return nil
	}
	for gk := range p.kinds {
		p.names = append(p.names, gk.Kind)
	}
	sort.Strings(p.names)
	return p
}

// Notice is the one line said on stderr whenever the records answer.
func (p *Published) Notice() string {
	k := strings.Join(p.names, ", ")
	return fmt.Sprintf("%s read from the published effective policies: you cannot read %s objects", k, k)
}

// Covers says whether the records answer for kind gk.
func (p *Published) Covers(gk schema.GroupKind) bool { return p != nil && p.kinds[gk] }

// KindNamed finds a covered kind from a command-line name, in any case.
func (p *Published) KindNamed(name string) (schema.GroupKind, bool) {
	if p == nil {
		return schema.GroupKind{}, false
	}
	name = strings.ToLower(name)
	for gk := range p.kinds {
		k, plural := strings.ToLower(gk.Kind), Plural(gk.Kind)
		if name == k || name == plural || name == plural+"."+gk.Group || name == k+"."+gk.Group {
			return gk, true
		}
	}
	return schema.GroupKind{}, false
}

// entry is one covered kind's record of one target.
type entry struct {
	target stratav1.Ref
	kp     *stratav1.KindPolicies
}

// entries lists the covered kinds' records, in record order.
func (p *Published) entries() []entry {
	var out []entry
	for _, r := range p.records {
		for i := range r.Policies {
			kp := &r.Policies[i]
			if p.kinds[schema.GroupKind{Group: kp.Group, Kind: kp.Kind}] {
				out = append(out, entry{target: r.Target, kp: kp})
			}
		}
	}
	return out
}

// own matches the described node: the object itself and its sections, or the one section described.
type ownRef topology.Ref

func (o ownRef) has(r stratav1.Ref) bool {
	return r.Group == o.Group && r.Kind == o.Kind && r.Namespace == o.Namespace && r.Name == o.Name &&
		(o.Section == "" || r.SectionName == o.Section)
}

// first is the index of the first node of path that is o, or -1.
func (o ownRef) first(path []stratav1.Ref) int { return slices.IndexFunc(path, o.has) }

// reaches says whether o is the target or on the context's path.
func (o ownRef) reaches(target stratav1.Ref, path []stratav1.Ref) bool {
	return o.has(target) || o.first(path) >= 0
}

// Describe adds to d what the records say about node n for the covered kinds.
func (p *Published) Describe(d *Description, res *engine.Result, n topology.NodeID) {
	o, below := ownBelow(res, n)
	affecting := map[PolicyRef]*Affecting{}
	rank := map[string]int{Attached: 0, Inherited: 1, Below: 2}
	note := func(ref PolicyRef, rel string, at []stratav1.Ref) *Affecting {
		a := affecting[ref]
		if a == nil {
			a = &Affecting{Policy: ref, Relation: rel}
			affecting[ref] = a
		}
		if r, ok := rank[rel]; ok && r < rank[a.Relation] {
			a.Relation = rel
		}
		for _, r := range at {
			if qr := r; !slices.Contains(a.AttachedTo, qr) {
				a.AttachedTo = append(a.AttachedTo, qr)
			}
		}
		return a
	}
	effects := map[GroupKind]*KindEffect{}
	for _, e := range p.entries() {
		gk := GroupKind{Group: e.kp.Group, Kind: e.kp.Kind}
		if e.kp.Visibility == string(stratav1.VisibilityKind) {
			if o.has(e.target) || below[targetKey(e.target)] {
				ref := PolicyRef{Group: gk.Group, Kind: gk.Kind, Name: withheld(e.kp.PolicyCount)}
				note(ref, "", nil).Withheld = true
			}
			continue
		}
		te := TargetEffect{Target: e.target}
		for _, c := range e.kp.Contexts {
			if !o.reaches(e.target, c.Path) {
				continue
			}
			first := o.first(c.Path)
			for _, s := range c.Sources {
				rel := Inherited
				for _, at := range s.AttachedTo {
					i := slices.Index(c.Path, at)
					if i < 0 && at == e.target {
						i = len(c.Path) // the target ends the path
					}
					switch {
					case o.has(at):
						rel = Attached
					case first >= 0 && i > first && rel != Attached:
						rel = Below
					case first >= 0 && rel != Attached && at.Group == "" && at.Kind == "Namespace" &&
						!InheritsNamespace(c.Path, first, at.Name, func(r stratav1.Ref) (string, bool) { return r.Namespace, r.Group == "" && r.Kind == "Namespace" }):
						rel = Below // a Namespace of an object below
					}
				}
				a := note(PolicyRef{Group: gk.Group, Kind: gk.Kind, Namespace: s.Namespace, Name: s.Name}, rel, s.AttachedTo)
				if a.Results == nil {
					a.Results = map[string]int{}
				}
				a.Results[s.Result]++
			}
			te.Contexts = append(te.Contexts, recordContext(c))
		}
		addEffect(effects, res, gk, te)
	}
	for _, a := range affecting {
		slices.SortFunc(a.AttachedTo, func(a, b Ref) int { return strings.Compare(a.Key(), b.Key()) })
		if a.AttachedTo == nil {
			a.AttachedTo = []Ref{}
		}
		d.Policies = append(d.Policies, *a)
	}
	slices.SortStableFunc(d.Policies, func(a, b Affecting) int {
		return strings.Compare(policyOrder(a.Policy), policyOrder(b.Policy))
	})
	d.Effective = withEffects(d.Effective, effects, func(a, b TargetEffect) int { return strings.Compare(a.Target.Key(), b.Target.Key()) })
}

// withEffects appends effects to into, sorted by kind and byTarget.
func withEffects(into []KindEffect, effects map[GroupKind]*KindEffect, byTarget func(a, b TargetEffect) int) []KindEffect {
	for _, ke := range effects {
		slices.SortFunc(ke.Targets, byTarget)
		into = append(into, *ke)
	}
	slices.SortStableFunc(into, func(a, b KindEffect) int { return strings.Compare(a.Group+"/"+a.Kind, b.Group+"/"+b.Kind) })
	return into
}

// withheld is the name shown for policies whose names a kind withholds.
func withheld(n int32) string {
	if n == 1 {
		return "(1 policy; name withheld)"
	}
	return fmt.Sprintf("(%d policies; names withheld)", n)
}

// recordContext is a published context as Describe renders one.
func recordContext(c stratav1.Context) ContextEffect {
	ce := ContextEffect{Path: slices.Clone(c.Path), Spec: specOf(c), Fields: []FieldEffect{}}
	for _, s := range c.Sources {
		se := StackEntry{Policy: id(s.Namespace, s.Name), Result: s.Result}
		if len(s.AttachedTo) > 0 {
			se.AttachedTo, se.Level = s.AttachedTo[0], levelOf(s.AttachedTo[0])
		}
		ce.Stack = append(ce.Stack, se)
	}
	for _, ptr := range slices.Sorted(maps.Keys(c.FieldSources)) {
		v, _ := merge.Get(ce.Spec, ptr)
		ce.Fields = append(ce.Fields, FieldEffect{Field: ptr, Value: v, SetBy: c.FieldSources[ptr]})
	}
	return ce
}

// specOf decodes a context's merged spec with integers as int64, as the engine holds them.
func specOf(c stratav1.Context) map[string]any {
	spec := map[string]any{}
	if c.ResultantPolicy != nil {
		_ = utiljson.Unmarshal(c.ResultantPolicy.Raw, &spec) // written by the controller from valid JSON
	}
	return spec
}

// Explain gives the precedence chains of field ptr the records hold for node n.
func (p *Published) Explain(res *engine.Result, n topology.NodeID, ptr string, only string) []Chain {
	o := ownRef(res.Graph.Node(n).Ref)
	var out []Chain
	for _, e := range p.entries() {
		if only != "" && !strings.EqualFold(only, e.kp.Kind) {
			continue
		}
		for _, c := range e.kp.Contexts {
			if !o.reaches(e.target, c.Path) {
				continue
			}
			winners := map[string]bool{}
			for f, src := range c.FieldSources {
				if f == ptr || merge.Below(f, ptr) || merge.Below(ptr, f) {
					winners[src] = true
				}
			}
			if len(winners) == 0 {
				continue
			}
			ch := Chain{PolicyKind: GroupKind{Group: e.kp.Group, Kind: e.kp.Kind}, Target: e.target, Path: slices.Clone(c.Path)}
			if v, ok := merge.Get(specOf(c), ptr); ok {
				ch.Value = v
			}
			ch.SetBy = slices.Sorted(maps.Keys(winners))
			for _, s := range c.Sources {
				id := id(s.Namespace, s.Name)
				if !winners[id] {
					continue
				}
				cd := Candidate{Source: id, Sets: true, Value: ch.Value, Outcome: Wins,
					Note: "from the published effective policy; the candidates it beat are not published"}
				if len(s.AttachedTo) > 0 {
					at := s.AttachedTo[0]
					cd.AttachedTo, cd.Level = &at, levelOf(s.AttachedTo[0])
				}
				ch.Candidates = append(ch.Candidates, cd)
			}
			if winners[TargetSource] {
				ch.Candidates = append(ch.Candidates, Candidate{Source: TargetSource, Sets: true, Value: ch.Value, Outcome: Wins})
			}
			out = append(out, ch)
		}
	}
	return out
}

// Policies lists the covered kinds' policies the records name, as `get policies` lists policies.
func (p *Published) Policies(l *PolicyList, res *engine.Result, ns string, all bool, kind *schema.GroupKind) {
	type acc struct {
		s       PolicySummary
		results map[string]int
		hit     map[string]bool
	}
	byRef := map[PolicyRef]*acc{}
	for _, e := range p.entries() {
		gk := schema.GroupKind{Group: e.kp.Group, Kind: e.kp.Kind}
		if kind != nil && *kind != gk {
			continue
		}
		for _, c := range e.kp.Contexts {
			setters := map[string]bool{}
			for _, src := range c.FieldSources {
				setters[src] = true
			}
			for _, s := range c.Sources {
				if !all && s.Namespace != "" && s.Namespace != ns {
					continue
				}
				ref := PolicyRef{Group: gk.Group, Kind: gk.Kind, Namespace: s.Namespace, Name: s.Name}
				a := byRef[ref]
				if a == nil {
					a = &acc{s: PolicySummary{PolicyRef: ref, Class: classOf(res, GroupKind{Group: gk.Group, Kind: gk.Kind}), Managed: true, Targets: []string{}}, results: map[string]int{}, hit: map[string]bool{}}
					byRef[ref] = a
				}
				for _, at := range s.AttachedTo {
					if t := recordTarget(s.Namespace, at); !slices.Contains(a.s.Targets, t) {
						a.s.Targets = append(a.s.Targets, t)
					}
				}
				a.results[s.Result]++
				// In force: it set a field, or (settings withheld) it was enforced at least in part.
				if setters[id(s.Namespace, s.Name)] || c.FieldSources == nil && (inForce(s.Result)) {
					a.s.Affects.Contexts++
					if k := targetKey(e.target); !a.hit[k] {
						a.hit[k] = true
						a.s.Affects.Targets++
					}
				}
			}
		}
	}
	for _, a := range byRef {
		sort.Strings(a.s.Targets)
		a.s.Status = StatusSummary{Accepted: "True", Enforcement: enforcement(a.results)}
		l.Items = append(l.Items, a.s)
	}
	slices.SortStableFunc(l.Items, func(a, b PolicySummary) int {
		return strings.Compare(policyOrder(a.PolicyRef), policyOrder(b.PolicyRef))
	})
}

// enforcement rolls a policy's results up in the words of the kind's vocabulary.
func enforcement(results map[string]int) string {
	v := policykind.VocabularyEnforced
	total, by := 0, map[effective.Standing]int{}
	for term, n := range results {
		total += n
		if st, ok := outcome.StandingOfTerm(term); ok {
			by[st] += n
		}
		if tv, ok := outcome.VocabularyOfTerm(term); ok {
			v = tv
		}
	}
	switch {
	case by[effective.Enforced] == total:
		return outcome.Term(v, effective.Enforced)
	case by[effective.Enforced] == 0 && by[effective.PartiallyEnforced] == 0:
		return outcome.Term(v, effective.Overridden)
	default:
		return outcome.Term(v, effective.PartiallyEnforced)
	}
}

// inForce reports whether a result is Enforced or PartiallyEnforced, in either vocabulary.
func inForce(result string) bool {
	st, _ := outcome.StandingOfTerm(result)
	return st == effective.Enforced || st == effective.PartiallyEnforced
}

// Impact answers impact KIND/NAME (arg) in namespace ns for a kind only
// the records tell of, when resolving arg failed: a deletion from what
// the records hold; a replacement cannot be answered (the records do not
// hold the other policies' settings). ok is false when p does not cover
// the kind.
func (p *Published) Impact(arg, ns string, del bool) (im *Impact, ok bool, err error) {
	kind, name, _ := strings.Cut(arg, "/")
	gk, ok := p.KindNamed(kind)
	switch {
	case !ok || name == "":
		return nil, false, nil
	case !del:
		return nil, true, fmt.Errorf("impact %s --replace: you cannot read %s objects, and the published effective policies do not hold the other policies' settings to merge the new version with; --delete can be answered", arg, gk.Kind)
	}
	im, found := p.ImpactOfDelete(gk, ns, name)
	if !found {
		return nil, true, fmt.Errorf("%s %s/%s affects none of the targets whose effective policies you can read", gk.Kind, ns, name)
	}
	return im, true, nil
}

// ImpactOfDelete answers `impact KIND/NAME --delete` for a covered kind.
func (p *Published) ImpactOfDelete(gk schema.GroupKind, ns, name string) (*Impact, bool) {
	ref := PolicyRef{Group: gk.Group, Kind: gk.Kind, Namespace: ns, Name: name}
	id := id(ns, name)
	im := &Impact{TypeMeta: TypeMeta{APIVersion: APIVersion, Kind: KindImpact}, Policy: ref, Change: ChangeDelete, Targets: []TargetChange{}}
	found := false
	for _, e := range p.entries() {
		if e.kp.Group != gk.Group || e.kp.Kind != gk.Kind {
			continue
		}
		tc := TargetChange{PolicyKind: GroupKind{Group: gk.Group, Kind: gk.Kind}, Target: e.target}
		for _, c := range e.kp.Contexts {
			alone := true
			for _, s := range c.Sources {
				if s.Namespace == ns && s.Name == name {
					found = true
				} else {
					alone = false
				}
			}
			spec := specOf(c)
			cc := ContextChange{Path: slices.Clone(c.Path)}
			for _, ptr := range slices.Sorted(maps.Keys(c.FieldSources)) {
				if c.FieldSources[ptr] != id {
					continue
				}
				v, _ := merge.Get(spec, ptr)
				fc := FieldChange{Field: ptr, Before: v, BeforeSetBy: id}
				if !alone {
					fc.AfterSetBy = "(not published: the other policies' settings)"
				}
				cc.Fields = append(cc.Fields, fc)
			}
			if len(cc.Fields) > 0 {
				tc.Contexts = append(tc.Contexts, cc)
			}
		}
		if len(tc.Contexts) > 0 {
			im.Targets = append(im.Targets, tc)
			im.Changed.Targets++
			im.Changed.Contexts += len(tc.Contexts)
		}
	}
	return im, found
}

// levelOf is the hierarchy level of a node a policy is attached to (docs/hierarchy.md).
func levelOf(r stratav1.Ref) int {
	info, ok := hierarchy.Kinds[schema.GroupKind{Group: r.Group, Kind: r.Kind}]
	switch {
	case !ok:
		return int(hierarchy.LevelVirtual)
	case r.SectionName != "":
		return int(info.SectionsAt())
	default:
		return int(info.Level)
	}
}

// addEffect adds te, a target's contexts of kind gk, to effects; a target without contexts is left out.
func addEffect(effects map[GroupKind]*KindEffect, res *engine.Result, gk GroupKind, te TargetEffect) {
	if len(te.Contexts) == 0 {
		return
	}
	ke := effects[gk]
	if ke == nil {
		ke = &KindEffect{GroupKind: gk, Class: classOf(res, gk)}
		effects[gk] = ke
	}
	ke.Targets = append(ke.Targets, te)
}

// classOf is the class of a kind the engine knows, else empty.
func classOf(res *engine.Result, gk GroupKind) string {
	if k := res.KindOf(gk.Group, gk.Kind); k != nil {
		return string(k.Class)
	}
	return ""
}

// recordTarget writes where a policy is attached as `get policies` writes a targetRef.
func recordTarget(policyNamespace string, r stratav1.Ref) string {
	s := r.Kind + " "
	if r.Namespace != "" && r.Namespace != policyNamespace {
		s += r.Namespace + "/"
	}
	s += r.Name
	if r.SectionName != "" {
		s += "#" + r.SectionName
	}
	return s
}

func policyOrder(r PolicyRef) string { return r.Group + "/" + r.Kind + " " + r.ID() }

func targetKey(r stratav1.Ref) string {
	return topology.Ref{Group: r.Group, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, Section: r.SectionName}.Key()
}
