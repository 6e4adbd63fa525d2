package engine

import (
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/strata-dev/strata/pkg/engine/attach"
	"github.com/strata-dev/strata/pkg/engine/crdschema"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/merge"
	"github.com/strata-dev/strata/pkg/engine/outcome"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/policykind/builtin"
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
	// Lenient skips bad declarations and reports them in Result.Errors
	// instead of failing the run.
	Lenient bool
	// Catalogue declares built-in kinds (builtin.Catalogue() for
	// Strata's own commands, nil for none); see KindsWith.
	Catalogue []builtin.Entry
	// Strict makes a policy of a kind nothing declares an error
	// (UndeclaredError) instead of a warning that skips it.
	Strict bool
	// Workers is how many goroutines a run uses at once (0: GOMAXPROCS;
	// 1: the caller's only); the answer is the same for every value.
	Workers int
}

// workers is Workers with 0 read as GOMAXPROCS.
func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// UndeclaredError is a policy whose kind nothing declares, in Strict mode.
type UndeclaredError struct {
	Kind            schema.GroupKind
	Namespace, Name string
}

func (e *UndeclaredError) Error() string {
	return fmt.Sprintf("%s %s: %s", e.Kind.Kind, id(e.Namespace, e.Name), e.Reason())
}

// Reason is the error without the object's name, for a caller that
// names the object its own way (by file and document).
func (e *UndeclaredError) Reason() string {
	return fmt.Sprintf("%s is not a declared policy kind: %s", e.Kind, howToDeclare)
}

// howToDeclare ends every message about an undeclared kind.
const howToDeclare = "declare it with a PolicyKind (strata.dev/v1alpha1) or install its CRD labelled " + policykind.CRDLabel + " (docs/policy-kinds.md)"

// Result is everything the engine derives from a snapshot, frozen once
// returned (doc.go, "Concurrency").
type Result struct {
	Graph *topology.Graph
	// Kinds holds each policy kind's results, sorted by group then kind.
	Kinds []*KindResult
	// Policies of every kind, sorted by kind, then namespace/name.
	Policies []*policykind.Policy
	Outcome  *outcome.Outcome
	// Errors skipped in Lenient mode.
	Errors []error
	// Warnings are about the input as a whole: unreadable CRD schemas,
	// policies of kinds nothing declares (one per kind).
	Warnings []error
	// Scope is nil for a complete result, else the nodes a RunScoped
	// question is about: Effective holds only those, Outcome is nil.
	Scope []topology.NodeID

	opts       Options
	kindErrors []error
	// schemaWarnings and undeclared (counts by kind) make Warnings,
	// kept by Recompute; schemas are the policy CRDs' compiled schemas.
	schemaWarnings []error
	undeclared     map[schema.GroupKind]int
	schemas        map[schema.GroupKind]*crdschema.CRD
}

// KindResult is what the engine derives for one policy kind.
type KindResult struct {
	Kind *policykind.Kind
	// Policies of the kind, sorted by namespace/name.
	Policies []*policykind.Policy
	// Attachments of the kind's policies (for a value space, its view).
	Attachments *attach.Result
	// Effective policies of the kind, shared by a value space's kinds
	// (Result.SharedWith).
	Effective *effective.Result

	// outcome is the status of the kind's policies and targets, merged
	// into Result.Outcome; for a value space, held by its first kind, as
	// are state, the sum outcome is rendered from (Model), and all, the
	// attachments of every kind of the space.
	outcome *outcome.Outcome
	state   *outcome.State
	all     *attach.Result
}

// KindOf finds a kind by group and kind name, or nil.
func (r *Result) KindOf(group, kind string) *policykind.Kind {
	if kr := r.Of(schema.GroupKind{Group: group, Kind: kind}); kr != nil {
		return kr.Kind
	}
	return nil
}

// Of finds the result of a kind by its group and kind, or nil.
func (r *Result) Of(gk schema.GroupKind) *KindResult {
	for _, kr := range r.Kinds {
		if kr.Kind.Key() == gk {
			return kr
		}
	}
	return nil
}

// PolicyKinds lists the kinds of Kinds, in order.
func (r *Result) PolicyKinds() []*policykind.Kind {
	out := make([]*policykind.Kind, len(r.Kinds))
	for i, kr := range r.Kinds {
		out[i] = kr.Kind
	}
	return out
}

