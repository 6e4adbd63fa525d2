package effective

import (
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/strata-dev/strata/pkg/engine/merge"
	"github.com/strata-dev/strata/pkg/engine/policykind"
)

// Standing is what became of a policy in one context.
type Standing string

// Standings, named after the policy conditions they roll up into (GEP-713
// "Metaresource status").
const (
	Enforced          Standing = "Enforced"
	PartiallyEnforced Standing = "PartiallyEnforced"
	Overridden        Standing = "Overridden"
	Conflicted        Standing = "Conflicted"
)

// Standing classifies a policy of the stack: Enforced when every field it
// sets is in the result as its own, Overridden when none is, Partially
// in between, Conflicted when the None strategy rejected it; with the
// other policies involved and the fields it lost (GEP-713
// "PartiallyEnforced": "details highlighting which parts ... have been
// superseded").
func (o *Folded) Standing(p *policykind.Policy) (st Standing, others, lost []string) {
	if r := o.frozen(p); r != nil {
		return r.st, r.others, r.lost
	}
	return o.standing(p, nil)
}

// standingResult is a policy's standing as freeze found it, and whether
// it sets a field of the result (Contributes).
type standingResult struct {
	p            *policykind.Policy
	st           Standing
	others, lost []string
	contributes  bool
}

// frozen is p's standing as freeze found it, nil for a policy not in the
// stack: scanned for, or indexed in a long stack (issue 11, "No cliffs").
func (o *Folded) frozen(p *policykind.Policy) *standingResult {
	if o.byPolicy != nil {
		if i, ok := o.byPolicy[p]; ok {
			return &o.standings[i]
		}
		return nil
	}
	for i := range o.standings {
		if o.standings[i].p == p {
			return &o.standings[i]
		}
	}
	return nil
}

// fewStandings is the most standings a Folded scans for a policy's.
const fewStandings = 16

// freeze completes a Folded before anyone else reads it: the standing of
// every policy of its stack, in stack order, once per Folded, with the
// indexes they need.
func (c *computer) freeze(o *Folded, entries []*Entry) *Folded {
	o.standings = make([]standingResult, 0, len(entries))
	var owners map[*policykind.Policy]bool // who sets a field, for a long stack
	for _, e := range entries {
		p := e.Policy()
		if o.frozen(p) != nil {
			continue
		}
		st, others, lost := o.standing(p, c.leaves)
		o.standings = append(o.standings, standingResult{p: p, st: st, others: others, lost: lost})
		if len(o.standings) > fewStandings && o.byPolicy == nil {
			o.byPolicy = make(map[*policykind.Policy]int, len(entries))
			for i, r := range o.standings {
				o.byPolicy[r.p] = i
			}
			owners = map[*policykind.Policy]bool{}
			for _, s := range o.Result.Prov {
				owners[PolicyOf(s)] = true
			}
		} else if o.byPolicy != nil {
			o.byPolicy[p] = len(o.standings) - 1
		}
	}
	for i := range o.standings {
		r := &o.standings[i]
		if owners != nil {
			r.contributes = owners[r.p]
		} else {
			r.contributes = o.sets(r.p)
		}
	}
	return o
}

// sets reports whether p set a field of the result.
func (o *Folded) sets(p *policykind.Policy) bool {
	for _, s := range o.Result.Prov {
		if PolicyOf(s) == p {
			return true
		}
	}
	return false
}

