package engine

import (
	"errors"
	"fmt"
	"sort"
	"strings"

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
	res := &Result{Graph: topology.Build(s), Kinds: kinds, Errors: kindErrs}
	byKind := map[policykind.GroupKind][]*policykind.Policy{}
	for _, u := range s.Policies {
		gk := policykind.GroupKind{Group: u.GroupVersionKind().Group, Kind: u.GetKind()}
		k := res.KindOf(gk.Group, gk.Kind)
		if k == nil {
			err := fmt.Errorf("%s %s: %s is not a declared policy kind", u.GetKind(), id(u.GetNamespace(), u.GetName()), gk)
			if !opts.Lenient {
				return nil, err
			}
			res.Errors = append(res.Errors, err)
			continue
		}
		byKind[gk] = append(byKind[gk], k.Read(u))
		// A policy's namespace exists even when nothing else in the input
		// lives there, so a policy can always target its own namespace.
		res.Graph.EnsureNamespace(u.GetNamespace())
	}
	for _, k := range kinds {
		ps := byKind[k.Key()]
		sort.Slice(ps, func(i, j int) bool { return ps[i].ID() < ps[j].ID() })
		res.Policies = append(res.Policies, ps...)
		funcs, err := opts.Registry.Funcs(k)
		if err != nil {
			return nil, err
		}
		att := attach.Resolve(res.Graph, ps)
		res.Attachments = append(res.Attachments, att)
		res.Effective = append(res.Effective, effective.Compute(res.Graph, k, att, funcs))
	}
	res.Outcome = outcome.Compute(res.Graph, res.Policies, res.Attachments, res.Effective)
	return res, nil
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