// Run is the functional core, from plain data to plain data. Errors are
// about declarations; problems of single objects end up in their status.
func Run(s *snapshot.Snapshot, opts Options) (*Result, error) { return RunScoped(s, opts, nil) }

// RunScoped is Run for a question about a few nodes (`strata describe`
// of one route). The topology, policies and attachments are complete;
// scope, given the result so far (Graph, Kinds and Policies set), names
// the nodes the question is about, and effective policies are computed
// only for the effective targets among them, exactly as Run computes
// them, without Outcome (Result.Scope). A nil scope (or answer) is Run.
func RunScoped(s *snapshot.Snapshot, opts Options, scope func(*Result) []topology.NodeID) (*Result, error) {
	// The objects' graph is built on another goroutine while the
	// policies are read (unless Workers is 1).
	objects := make(chan func(topology.Extra) *topology.Graph, 1)
	if opts.workers() == 1 {
		objects <- topology.Objects(s)
	} else {
		go func() {
			defer func() {
				if p := recover(); p != nil { // panic where the build is awaited
					objects <- func(topology.Extra) *topology.Graph { panic(p) }
				}
			}()
			objects <- topology.Objects(s)
		}()
	}
	if opts.Registry == nil {
		opts.Registry = merge.DefaultRegistry()
	}
	kinds, kindErrs := KindsWith(s, opts.ControllerName, opts.Catalogue)
	if len(kindErrs) > 0 && !opts.Lenient {
		return nil, errors.Join(kindErrs...)
	}
	res := &Result{kindErrors: kindErrs, opts: opts}
	res.schemas, res.schemaWarnings = schemas(s)
	build := func(extra topology.Extra) *topology.Graph { return (<-objects)(extra) }
	if err := res.run(kinds, s.Policies, topology.NewGrants(s.ReferenceGrants), build, nil, nil, scope); err != nil {
		return nil, err
	}
	return res, nil
}

// Recompute answers a change confined to the instances of some policy
// kinds: policies holds all the current instances of the kinds in dirty
// (others are ignored). r's objects and declarations are kept, which the
// caller must know to be unchanged, and the other kinds' results reused
// (docs/controller.md, "What a change recomputes"). r is not changed: the
// new result shares its graph, or an extended copy with r's nodes at the
// same ids (topology.Graph.Extend).
func (r *Result) Recompute(policies []*unstructured.Unstructured, dirty map[schema.GroupKind]bool) (*Result, error) {
	return r.RecomputeScoped(policies, dirty, nil)
}

// RecomputeScoped is Recompute for a question about a few nodes, as
// RunScoped is Run's (the admission webhook's). r may itself be scoped
// when the new scope lies within r's (`strata impact`). A nil scope (or
// answer) is Recompute.
func (r *Result) RecomputeScoped(policies []*unstructured.Unstructured, dirty map[schema.GroupKind]bool, scope func(*Result) []topology.NodeID) (*Result, error) {
	var outside error
	if r.Scope != nil {
		if scope == nil {
			return nil, errors.New("engine: Recompute needs a complete result, not one of RunScoped")
		}
		within := scopeSet(r.Graph, r.Scope)
		outer := scope
		scope = func(res *Result) []topology.NodeID {
			nodes := outer(res)
			if nodes == nil {
				outside = errors.New("engine: RecomputeScoped of a scoped result: the new scope is everything")
			}
			for _, n := range nodes {
				if !within(n) && n != topology.None {
					outside = fmt.Errorf("engine: RecomputeScoped of a scoped result: %s is outside its scope", res.Graph.Node(n).Ref)
					break
				}
			}
			if outside != nil {
				return []topology.NodeID{topology.None} // compute nothing
			}
			return nodes
		}
	}
	res := &Result{kindErrors: r.kindErrors, opts: r.opts, schemas: r.schemas, schemaWarnings: r.schemaWarnings}
	if err := res.run(r.PolicyKinds(), policies, r.Graph.Grants(), r.Graph.Extend, dirty, r, scope); err != nil {
		return nil, err
	}
	if outside != nil {
		return nil, outside
	}
	return res, nil
}

