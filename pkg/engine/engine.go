package engine

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-dev/strata/pkg/attach"
	"github.com/strata-dev/strata/pkg/effective"
	"github.com/strata-dev/strata/pkg/merge"
	"github.com/strata-dev/strata/pkg/outcome"
	"github.com/strata-dev/strata/pkg/policykind"
	"github.com/strata-dev/strata/pkg/snapshot"
	"github.com/strata-dev/strata/pkg/topology"
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
	// Scope is nil for a complete result. A result of RunScoped holds the
	// nodes its question is about: Effective then has only the effective
	// targets among them, and Outcome is nil.
	Scope []topology.NodeID

	opts       Options
	kindErrors []error
	byKind     [][]*policykind.Policy // per entry of Kinds
	outcomes   []*outcome.Outcome     // per entry of Kinds
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
func (r *Result) Recompute(policies []*unstructured.Unstructured, dirty map[policykind.GroupKind]bool) (*Result, error) {
	if r.Scope != nil {
		return nil, errors.New("engine: Recompute needs a complete result, not one of RunScoped")
	}
	res := &Result{Graph: r.Graph, Kinds: r.Kinds, kindErrors: r.kindErrors, opts: r.opts}
	if err := res.run(policies, dirty, r, nil); err != nil {
		return nil, err
	}
	return res, nil
}

// run reads the policies and computes every kind, or, with prev, only the
// dirty kinds; with scope (see RunScoped), only the effective targets in
// the nodes it names, without outcome.
func (res *Result) run(policies []*unstructured.Unstructured, dirty map[policykind.GroupKind]bool, prev *Result, scope func(*Result) []topology.NodeID) error {
	res.Errors = append([]error(nil), res.kindErrors...)
	byKind := map[policykind.GroupKind][]*policykind.Policy{}
	for _, u := range policies {
		gk := policykind.GroupKind{Group: u.GroupVersionKind().Group, Kind: u.GetKind()}
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
		byKind[gk] = append(byKind[gk], k.Read(u))
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
	for i, k := range res.Kinds {
		if prev != nil && !dirty[k.Key()] {
			res.Attachments = append(res.Attachments, prev.Attachments[i])
			res.Effective = append(res.Effective, prev.Effective[i])
			res.outcomes = append(res.outcomes, prev.outcomes[i])
			continue
		}
		ps := res.byKind[i]
		funcs, err := res.opts.Registry.Funcs(k)
		if err != nil {
			return err
		}
		att := attach.Resolve(res.Graph, ps)
		eff := effective.ComputeOnly(res.Graph, k, att, funcs, in)
		res.Attachments = append(res.Attachments, att)
		res.Effective = append(res.Effective, eff)
		if in == nil {
			res.outcomes = append(res.outcomes, outcome.Compute(res.Graph, ps, []*attach.Result{att}, []*effective.Result{eff}))
		}
	}
	if in == nil {
		res.Outcome = outcome.Merge(res.Graph, res.outcomes...)
	}
	return nil
}

// Kinds compiles the declarations of a snapshot: PolicyKind objects, then
// labelled CRDs for kinds no PolicyKind declares. Two PolicyKinds for one
// kind are an error. Declarations without a controllerName get
// controllerName (if not empty). The kinds that compiled are returned
// with the errors of the others.
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
	seen := map[policykind.GroupKind]string{}
	var kinds []*policykind.Kind
	for _, d := range s.Declarations {
		k, err := compile(d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if prev, dup := seen[k.Key()]; dup {
			errs = append(errs, fmt.Errorf("PolicyKind %s: declares %s, already declared by PolicyKind %s", d.Name, k.Key(), prev))
			continue
		}
		k.Source = "PolicyKind " + d.Name
		seen[k.Key()] = d.Name
		kinds = append(kinds, k)
	}
	for _, crd := range s.PolicyCRDs {
		d, err := policykind.FromCRD(crd)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		gk := policykind.GroupKind{Group: d.Spec.Group, Kind: d.Spec.Kind}
		if _, declared := seen[gk]; declared {
			continue
		}
		k, err := compile(d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		k.Source = "CustomResourceDefinition " + crd.GetName()
		seen[gk] = d.Name
		kinds = append(kinds, k)
	}
	// A kind's CRD, when known, bounds status.ancestors (status.Limit).
	for _, crd := range append(slices.Clip(s.PolicyCRDs), s.SchemaCRDs...) {
		group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
		if max, ok := policykind.AncestorsMaxItems(crd); ok {
			for _, k := range kinds {
				if k.Group == group && k.Kind == kind {
					k.MaxAncestors = max
				}
			}
		}
	}
	sort.Slice(kinds, func(i, j int) bool {
		return strings.Compare(kinds[i].Group+"/"+kinds[i].Kind, kinds[j].Group+"/"+kinds[j].Kind) < 0
	})
	return kinds, errs
}

func id(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}
