package engine

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine/attach"
	"github.com/strata-dev/strata/pkg/engine/crdschema"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/merge"
	"github.com/strata-dev/strata/pkg/engine/outcome"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Options tune a run. The zero value uses Strata's defaults.
type Options struct {
	// Registry of custom merge functions; nil means merge.DefaultRegistry.
	Registry merge.Registry
	// ControllerName is given to kinds whose declaration names none;
	// empty means policykind.DefaultControllerName.
	ControllerName string
	// Lenient skips bad declarations and policies of undeclared kinds and
	// reports them in Result.Errors instead of failing the run: a
	// controller must keep serving every other kind.
	Lenient bool
}

// Result is everything the engine derives from a snapshot. Kinds, Policies,
// Attachments and Effective are index-aligned per kind where noted.
type Result struct {
	Graph *topology.Graph
	// Kinds sorted by group then kind.
	Kinds []*policykind.Kind
	// Policies sorted by kind, then namespace/name.
	Policies []*policykind.Policy
	// Attachments and Effective, one per entry of Kinds.
	Attachments []*attach.Result
	Effective   []*effective.Result
	Outcome     *outcome.Outcome
	// Errors skipped in Lenient mode.
	Errors []error
	// Warnings are about the input as a whole and do not change the
	// answer's shape: a policy CRD whose schema could not be read (its
	// policies are then not validated).
	Warnings []error
	// Scope is nil for a complete result. A result of RunScoped holds the
	// nodes its question is about: Effective then has only the effective
	// targets among them, and Outcome is nil.
	Scope []topology.NodeID

	opts       Options
	kindErrors []error
	// schemas are the compiled schemas of the policy CRDs of the input,
	// by kind.
	schemas  map[schema.GroupKind]*crdschema.CRD
	byKind   [][]*policykind.Policy // per entry of Kinds
	outcomes []*outcome.Outcome     // per entry of Kinds
}

// KindOf finds a kind by group and kind name, or nil.
func (r *Result) KindOf(group, kind string) *policykind.Kind {
	for _, k := range r.Kinds {
		if k.Group == group && k.Kind == kind {
			return k
		}
	}
	return nil
}

// Run is the functional core: topology, attachment, effective policies and
// outcome, from plain data to plain data. Errors are about declarations
// (a bad PolicyKind, a policy of an undeclared kind); problems of
// individual objects end up in their status instead.
func Run(s *snapshot.Snapshot, opts Options) (*Result, error) { return RunScoped(s, opts, nil) }

// RunScoped is Run for a question about a few nodes, such as `strata
// describe` of one route in a world of thousands: most of Run's time goes
// to the effective policies of every target and to the status of every
// policy, which such a question does not read.
//
// The topology, the policies and their attachments are complete. Then
// scope, given the result so far (Graph, Kinds and Policies set), names
// the nodes the question is about; effective policies are computed only
// for the effective targets among them, each exactly as Run computes it
// (effective.ComputeOnly), and no Outcome is computed (Result.Scope).
// When scope (or its answer) is nil, the result is Run's, Outcome
// included.
func RunScoped(s *snapshot.Snapshot, opts Options, scope func(*Result) []topology.NodeID) (*Result, error) {
	if opts.Registry == nil {
		opts.Registry = merge.DefaultRegistry()
	}
	kinds, kindErrs := Kinds(s, opts.ControllerName)
	if len(kindErrs) > 0 && !opts.Lenient {
		return nil, errors.Join(kindErrs...)
	}
	res := &Result{Graph: topology.Build(s), Kinds: kinds, kindErrors: kindErrs, opts: opts}
	res.schemas, res.Warnings = schemas(s)
	if err := res.run(s.Policies, nil, nil, scope); err != nil {
		return nil, err
	}
	return res, nil
}

// Recompute answers a change confined to the instances of some policy
// kinds: policies holds the current instances of the kinds in dirty (all
// of them; other kinds' instances are ignored). The topology and the
// declarations of r are kept, which the caller must know to be unchanged,
// and the results of the other kinds are reused, so the cost is that of
// the dirty kinds alone (docs/controller.md, "What a change recomputes").
func (r *Result) Recompute(policies []*unstructured.Unstructured, dirty map[schema.GroupKind]bool) (*Result, error) {
	if r.Scope != nil {
		return nil, errors.New("engine: Recompute needs a complete result, not one of RunScoped")
	}
	res := &Result{Graph: r.Graph, Kinds: r.Kinds, kindErrors: r.kindErrors, opts: r.opts, schemas: r.schemas, Warnings: r.Warnings}
	if err := res.run(policies, dirty, r, nil); err != nil {
		return nil, err
	}
	return res, nil
}