// run reads the policies of kinds, builds the graph with the nodes they
// need (graph: Objects' for Run, Extend for Recompute), and computes
// every kind, or, with prev, the dirty ones; with scope, see RunScoped.
func (res *Result) run(kinds []*policykind.Kind, policies []*unstructured.Unstructured, grants topology.Grants, graph func(topology.Extra) *topology.Graph, dirty map[schema.GroupKind]bool, prev *Result, scope func(*Result) []topology.NodeID) error {
	res.Errors = append([]error(nil), res.kindErrors...)
	if prev != nil {
		res.undeclared = prev.undeclared
	}
	defer res.warn()
	declared := make(map[schema.GroupKind]*policykind.Kind, len(kinds))
	for _, k := range kinds {
		declared[k.Key()] = k
	}
	byKind := map[schema.GroupKind][]*policykind.Policy{}
	var extra topology.Extra
	// On a recomputation, an object that is the very object prev read is
	// not read again: the policy is frozen once read.
	var readBefore map[*unstructured.Unstructured]*policykind.Policy
	if prev != nil {
		readBefore = map[*unstructured.Unstructured]*policykind.Policy{}
		for _, p := range prev.Policies {
			if dirty[p.Kind.Key()] {
				readBefore[p.Object] = p
			}
		}
	}
	for _, u := range policies {
		gk := u.GroupVersionKind().GroupKind()
		if prev != nil && !dirty[gk] {
			continue
		}
		k := declared[gk]
		if k == nil {
			// As on a cluster, the run goes on; Strict refuses it.
			if res.opts.Strict {
				return &UndeclaredError{Kind: gk, Namespace: u.GetNamespace(), Name: u.GetName()}
			}
			if res.undeclared == nil {
				res.undeclared = map[schema.GroupKind]int{}
			}
			res.undeclared[gk]++
			continue
		}
		p := readBefore[u]
		if p == nil || p.Kind != k {
			p = res.read(k, u)
		}
		byKind[gk] = append(byKind[gk], p)
		// A policy can always target its own namespace.
		extra.Namespaces = append(extra.Namespaces, u.GetNamespace())
	}
	res.Kinds = make([]*KindResult, len(kinds))
	for i, k := range kinds {
		if prev != nil && !dirty[k.Key()] {
			kr := *prev.Kinds[i] // reused, unless its value space is dirty
			res.Kinds[i] = &kr
			continue
		}
		ps := byKind[k.Key()]
		sort.Slice(ps, func(i, j int) bool { return ps[i].ID() < ps[j].ID() })
		res.Kinds[i] = &KindResult{Kind: k, Policies: ps}
	}
	for _, kr := range res.Kinds {
		res.Policies = append(res.Policies, kr.Policies...)
	}
	// The groups to compute, with their policies; the virtual objects
	// they target are nodes of the graph from the start.
	var todo []group
	for _, members := range res.folds() {
		if prev != nil && !slices.ContainsFunc(members, func(kr *KindResult) bool { return dirty[kr.Kind.Key()] }) {
			continue
		}
		var ps []*policykind.Policy
		for _, kr := range members {
			ps = append(ps, kr.Policies...)
		}
		todo = append(todo, group{members, ps})
	}
	for _, g := range todo {
		extra.Virtual = append(extra.Virtual, attach.VirtualTargets(grants, g.ps)...)
	}
	res.Graph = graph(extra)
	var in func(topology.NodeID) bool
	if scope != nil {
		if nodes := scope(res); nodes != nil {
			in = scopeSet(res.Graph, nodes)
			res.Scope = nodes
		}
	}
	if err := res.computeAll(todo, in); err != nil {
		return err
	}
	if in == nil {
		parts := make([]*outcome.Outcome, len(res.Kinds))
		for i, kr := range res.Kinds {
			parts[i] = kr.outcome
		}
		res.Outcome = outcome.Merge(parts...)
	}
	return nil
}

// scopeSet is whether a node of g is among nodes (which may hold
// topology.None), a flag by node.
func scopeSet(g *topology.Graph, nodes []topology.NodeID) func(topology.NodeID) bool {
	set := make([]bool, len(g.Nodes))
	for _, n := range nodes {
		if n >= 0 && int(n) < len(set) {
			set[n] = true
		}
	}
	return func(n topology.NodeID) bool { return n >= 0 && int(n) < len(set) && set[n] }
}

