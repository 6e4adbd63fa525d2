package engine

import (
	"errors"
	"fmt"
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
func Run(s *snapshot.Snapshot, opts Options) (*Result, error) {
	if opts.Registry == nil {
		opts.Registry = merge.DefaultRegistry()
	}
	kinds, kindErrs := Kinds(s, opts.ControllerName)
	if len(kindErrs) > 0 && !opts.Lenient {
		return nil, errors.Join(kindErrs...)
	}
	res := &Result{Graph: topology.Build(s), Kinds: kinds, kindErrors: kindErrs, opts: opts}
	if err := res.run(s.Policies, nil, nil); err != nil {
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
	res := &Result{Graph: r.Graph, Kinds: r.Kinds, kindErrors: r.kindErrors, opts: r.opts}
	if err := res.run(policies, dirty, r); err != nil {
		return nil, err
	}
	return res, nil
}

// run reads the policies and computes every kind, or, with prev, only the
// dirty kinds.
func (res *Result) run(policies []*unstructured.Unstructured, dirty map[policykind.GroupKind]bool, prev *Result) error {
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
			res.Attachments = append(res.Attachments, prev.Attachments[i])
			res.Effective = append(res.Effective, prev.Effective[i])
			res.outcomes = append(res.outcomes, prev.outcomes[i])
			continue
		}
		ps := byKind[k.Key()]
		sort.Slice(ps, func(i, j int) bool { return ps[i].ID() < ps[j].ID() })
		funcs, err := res.opts.Registry.Funcs(k)
		if err != nil {
			return err
		}
		att := attach.Resolve(res.Graph, ps)
		eff := effective.Compute(res.Graph, k, att, funcs)
		res.byKind = append(res.byKind, ps)
		res.Attachments = append(res.Attachments, att)
		res.Effective = append(res.Effective, eff)
		res.outcomes = append(res.outcomes, outcome.Compute(res.Graph, ps, []*attach.Result{att}, []*effective.Result{eff}))
	}
	for _, ps := range res.byKind {
		res.Policies = append(res.Policies, ps...)
	}
	res.Outcome = outcome.Merge(res.Graph, res.outcomes...)
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
