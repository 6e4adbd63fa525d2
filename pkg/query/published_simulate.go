package query

import (
	"cmp"
	"slices"
	"strings"

	stratav1 "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/query/routing"
)

// AssumeRoute fills sim, undecided, for the route the user expects, from
// records: for a user who may not read the routing objects, its own rules
// are followed and the effective policies of its contexts read from the
// published records.
func AssumeRoute(sim *Simulation, res *engine.Result, records []*stratav1.EffectivePolicy, route topology.Ref, gateway string) {
	ref := route.API()
	sim.Assumed = &ref
	rule := ""
	var backends []string
	if n := res.Graph.Lookup(route); n != topology.None {
		tr := routing.Within(res.Graph, sim.Request, n)
		sim.Steps, sim.Failure = tr.Steps, tr.Failure
		if sim.Steps == nil {
			sim.Steps = []routing.Step{}
		}
		if tr.Failure == "" {
			r, m := res.Graph.Node(tr.Rule).Ref.API(), tr.Match
			sim.Rule, sim.Match = &r, &m
			sim.Condition, sim.Hostname, sim.Outcome, sim.Backends = tr.Condition, tr.Hostname, tr.Outcome, tr.Backends
			rule = r.SectionName
			for _, b := range tr.Backends {
				backends = append(backends, b.Ref.Key())
				o := b.Ref
				o.SectionName = ""
				backends = append(backends, o.Key())
			}
		}
	}
	if sim.Failure != "" {
		return // the route does not handle it: no context of its is the request's
	}
	ofRoute := func(r stratav1.Ref) bool {
		return r.Group == ref.Group && r.Kind == ref.Kind && r.Namespace == ref.Namespace && r.Name == ref.Name
	}
	onRule := func(r stratav1.Ref) bool {
		return ofRoute(r) && (r.SectionName == "" || rule == "" || r.SectionName == rule)
	}
	gw, gwName, _ := strings.Cut(gateway, "/")
	through := func(path []stratav1.Ref) bool {
		if gateway == "" {
			return true
		}
		return slices.ContainsFunc(path, func(r stratav1.Ref) bool {
			return r.Group == hierarchy.GatewayGroup && r.Kind == "Gateway" && r.Namespace == gw && r.Name == gwName
		})
	}
	// A context is the request's when it reaches the route (and the chosen rule).
	ours := func(target stratav1.Ref, path []stratav1.Ref) bool {
		if !through(path) {
			return false
		}
		if ofRoute(target) {
			return onRule(target)
		}
		if !slices.ContainsFunc(path, ofRoute) || slices.ContainsFunc(path, func(r stratav1.Ref) bool { return ofRoute(r) && !onRule(r) }) {
			return false
		}
		return backends == nil || slices.Contains(backends, target.Key())
	}
	effects := map[GroupKind]*KindEffect{}
	for _, r := range records {
		for i := range r.Policies {
			kp := &r.Policies[i]
			gk := GroupKind{Group: kp.Group, Kind: kp.Kind}
			if kp.Visibility == string(stratav1.VisibilityKind) {
				if ofRoute(r.Target) && onRule(r.Target) || backends != nil && slices.Contains(backends, r.Target.Key()) {
					sim.Withheld = append(sim.Withheld, Withheld{GroupKind: gk, Target: r.Target, Policies: kp.PolicyCount})
				}
				continue
			}
			te := TargetEffect{Target: r.Target}
			for _, c := range kp.Contexts {
				if ours(r.Target, c.Path) {
					te.Contexts = append(te.Contexts, recordContext(c))
				}
			}
			addEffect(effects, res, gk, te)
		}
	}
	rank := func(r stratav1.Ref) string {
		switch {
		case ofRoute(r) && r.SectionName == "":
			return "0"
		case ofRoute(r):
			return "1" + r.Key()
		}
		return "2" + r.Key()
	}
	sim.Effective = withEffects(sim.Effective, effects, func(a, b TargetEffect) int { return strings.Compare(rank(a.Target), rank(b.Target)) })
	slices.SortStableFunc(sim.Withheld, func(a, b Withheld) int {
		return strings.Compare(a.Group+"/"+a.Kind+" "+rank(a.Target), b.Group+"/"+b.Kind+" "+rank(b.Target))
	})
}

// Simulate adds what the records say of the covered kinds on the request's way.
func (p *Published) Simulate(sim *Simulation, res *engine.Result) {
	if sim.Failure != "" || sim.Undecided != "" {
		return
	}
	order := map[string]int{}
	add := func(r stratav1.Ref) {
		if _, ok := order[r.Key()]; !ok {
			order[r.Key()] = len(order)
		}
	}
	for _, r := range sim.Path {
		if r.Group != hierarchy.CoreGroup || r.Kind != "Namespace" {
			add(r)
		}
	}
	if sim.Response == nil {
		for _, b := range sim.Backends {
			if b.Node == topology.None {
				continue
			}
			if b.Ref.SectionName != "" {
				o := b.Ref
				o.SectionName = ""
				add(o)
			}
			add(b.Ref)
		}
	}
	onPath := func(path []stratav1.Ref) bool {
		for _, r := range path {
			if _, ok := order[r.Key()]; !ok && (r.Group != hierarchy.CoreGroup || r.Kind != "Namespace") {
				return false
			}
		}
		return true
	}
	effects := map[GroupKind]*KindEffect{}
	for _, e := range p.entries() {
		if _, ok := order[e.target.Key()]; !ok {
			continue
		}
		gk := GroupKind{Group: e.kp.Group, Kind: e.kp.Kind}
		if e.kp.Visibility == string(stratav1.VisibilityKind) {
			sim.Withheld = append(sim.Withheld, Withheld{GroupKind: gk, Target: e.target, Policies: e.kp.PolicyCount})
			continue
		}
		te := TargetEffect{Target: e.target}
		for _, c := range e.kp.Contexts {
			if onPath(c.Path) {
				te.Contexts = append(te.Contexts, recordContext(c))
			}
		}
		addEffect(effects, res, gk, te)
	}
	sim.Effective = withEffects(sim.Effective, effects, func(a, b TargetEffect) int { return order[a.Target.Key()] - order[b.Target.Key()] })
	slices.SortStableFunc(sim.Withheld, func(a, b Withheld) int {
		return cmp.Or(strings.Compare(a.Group+"/"+a.Kind, b.Group+"/"+b.Kind), order[a.Target.Key()]-order[b.Target.Key()])
	})
}