// folds groups the kinds that fold together: each kind alone, except
// the kinds of one value space (policykind.ValueSpace), which form one
// group in rank order, at the place of its first kind.
func (res *Result) folds() [][]*KindResult {
	var out [][]*KindResult
	at := map[string]int{}
	for _, kr := range res.Kinds {
		space := kr.Kind.Space()
		if space == "" {
			out = append(out, []*KindResult{kr})
			continue
		}
		j, ok := at[space]
		if !ok {
			j = len(out)
			at[space] = j
			out = append(out, nil)
		}
		out[j] = append(out[j], kr)
	}
	for _, g := range out {
		slices.SortStableFunc(g, func(a, b *KindResult) int { return a.Kind.Rank() - b.Kind.Rank() })
	}
	return out
}

// group is a group of kinds that fold together (Result.folds), to
// compute, with their policies.
type group struct {
	members []*KindResult
	ps      []*policykind.Policy
}

// computeAll computes the groups of kinds at once: each reads the frozen
// graph and its own policies and writes only its members' results. The
// merge functions are made first, in order, on this goroutine (a
// registry's factories need not be safe to call at once). A panic in a
// group is raised again here.
func (res *Result) computeAll(todo []group, in func(topology.NodeID) bool) error {
	funcs := make([]map[string]merge.Func, len(todo))
	for i, g := range todo {
		fs, err := res.funcs(g.members)
		if err != nil {
			return err
		}
		funcs[i] = fs
	}
	if len(todo) == 1 {
		res.compute(todo[0].members, todo[0].ps, funcs[0], in)
		return nil
	}
	panics := make([]any, len(todo))
	var eg errgroup.Group
	eg.SetLimit(res.opts.workers())
	for i, g := range todo {
		eg.Go(func() error {
			defer func() { panics[i] = recover() }()
			res.compute(g.members, g.ps, funcs[i], in)
			return nil
		})
	}
	_ = eg.Wait() // the functions return no error; a panic is re-raised below
	for _, p := range panics {
		if p != nil {
			panic(p)
		}
	}
	return nil
}

// funcs are the merge functions of a group of kinds that fold together:
// each kind's, the first kind's where two name one strategy.
func (res *Result) funcs(members []*KindResult) (map[string]merge.Func, error) {
	funcs := map[string]merge.Func{}
	for _, kr := range members {
		fs, err := effective.Funcs(res.opts.Registry, kr.Kind, res.patchMeta(kr.Kind))
		if err != nil {
			return nil, err
		}
		for name, f := range fs {
			if _, dup := funcs[name]; !dup {
				funcs[name] = f
			}
		}
	}
	return funcs, nil
}

// compute attaches the policies ps of a group of kinds that fold
// together and computes their effective policies and outcome with funcs.
// For a value space every kind keeps its own view of the attachments,
// and all share one effective result and one outcome, held at the first.
func (res *Result) compute(members []*KindResult, ps []*policykind.Policy, funcs map[string]merge.Func, in func(topology.NodeID) bool) {
	first := members[0].Kind
	att := attach.Resolve(res.Graph, ps)
	eff := effective.ComputeOnly(res.Graph, first, att, funcs, in)
	setMembers(members, att, eff)
	if in == nil {
		members[0].outcome, members[0].state = outcome.Build(res.Graph, ps, outcome.Input{Attachments: att, Effective: eff})
	}
}

// setMembers gives the kinds of a group that folds together their
// attachments, of the whole group's att, and the effective policies eff
// they share, with an empty outcome; the first holds att whole.
func setMembers(members []*KindResult, att *attach.Result, eff *effective.Result) {
	for _, kr := range members {
		kr.Attachments = att
		if len(members) > 1 {
			kr.Attachments = att.Of(kr.Kind)
		}
		kr.Effective = eff
		kr.outcome = &outcome.Outcome{}
	}
	members[0].all = att
}

// SharedWith returns the index of the first kind whose effective result
// kind i shares (i itself but for a later rung of a value space).
func (r *Result) SharedWith(i int) int {
	for j := range i {
		if r.Kinds[j].Effective == r.Kinds[i].Effective {
			return j
		}
	}
	return i
}

// patchMeta is the schema a strategic merge of k's policies reads
// (spec.childMerge): its CRD's storage version; nil without a schema.
func (res *Result) patchMeta(k *policykind.Kind) strategicpatch.LookupPatchMeta {
	crd := res.schemas[k.Key()]
	if crd == nil || k.ChildMerge == nil || crd.Versions[crd.Storage] == nil {
		return nil
	}
	spec := k.SpecPath()
	return crd.Versions[crd.Storage].PatchMeta(spec, slices.Concat(spec, []string{k.Fields.Defaults}), slices.Concat(spec, []string{k.Fields.Overrides}))
}