// run reads the policies and computes every kind, or, with prev, only the
// dirty kinds; with scope (see RunScoped), only the effective targets in
// the nodes it names, without outcome.
func (res *Result) run(policies []*unstructured.Unstructured, dirty map[schema.GroupKind]bool, prev *Result, scope func(*Result) []topology.NodeID) error {
	res.Errors = append([]error(nil), res.kindErrors...)
	byKind := map[schema.GroupKind][]*policykind.Policy{}
	for _, u := range policies {
		gk := u.GroupVersionKind().GroupKind()
		if prev != nil && !dirty[gk] {
			continue
		}
		k := res.KindOf(gk.Group, gk.Kind)
		if k == nil {
			err := fmt.Errorf("%s %s: %s is not a declared policy kind", u.GetKind(), id(u.GetNamespace(), u.GetName()), gk)
			if !res.opts.Lenient {
				return err
			}
			res.Errors = append(res.Errors, err)
			continue
		}
		byKind[gk] = append(byKind[gk], res.read(k, u))
		// A policy's namespace exists even when nothing else in the input
		// lives there, so a policy can always target its own namespace.
		res.Graph.EnsureNamespace(u.GetNamespace())
	}
	for i, k := range res.Kinds {
		if prev != nil && !dirty[k.Key()] {
			res.byKind = append(res.byKind, prev.byKind[i])
			continue
		}
		ps := byKind[k.Key()]
		sort.Slice(ps, func(i, j int) bool { return ps[i].ID() < ps[j].ID() })
		res.byKind = append(res.byKind, ps)
	}
	for _, ps := range res.byKind {
		res.Policies = append(res.Policies, ps...)
	}
	var in func(topology.NodeID) bool
	if scope != nil {
		if nodes := scope(res); nodes != nil {
			set := make(map[topology.NodeID]bool, len(nodes))
			for _, n := range nodes {
				set[n] = true
			}
			in = func(n topology.NodeID) bool { return set[n] }
			res.Scope = nodes
		}
	}
	res.Attachments = make([]*attach.Result, len(res.Kinds))
	res.Effective = make([]*effective.Result, len(res.Kinds))
	res.outcomes = make([]*outcome.Outcome, len(res.Kinds))
	for _, members := range res.folds() {
		if prev != nil && !slices.ContainsFunc(members, func(i int) bool { return dirty[res.Kinds[i].Key()] }) {
			for _, i := range members {
				res.Attachments[i], res.Effective[i], res.outcomes[i] = prev.Attachments[i], prev.Effective[i], prev.outcomes[i]
			}
			continue
		}
		if err := res.compute(members, in); err != nil {
			return err
		}
	}
	if in != nil {
		res.outcomes = nil
	}
	if in == nil {
		res.Outcome = outcome.Merge(res.Graph, res.outcomes...)
	}
	return nil
}

// folds groups the indexes of Kinds that fold together: each kind alone,
// except the kinds of one value space (policykind.ValueSpace), which form
// one group in rank order, at the place of its first kind.
func (res *Result) folds() [][]int {
	var out [][]int
	at := map[string]int{}
	for i, k := range res.Kinds {
		space := k.Space()
		if space == "" {
			out = append(out, []int{i})
			continue
		}
		j, ok := at[space]
		if !ok {
			j = len(out)
			at[space] = j
			out = append(out, nil)
		}
		out[j] = append(out[j], i)
	}
	for _, g := range out {
		slices.SortStableFunc(g, func(a, b int) int { return res.Kinds[a].Rank() - res.Kinds[b].Rank() })
	}
	return out
}

// compute attaches the policies of a group of kinds that fold together
// and computes their effective policies and outcome. A group of one kind
// is the common case. For a value space every kind keeps its own
// attachments (a view of the group's), and all of them share one
// effective result and one outcome, held at the group's first kind, so
// each policy's standing is the one the shared value gives it.
func (res *Result) compute(members []int, in func(topology.NodeID) bool) error {
	first := res.Kinds[members[0]]
	var ps []*policykind.Policy
	funcs := map[string]merge.Func{}
	for _, i := range members {
		ps = append(ps, res.byKind[i]...)
		fs, err := effective.Funcs(res.opts.Registry, res.Kinds[i])
		if err != nil {
			return err
		}
		for name, f := range fs {
			if _, dup := funcs[name]; !dup {
				funcs[name] = f
			}
		}
	}
	att := attach.Resolve(res.Graph, ps)
	eff := effective.ComputeOnly(res.Graph, first, att, funcs, in)
	for _, i := range members {
		res.Attachments[i] = att
		if len(members) > 1 {
			res.Attachments[i] = att.Of(res.Kinds[i])
		}
		res.Effective[i] = eff
		res.outcomes[i] = &outcome.Outcome{}
	}
	if in == nil {
		res.outcomes[members[0]] = outcome.Compute(res.Graph, ps, []*attach.Result{att}, []*effective.Result{eff})
	}
	return nil
}