// standing classifies p (see Standing). With leaves (freeze) it caches
// each policy's leaves there, keeps its indexes in o and compresses
// replacement chains; without, it writes nothing.
func (o *Folded) standing(p *policykind.Policy, leaves map[*policykind.Policy][]string) (st Standing, others, lost []string) {
	if w, conflicted := o.Conflicted[p]; conflicted {
		return Conflicted, []string{w.ID()}, nil
	}
	building := leaves != nil
	pl := leavesOf(p, leaves)
	if len(pl) == 0 {
		// A policy that sets no field is Overridden when a more specific
		// spec replaces it whole (as Envoy Gateway reports it).
		if by, ok := o.replaced[p]; ok {
			return Overridden, []string{by.ID()}, nil
		}
		return Enforced, nil, nil
	}
	keys := o.keys
	if keys == nil {
		keys = slices.Sorted(maps.Keys(o.Result.Prov))
		if building {
			o.keys = keys
		}
	}
	prov := o.Result.Prov
	for i, ptr := range pl {
		if !o.covers(keys, p, ptr) {
			if lost == nil {
				lost = make([]string, 0, len(pl)-i)
			}
			lost = append(lost, ptr)
		}
	}
	if len(lost) == 0 {
		return Enforced, nil, nil
	}
	// The others are the sources of the pointers at, below or above a
	// lost one, looked up (issue 11, "No cliffs").
	found := map[*policykind.Policy]bool{}
	add := func(s merge.Source) {
		q := PolicyOf(s)
		if q != p && q != nil && !found[q] {
			found[q] = true
			others = append(others, q.ID())
		}
	}
	for _, ptr := range lost {
		if q, ok := prov[ptr]; ok {
			add(q)
		}
		below(keys, ptr, func(k string) { add(prov[k]) })
		for i := 0; i < len(ptr); i++ {
			if (ptr[i] == '/' || ptr[i] == '[') && merge.Below(ptr, ptr[:i]) {
				if q, ok := prov[ptr[:i]]; ok {
					add(q)
				}
			}
		}
	}
	if len(others) == 0 {
		// Fields removed whole by an atomic winner: the policy whose spec
		// replaced p's in the end.
		if by, ok := o.replacer(p, building); ok {
			return standingOf(len(lost), len(pl)), []string{by.ID()}, lost
		}
		for _, s := range o.Result.Prov {
			add(s)
		}
	}
	sort.Strings(others)
	return standingOf(len(lost), len(pl)), others, lost
}

// standingOf is Overridden when every field is lost, else Partially.
func standingOf(lost, leaves int) Standing {
	if lost == leaves {
		return Overridden
	}
	return PartiallyEnforced
}

// replacer follows replaced from p to the policy whose spec took the
// place of p's and was not replaced in turn, compressing the chain while
// the Folded is built (compress).
func (o *Folded) replacer(p *policykind.Policy, compress bool) (*policykind.Policy, bool) {
	by, ok := o.replaced[p]
	if !ok {
		return nil, false
	}
	var chain []*policykind.Policy
	for range len(o.replaced) {
		next, ok := o.replaced[by]
		if !ok || next == by {
			break
		}
		chain = append(chain, by)
		by = next
	}
	if compress {
		o.replaced[p] = by
		for _, q := range chain {
			o.replaced[q] = by
		}
	}
	return by, true
}

// Contributes reports whether p set at least one field of the result: the
// test for "affected by" (GEP-713 Examples 2 and 3: a target is affected
// by the policies whose settings reach it in some context).
func (o *Folded) Contributes(p *policykind.Policy) bool {
	if r := o.frozen(p); r != nil {
		return r.contributes
	}
	return o.sets(p)
}

// leavesOf is Leaves, computed once per policy for all the outcomes of one
// computation when given its cache.
func leavesOf(p *policykind.Policy, cache map[*policykind.Policy][]string) []string {
	if cache == nil {
		return Leaves(p)
	}
	l, ok := cache[p]
	if !ok {
		l = Leaves(p)
		cache[p] = l
	}
	return l
}

// Leaves lists the fields a policy sets, over all its blocks, sorted.
func Leaves(p *policykind.Policy) []string {
	set := map[string]bool{}
	for _, b := range p.Blocks {
		merge.Leaves(b.Values, "", func(ptr string) { set[ptr] = true })
	}
	return slices.Sorted(maps.Keys(set))
}

// covers reports whether p owns ptr or something below it (custom merges
// track list items as /list[key=value]).
func (o *Folded) covers(keys []string, p *policykind.Policy, ptr string) bool {
	if s, ok := o.Result.Prov[ptr]; ok && s == p {
		return true
	}
	hit := false
	below(keys, ptr, func(k string) { hit = hit || o.Result.Prov[k] == p })
	return hit
}

// below calls fn with every key of the sorted keys strictly below ptr
// (ptr/... or ptr[...]), found by binary search.
func below(keys []string, ptr string, fn func(string)) {
	for _, prefix := range [2]string{ptr + "/", ptr + "["} {
		i, _ := slices.BinarySearch(keys, prefix)
		for ; i < len(keys) && strings.HasPrefix(keys[i], prefix); i++ {
			if merge.Below(keys[i], ptr) { // not a key that merely contains "["
				fn(keys[i])
			}
		}
	}
}