// schemas compiles the schemas of the snapshot's policy CRDs. A CRD
// whose schema the API server would refuse is a warning, and its
// policies are read unvalidated.
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
// dropped with a warning, and a schema violation makes the policy
// Invalid. Without a schema, or with one that keeps any field of the
// spec, fields the kind does not expect are warnings.
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
		warnings = append(warnings, k.Unexpected(a.Object)...)
	}
	p.Warnings = warnings
	return p
}

// DeclarationError is a declaration that did not compile, with the
// object it came from (a PolicyKind, or a labelled policy CRD), so that
// an adapter can say where that object was read.
type DeclarationError struct {
	// Group, Kind and Name of the declaring object.
	Group, Kind, Name string
	Err               error
}

func (e *DeclarationError) Error() string { return e.Err.Error() }
func (e *DeclarationError) Unwrap() error { return e.Err }

const crdGroup, crdKind = "apiextensions.k8s.io", "CustomResourceDefinition"

// KindsWith compiles the declarations of a snapshot: its PolicyKinds, then
// the catalogue's entries for kinds the input uses, then labelled CRDs. A
// PolicyKind overrides a built-in entry (the user knows their cluster
// best), which overrides the bare defaults of a CRD's label
// (policykind.FromCRD). Declarations without a controllerName get
// controllerName (if not empty). The kinds that compiled are returned
// with the errors of the others.
func KindsWith(s *snapshot.Snapshot, controllerName string, catalogue []builtin.Entry) ([]*policykind.Kind, []error) {
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
		k.Source, k.Labels = "PolicyKind "+d.Name, d.Labels
		seen[k.Key()] = d.Name
		kinds = append(kinds, k)
	}
	// Built-in entries serve the kinds the input uses (a policy or a CRD).
	used := map[schema.GroupKind]bool{}
	for _, u := range s.Policies {
		used[u.GroupVersionKind().GroupKind()] = true
	}
	crds := append(slices.Clip(s.PolicyCRDs), s.CRDs...)
	for _, crd := range crds {
		used[policykind.DefinedKind(crd)] = true
	}
	for _, e := range catalogue {
		gk := schema.GroupKind{Group: e.Declaration.Spec.Group, Kind: e.Declaration.Spec.Kind}
		if _, declared := seen[gk]; declared || !used[gk] {
			continue
		}
		k, err := compile(e.Declaration)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", e.Source(), err))
			continue
		}
		k.Source, k.Labels = e.Source(), e.Declaration.Labels
		seen[gk] = e.Source()
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
		k.Source, k.Labels = "CustomResourceDefinition "+crd.GetName(), crd.GetLabels()
		seen[gk] = d.Name
		kinds = append(kinds, k)
	}
	// A kind's CRD, when known, bounds status.ancestors and names its
	// resource; the last CRD of a kind that says it wins.
	byKey := make(map[schema.GroupKind]*policykind.Kind, len(kinds))
	for _, k := range kinds {
		byKey[k.Key()] = k
	}
	for _, crd := range crds {
		if k := byKey[policykind.DefinedKind(crd)]; k != nil {
			if max, ok := policykind.AncestorsMaxItems(crd); ok {
				k.MaxAncestors = max
			}
			if plural := policykind.CRDPlural(crd); plural != "" {
				k.Plural = plural
			}
		}
	}
	sort.Slice(kinds, func(i, j int) bool {
		return strings.Compare(kinds[i].Group+"/"+kinds[i].Kind, kinds[j].Group+"/"+kinds[j].Kind) < 0
	})
	return spacesAgree(kinds, errs)
}

// warn sets Warnings: the schemas', then one per undeclared kind, sorted.
func (res *Result) warn() {
	res.Warnings = slices.Clone(res.schemaWarnings)
	for _, gk := range slices.SortedFunc(maps.Keys(res.undeclared), func(a, b schema.GroupKind) int {
		return strings.Compare(a.String(), b.String())
	}) {
		res.Warnings = append(res.Warnings, fmt.Errorf("%s is not a declared policy kind: %d of its objects skipped; %s", gk, res.undeclared[gk], howToDeclare))
	}
}

// spacesAgree keeps the kinds of a value space only when they can fold
// together (the same effective targets and contexts, one kind a rank);
// the others are dropped with an error naming both declarations.
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