// SharedWith returns the index of the first kind whose effective result
// kind i shares (i itself unless i's kind is a later rung of a value
// space), so that a listing shows a shared result once.
func (r *Result) SharedWith(i int) int {
	for j := range i {
		if r.Effective[j] == r.Effective[i] {
			return j
		}
	}
	return i
}

// schemas compiles the schemas of the snapshot's policy CRDs. A CRD
// whose schema the API server would refuse is a warning, and its
// policies are read unvalidated, as before there was a schema.
func schemas(s *snapshot.Snapshot) (map[schema.GroupKind]*crdschema.CRD, []error) {
	var warns []error
	out := map[schema.GroupKind]*crdschema.CRD{}
	for _, u := range s.CRDs {
		gk := policykind.DefinedKind(u)
		if _, dup := out[gk]; dup {
			continue
		}
		crd, err := crdschema.FromCRD(u)
		if err != nil {
			warns = append(warns, fmt.Errorf("%w: %s policies are not validated", err, gk))
			continue
		}
		out[gk] = crd
	}
	return out, warns
}

// read reads a policy through its kind, first admitting it as the API
// server would when the input holds its CRD's schema: unknown fields are
// dropped with a warning (kubectl's `unknown field`), so that a typo such
// as `default:` for `defaults:` is never read as a policy field, and a
// schema violation makes the policy Invalid, naming the field. Without
// a schema, or with one that keeps any field of the spec
// (x-kubernetes-preserve-unknown-fields), fields the kind does not
// expect are warnings.
func (res *Result) read(k *policykind.Kind, u *unstructured.Unstructured) *policykind.Policy {
	crd := res.schemas[k.Key()]
	if crd == nil {
		p := k.Read(u)
		p.Warnings = k.Unexpected(u)
		return p
	}
	version := u.GroupVersionKind().Version
	schema, served := crd.Versions[version]
	if !served {
		msg := fmt.Sprintf("apiVersion: CustomResourceDefinition %s has no version %s (versions: %s)", crd.Name, version, strings.Join(crd.VersionNames(), ", "))
		p := k.Read(u)
		p.Invalid = append([]string{msg}, p.Invalid...)
		p.Warnings = []string{msg + "; the API server would refuse it: Invalid"}
		return p
	}
	if schema == nil {
		return k.Read(u)
	}
	a := schema.Admit(u)
	p := k.Read(a.Object)
	var invalid, warnings []string
	for _, f := range a.Unknown {
		warnings = append(warnings, fmt.Sprintf("unknown field %q: not in the schema of CustomResourceDefinition %s; the API server would drop it, and so does strata", f, crd.Name))
	}
	for _, e := range a.Errors {
		invalid = append(invalid, e.Error())
		warnings = append(warnings, e.Error()+"; the API server would refuse it: Invalid")
	}
	p.Invalid = append(invalid, p.Invalid...)
	if schema.Open(k.SpecPath()...) {
		// A schema that keeps any field of the spec says nothing about
		// its fields: look for typos as without a schema.
		warnings = append(warnings, k.Unexpected(a.Object)...)
	}
	p.Warnings = warnings
	return p
}

// Kinds compiles the declarations of a snapshot: PolicyKind objects, then
// labelled CRDs for kinds no PolicyKind declares. Two PolicyKinds for one
// kind are an error. Declarations without a controllerName get
// controllerName (if not empty). The kinds that compiled are returned
// with the errors of the others, each a *DeclarationError.
// DeclarationError is a declaration that did not compile, with the
// object it came from (a PolicyKind, or a labelled policy CRD), so that
// an adapter can say where that object was read: the engine knows no
// files.
type DeclarationError struct {
	// Group, Kind and Name of the declaring object.
	Group, Kind, Name string
	Err               error
}

func (e *DeclarationError) Error() string { return e.Err.Error() }
func (e *DeclarationError) Unwrap() error { return e.Err }

