package effective

import (
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
// in between, Conflicted when the None strategy rejected it. It also names
// the other policies involved (the winner of a conflict, or the policies
// that set the fields this one lost) and the fields it lost, as JSON
// pointers (GEP-713 "PartiallyEnforced": "details highlighting which parts
// ... have been superseded, with the references to all other related
// metaresources").
func (o *Folded) Standing(p *policykind.Policy) (st Standing, others, lost []string) {
	// Folded values are shared by every context with the same stack, so the
	// answer is computed once per outcome and policy.
	if r, ok := o.standings[p]; ok {
		return r.st, r.others, r.lost
	}
	st, others, lost = o.standing(p)
	if o.standings == nil {
		o.standings = map[*policykind.Policy]standingResult{}
	}
	o.standings[p] = standingResult{st, others, lost}
	return st, others, lost
}

type standingResult struct {
	st           Standing
	others, lost []string
}

func (o *Folded) standing(p *policykind.Policy) (st Standing, others, lost []string) {
	if w, conflicted := o.Conflicted[p]; conflicted {
		return Conflicted, []string{w.ID()}, nil
	}
	owners := o.owners()
	leaves := o.leavesOf(p)
	if len(leaves) == 0 {
		// A policy that sets no field loses none, yet it is superseded as
		// a whole when a more specific spec replaces it (an atomic merge,
		// None on a more specific target): Overridden, as Envoy Gateway
		// reports a replaced policy whatever its spec holds.
		if by, ok := o.replaced[p]; ok {
			return Overridden, []string{by.ID()}, nil
		}
		return Enforced, nil, nil
	}
	keys := o.sortedKeys()
	prov := o.Result.Prov
	for _, ptr := range leaves {
		if !o.covers(keys, p, ptr) {
			lost = append(lost, ptr)
		}
	}
	if len(lost) == 0 {
		return Enforced, nil, nil
	}
	// The others are the sources of the pointers at, below or above a
	// lost one: looked up in the sorted pointers and by the lost
	// pointer's prefixes, not by scanning every owner's pointers for
	// every lost one (cubic with thousands of policies on one target,
	// issue 11 "No cliffs").
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
		// replaced p's, or whoever replaced that one in turn (one name,
		// not every policy in force: naming them all made thousands of
		// atomic policies on one target quadratic, issue 11 "No cliffs").
		if by, ok := o.replacer(p); ok {
			return standingOf(len(lost), len(leaves)), []string{by.ID()}, lost
		}
		for q := range owners {
			if q != p && q != nil {
				others = append(others, q.ID())
			}
		}
	}
	sort.Strings(others)
	return standingOf(len(lost), len(leaves)), others, lost
}

// standingOf is Overridden when every field is lost, else
// PartiallyEnforced.
func standingOf(lost, leaves int) Standing {
	if lost == leaves {
		return Overridden
	}
	return PartiallyEnforced
}

// replacer follows replaced from p to the policy whose spec took the
// place of p's and was not replaced in turn, compressing the chain so that
// a stack of n atomic replacements costs O(n) over all its policies.
func (o *Folded) replacer(p *policykind.Policy) (*policykind.Policy, bool) {
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
	o.replaced[p] = by
	for _, q := range chain {
		o.replaced[q] = by
	}
	return by, true
}

// Contributes reports whether p set at least one field of the result: the
// test for "affected by" (GEP-713 Examples 2 and 3: a target is affected
// by the policies whose settings reach it in some context).
func (o *Folded) Contributes(p *policykind.Policy) bool { return len(o.owners()[p]) > 0 }

func (o *Folded) owners() map[*policykind.Policy][]string {
	if o.owned == nil {
		o.owned = map[*policykind.Policy][]string{}
		for ptr, s := range o.Result.Prov {
			o.owned[PolicyOf(s)] = append(o.owned[PolicyOf(s)], ptr)
		}
	}
	return o.owned
}

// leavesOf is Leaves, computed once per policy for all the outcomes of one
// computation.
func (o *Folded) leavesOf(p *policykind.Policy) []string {
	if o.leaves == nil {
		return Leaves(p)
	}
	l, ok := o.leaves[p]
	if !ok {
		l = Leaves(p)
		o.leaves[p] = l
	}
	return l
}

// Leaves lists the fields a policy sets, over all its blocks, sorted.
func Leaves(p *policykind.Policy) []string {
	set := map[string]bool{}
	for _, b := range p.Blocks {
		merge.Leaves(b.Values, "", func(ptr string) { set[ptr] = true })
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
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

// below calls fn with every key of the sorted keys strictly below ptr: a
// field (ptr/...) or a list item (ptr[...]). Both are contiguous runs of
// the sorted keys, found by binary search.
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

// sortedKeys is the result's pointers, sorted, computed once per outcome.
func (o *Folded) sortedKeys() []string {
	if o.keys == nil {
		o.keys = make([]string, 0, len(o.Result.Prov))
		for k := range o.Result.Prov {
			o.keys = append(o.keys, k)
		}
		slices.Sort(o.keys)
	}
	return o.keys
}