const crdGroup, crdKind = "apiextensions.k8s.io", "CustomResourceDefinition"

func Kinds(s *snapshot.Snapshot, controllerName string) ([]*policykind.Kind, []error) {
	var errs []error
	compile := func(d *policykind.Declaration) (*policykind.Kind, error) {
		if d.Spec.ControllerName == "" && controllerName != "" {
			c := *d // shallow: only a string field changes
			c.Spec.ControllerName = controllerName
			d = &c
		}
		return policykind.Compile(d)
	}
	seen := map[schema.GroupKind]string{}
	var kinds []*policykind.Kind
	for _, d := range s.Declarations {
		k, err := compile(d)
		if err != nil {
			errs = append(errs, &DeclarationError{Group: policykind.Group, Kind: policykind.KindName, Name: d.Name, Err: err})
			continue
		}
		if prev, dup := seen[k.Key()]; dup {
			errs = append(errs, &DeclarationError{Group: policykind.Group, Kind: policykind.KindName, Name: d.Name, Err: fmt.Errorf("PolicyKind %s: declares %s, already declared by PolicyKind %s", d.Name, k.Key(), prev)})
			continue
		}
		k.Source = "PolicyKind " + d.Name
		seen[k.Key()] = d.Name
		kinds = append(kinds, k)
	}
	for _, crd := range s.PolicyCRDs {
		d, err := policykind.FromCRD(crd)
		if err != nil {
			errs = append(errs, &DeclarationError{Group: crdGroup, Kind: crdKind, Name: crd.GetName(), Err: err})
			continue
		}
		gk := schema.GroupKind{Group: d.Spec.Group, Kind: d.Spec.Kind}
		if _, declared := seen[gk]; declared {
			continue
		}
		k, err := compile(d)
		if err != nil {
			errs = append(errs, &DeclarationError{Group: crdGroup, Kind: crdKind, Name: crd.GetName(), Err: err})
			continue
		}
		k.Source = "CustomResourceDefinition " + crd.GetName()
		seen[gk] = d.Name
		kinds = append(kinds, k)
	}
	// A kind's CRD, when known, bounds status.ancestors (status.Limit);
	// the last CRD of a kind that declares a bound wins.
	maxOf := map[schema.GroupKind]int{}
	for _, crd := range append(slices.Clip(s.PolicyCRDs), s.CRDs...) {
		if max, ok := policykind.AncestorsMaxItems(crd); ok {
			maxOf[policykind.DefinedKind(crd)] = max
		}
	}
	for _, k := range kinds {
		if max, ok := maxOf[k.Key()]; ok {
			k.MaxAncestors = max
		}
	}
	sort.Slice(kinds, func(i, j int) bool {
		return strings.Compare(kinds[i].Group+"/"+kinds[i].Kind, kinds[j].Group+"/"+kinds[j].Kind) < 0
	})
	return spacesAgree(kinds, errs)
}

// spacesAgree keeps the kinds of a value space only when they can fold
// together: one stack per context needs the same effective targets and
// the same contexts, and a rank is one rung. The kinds of a space that
// disagrees are dropped with an error naming both declarations.
func spacesAgree(kinds []*policykind.Kind, errs []error) ([]*policykind.Kind, []error) {
	first := map[string]*policykind.Kind{}
	ranks := map[string]map[int]*policykind.Kind{}
	bad := map[string]bool{}
	for _, k := range kinds {
		space := k.Space()
		if space == "" {
			continue
		}
		f, ok := first[space]
		if !ok {
			first[space] = k
			ranks[space] = map[int]*policykind.Kind{k.Rank(): k}
			continue
		}
		var why string
		switch {
		case !slices.Equal(k.EffectiveKinds(), f.EffectiveKinds()):
			why = "spec.effectiveTargetKinds differs"
		case k.Contexts != f.Contexts:
			why = "spec.contexts differs"
		case ranks[space][k.Rank()] != nil:
			f = ranks[space][k.Rank()]
			why = fmt.Sprintf("both are at rank %d", k.Rank())
		}
		ranks[space][k.Rank()] = k
		if why != "" {
			errs = append(errs, fmt.Errorf("%s: value space %s is shared with %s, but %s: kinds of one value space fold into one stack", k.Source, space, f.Source, why))
			bad[space] = true
		}
	}
	if len(bad) == 0 {
		return kinds, errs
	}
	return slices.DeleteFunc(kinds, func(k *policykind.Kind) bool { return bad[k.Space()] }), errs
}

func id(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}
