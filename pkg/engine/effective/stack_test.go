package effective_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/strata-dev/strata/pkg/engine/attach"
	"github.com/strata-dev/strata/pkg/engine/effective"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/merge"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Nodes of the hand-built stacks below. Only their identity matters to
// the fold (None conflicts are between policies attached at one node).
const (
	nsNode topology.NodeID = iota + 1
	gwNode
	routeNode
)

// at is one policy attached at one node, with all its blocks: a row of
// the stacks the tests below order and fold by hand, without a graph, as
// the blueprint renderer does through effective.Fold.
type at struct {
	name   string
	day    int // creationTimestamp: 2026-01-<day>
	node   topology.NodeID
	level  hierarchy.Level
	rank   int
	blocks []policykind.Block
}

func block(base policykind.Base, atomicity string, vals map[string]any) policykind.Block {
	field := "spec." + strings.ToLower(string(base))
	return policykind.Block{Strategy: policykind.Strategy{Base: base, Atomicity: atomicity}, Field: field, Values: vals}
}

func def(atomicity string, vals map[string]any) policykind.Block {
	return block(policykind.Defaults, atomicity, vals)
}

func ovr(atomicity string, vals map[string]any) policykind.Block {
	return block(policykind.Overrides, atomicity, vals)
}

func none(vals map[string]any) policykind.Block { return block(policykind.None, "", vals) }

// stack builds the entries of the rows, in the order given, and the
// policies by name.
func stack(rows []at) ([]*effective.Entry, map[string]*policykind.Policy) {
	byName := map[string]*policykind.Policy{}
	var out []*effective.Entry
	for _, r := range rows {
		p := &policykind.Policy{Namespace: "ns", Name: r.name, Created: time.Date(2026, 1, r.day, 0, 0, 0, 0, time.UTC), Blocks: r.blocks}
		byName[r.name] = p
		a := &attach.Attachment{Policy: p, Node: r.node}
		for i := range p.Blocks {
			b := &p.Blocks[i]
			out = append(out, &effective.Entry{Attachment: a, Rank: r.rank, Level: r.level, Block: b, Value: merge.Of(b.Values, p)})
		}
	}
	return out, byName
}

func funcs() map[string]merge.Func {
	return map[string]merge.Func{policykind.Atomic: merge.Atomic, policykind.Patch: merge.Patch}
}

// names lists a stack as name/base, least specific first.
func names(entries []*effective.Entry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Policy().Name+"/"+string(e.Block.Strategy.Base))
	}
	return out
}

// TestOrder checks the stack order effective.Order gives, least specific
// first, so that the fold lets the last entry of each pair win.
func TestOrder(t *testing.T) {
	lvlGW, lvlRoute := hierarchy.LevelGateway, hierarchy.LevelRoute
	for _, c := range []struct {
		name string
		rows []at
		want []string
	}{{
		// GEP-713 "Conflict resolution rules": a policy attached to a
		// less specific kind comes first, whatever the input order.
		name: `GEP-713 "Conflict resolution rules": levels, least specific first`,
		rows: []at{
			{name: "route", day: 1, node: routeNode, level: lvlRoute, blocks: []policykind.Block{def("Patch", map[string]any{"a": 1})}},
			{name: "gw", day: 2, node: gwNode, level: lvlGW, blocks: []policykind.Block{def("Patch", map[string]any{"a": 2})}},
			{name: "ns", day: 3, node: nsNode, level: hierarchy.LevelNamespace, blocks: []policykind.Block{def("Patch", map[string]any{"a": 3})}},
		},
		want: []string{"ns/Defaults", "gw/Defaults", "route/Defaults"},
	}, {
		// 001 "Hierarchy": "A override > B override > C override > C
		// default > B default > A default": within a level the
		// overrides come before (lose the pair to nothing below) the
		// defaults.
		name: `001 "Hierarchy": overrides before defaults within a level`,
		rows: []at{
			{name: "d", day: 1, node: gwNode, level: lvlGW, blocks: []policykind.Block{def("Patch", map[string]any{"a": 1})}},
			{name: "o", day: 2, node: gwNode, level: lvlGW, blocks: []policykind.Block{ovr("Patch", map[string]any{"a": 2})}},
		},
		want: []string{"o/Overrides", "d/Defaults"},
	}, {
		// GEP-713 "Conflict resolution rules": the older policy wins. An
		// override wins by coming first, a default by coming last.
		name: `GEP-713 "Conflict resolution rules": older override first`,
		rows: []at{
			{name: "new", day: 2, node: gwNode, level: lvlGW, blocks: []policykind.Block{ovr("Patch", map[string]any{"a": 1})}},
			{name: "old", day: 1, node: gwNode, level: lvlGW, blocks: []policykind.Block{ovr("Patch", map[string]any{"a": 2})}},
		},
		want: []string{"old/Overrides", "new/Overrides"},
	}, {
		name: `GEP-713 "Conflict resolution rules": older default last`,
		rows: []at{
			{name: "old", day: 1, node: gwNode, level: lvlGW, blocks: []policykind.Block{def("Patch", map[string]any{"a": 1})}},
			{name: "new", day: 2, node: gwNode, level: lvlGW, blocks: []policykind.Block{def("Patch", map[string]any{"a": 2})}},
		},
		want: []string{"new/Defaults", "old/Defaults"},
	}, {
		// Same creationTimestamp: "the policy appearing first in
		// alphabetical order by {namespace}/{name}" wins.
		name: `GEP-713 "Conflict resolution rules": same timestamp, first by namespace/name wins`,
		rows: []at{
			{name: "a", day: 1, node: gwNode, level: lvlGW, blocks: []policykind.Block{def("Patch", map[string]any{"x": 1})}},
			{name: "b", day: 1, node: gwNode, level: lvlGW, blocks: []policykind.Block{def("Patch", map[string]any{"x": 2})}},
			{name: "d", day: 1, node: gwNode, level: lvlGW, blocks: []policykind.Block{ovr("Patch", map[string]any{"y": 2})}},
			{name: "c", day: 1, node: gwNode, level: lvlGW, blocks: []policykind.Block{ovr("Patch", map[string]any{"y": 1})}},
		},
		want: []string{"c/Overrides", "d/Overrides", "b/Defaults", "a/Defaults"},
	}, {
		// policykind.ValueSpace: the rank of a kind in its value space
		// orders entries before the level does.
		name: "value space rank before level",
		rows: []at{
			{name: "tenant-ns", day: 1, node: nsNode, level: hierarchy.LevelNamespace, rank: 1, blocks: []policykind.Block{def("Patch", map[string]any{"a": 1})}},
			{name: "platform-route", day: 2, node: routeNode, level: lvlRoute, rank: 0, blocks: []policykind.Block{def("Patch", map[string]any{"a": 2})}},
		},
		want: []string{"platform-route/Defaults", "tenant-ns/Defaults"},
	}, {
		// One policy's blocks: its overrides before its defaults, and
		// the blocks of another policy of the same level around them by
		// conflict order.
		name: `001 "Conflict Resolution": one policy with both blocks`,
		rows: []at{
			{name: "both", day: 1, node: gwNode, level: lvlGW, blocks: []policykind.Block{def("Patch", map[string]any{"a": 1}), ovr("Patch", map[string]any{"b": 1})}},
			{name: "later", day: 2, node: gwNode, level: lvlGW, blocks: []policykind.Block{ovr("Patch", map[string]any{"b": 2}), def("Patch", map[string]any{"a": 2})}},
		},
		want: []string{"both/Overrides", "later/Overrides", "later/Defaults", "both/Defaults"},
	}} {
		t.Run(c.name, func(t *testing.T) {
			entries, _ := stack(c.rows)
			effective.Order(entries)
			if got := names(entries); !reflect.DeepEqual(got, c.want) {
				t.Errorf("order = %v, want %v", got, c.want)
			}
		})
	}
}

// standing is what Folded.Standing says of one policy.
type standing struct {
	st           effective.Standing
	others, lost []string
}

// TestFold folds hand-built stacks through effective.Fold, the entry
// point the blueprint renderer uses, and checks the merged values, who
// set each leaf, the None conflicts and each policy's standing.
func TestFold(t *testing.T) {
	lvlNS, lvlGW, lvlRoute := hierarchy.LevelNamespace, hierarchy.LevelGateway, hierarchy.LevelRoute
	type m = map[string]any
	for _, c := range []struct {
		name       string
		rows       []at
		want       m
		prov       map[string]string // leaf -> policy name, for the leaves listed
		conflicted map[string]string // loser -> winner
		standings  map[string]standing
	}{{
		name: `004 "Merge strategies" None: two policies on one target, the older wins, the other is rejected`,
		rows: []at{
			{name: "new", day: 2, node: gwNode, level: lvlGW, blocks: []policykind.Block{none(m{"a": "new"})}},
			{name: "old", day: 1, node: gwNode, level: lvlGW, blocks: []policykind.Block{none(m{"a": "old"})}},
			{name: "newest", day: 3, node: gwNode, level: lvlGW, blocks: []policykind.Block{none(m{"b": "newest"})}},
		},
		want:       m{"a": "old"},
		prov:       map[string]string{"/a": "old"},
		conflicted: map[string]string{"new": "old", "newest": "old"},
		standings: map[string]standing{
			"old":    {st: effective.Enforced},
			"new":    {st: effective.Conflicted, others: []string{"ns/old"}},
			"newest": {st: effective.Conflicted, others: []string{"ns/old"}},
		},
	}, {
		// 001 "Targeting sections": the more specific target wins; under
		// None it replaces the less specific spec whole.
		name: `004 "Merge strategies" None: a more specific target replaces the spec`,
		rows: []at{
			{name: "gw", day: 1, node: gwNode, level: lvlGW, blocks: []policykind.Block{none(m{"a": "gw", "b": "gw"})}},
			{name: "route", day: 2, node: routeNode, level: lvlRoute, blocks: []policykind.Block{none(m{"a": "route"})}},
		},
		want: m{"a": "route"},
		prov: map[string]string{"/a": "route"},
		standings: map[string]standing{
			"gw":    {st: effective.Overridden, others: []string{"ns/route"}, lost: []string{"/a", "/b"}},
			"route": {st: effective.Enforced},
		},
	}, {
		name: `GEP-713 "Atomic spec": Atomic Defaults, the more specific spec wins whole`,
		rows: []at{
			{name: "gw", day: 1, node: gwNode, level: lvlGW, blocks: []policykind.Block{def("Atomic", m{"a": "gw", "b": "gw"})}},
			{name: "route", day: 2, node: routeNode, level: lvlRoute, blocks: []policykind.Block{def("Atomic", m{"a": "route"})}},
		},
		want: m{"a": "route"},
		standings: map[string]standing{
			"gw":    {st: effective.Overridden, others: []string{"ns/route"}, lost: []string{"/a", "/b"}},
			"route": {st: effective.Enforced},
		},
	}, {
		name: `GEP-713 "Patch spec": Patch Defaults, the more specific fields win one by one`,
		rows: []at{
			{name: "gw", day: 1, node: gwNode, level: lvlGW, blocks: []policykind.Block{def("Patch", m{"a": "gw", "b": "gw"})}},
			{name: "route", day: 2, node: routeNode, level: lvlRoute, blocks: []policykind.Block{def("Patch", m{"a": "route"})}},
		},
		want: m{"a": "route", "b": "gw"},
		prov: map[string]string{"/a": "route", "/b": "gw"},
		standings: map[string]standing{
			"gw":    {st: effective.PartiallyEnforced, others: []string{"ns/route"}, lost: []string{"/a"}},
			"route": {st: effective.Enforced},
		},
	}, {
		name: `GEP-713 "Atomic spec": Atomic Overrides, the less specific spec wins whole`,
		rows: []at{
			{name: "gw", day: 2, node: gwNode, level: lvlGW, blocks: []policykind.Block{ovr("Atomic", m{"a": "gw"})}},
			{name: "route", day: 1, node: routeNode, level: lvlRoute, blocks: []policykind.Block{def("Atomic", m{"a": "route", "b": "route"})}},
		},
		want: m{"a": "gw"},
		standings: map[string]standing{
			"gw":    {st: effective.Enforced},
			"route": {st: effective.Overridden, others: []string{"ns/gw"}, lost: []string{"/a", "/b"}},
		},
	}, {
		name: `GEP-713 "Patch spec": Patch Overrides, the less specific fields win, the others stay`,
		rows: []at{
			{name: "gw", day: 2, node: gwNode, level: lvlGW, blocks: []policykind.Block{ovr("Patch", m{"a": "gw"})}},
			{name: "route", day: 1, node: routeNode, level: lvlRoute, blocks: []policykind.Block{def("Patch", m{"a": "route", "b": "route"})}},
		},
		want: m{"a": "gw", "b": "route"},
		prov: map[string]string{"/a": "gw", "/b": "route"},
		standings: map[string]standing{
			"gw":    {st: effective.Enforced},
			"route": {st: effective.PartiallyEnforced, others: []string{"ns/gw"}, lost: []string{"/a"}},
		},
	}, {
		// 001 "Hierarchy": "A override > B override > C override > C
		// default > B default > A default": an override stays locked
		// through a default in between and a more specific override.
		name: `001 "Hierarchy": a locked override survives a more specific override`,
		rows: []at{
			{name: "ns", day: 1, node: nsNode, level: lvlNS, blocks: []policykind.Block{ovr("Patch", m{"a": "ns"})}},
			{name: "gw", day: 1, node: gwNode, level: lvlGW, blocks: []policykind.Block{def("Patch", m{"a": "gw", "b": "gw"})}},
			{name: "route", day: 1, node: routeNode, level: lvlRoute, blocks: []policykind.Block{ovr("Patch", m{"a": "route", "b": "route", "c": "route"})}},
		},
		want: m{"a": "ns", "b": "route", "c": "route"},
		prov: map[string]string{"/a": "ns", "/b": "route", "/c": "route"},
		standings: map[string]standing{
			"ns":    {st: effective.Enforced},
			"gw":    {st: effective.Overridden, others: []string{"ns/ns", "ns/route"}, lost: []string{"/a", "/b"}},
			"route": {st: effective.PartiallyEnforced, others: []string{"ns/ns"}, lost: []string{"/a"}},
		},
	}, {
		// 001 "Hierarchy": "C default > B default": a more specific
		// default after an override still beats less specific defaults,
		// and the override beats it.
		name: `001 "Hierarchy": a more specific default after an override`,
		rows: []at{
			{name: "gw", day: 1, node: gwNode, level: lvlGW, blocks: []policykind.Block{def("Patch", m{"a": "gw", "b": "gw", "c": "gw"})}},
			{name: "route", day: 1, node: routeNode, level: lvlRoute, blocks: []policykind.Block{ovr("Patch", m{"a": "route-override"}), def("Patch", m{"a": "route-default", "b": "route-default"})}},
		},
		want: m{"a": "route-override", "b": "route-default", "c": "gw"},
		prov: map[string]string{"/a": "route", "/b": "route", "/c": "gw"},
		standings: map[string]standing{
			"gw":    {st: effective.PartiallyEnforced, others: []string{"ns/route"}, lost: []string{"/a", "/b"}},
			"route": {st: effective.Enforced},
		},
	}, {
		name: `GEP-713 "Conflict resolution rules": of two overrides on one level the older wins`,
		rows: []at{
			{name: "new", day: 2, node: gwNode, level: lvlGW, blocks: []policykind.Block{ovr("Patch", m{"a": "new"})}},
			{name: "old", day: 1, node: gwNode, level: lvlGW, blocks: []policykind.Block{ovr("Patch", m{"a": "old"})}},
		},
		want: m{"a": "old"},
		standings: map[string]standing{
			"old": {st: effective.Enforced},
			"new": {st: effective.Overridden, others: []string{"ns/old"}, lost: []string{"/a"}},
		},
	}, {
		name: `GEP-713 "Conflict resolution rules": of two defaults on one level the older wins`,
		rows: []at{
			{name: "old", day: 1, node: gwNode, level: lvlGW, blocks: []policykind.Block{def("Patch", m{"a": "old", "b": "old"})}},
			{name: "new", day: 2, node: gwNode, level: lvlGW, blocks: []policykind.Block{def("Patch", m{"a": "new"})}},
		},
		want: m{"a": "old", "b": "old"},
		standings: map[string]standing{
			"old": {st: effective.Enforced},
			"new": {st: effective.Overridden, others: []string{"ns/old"}, lost: []string{"/a"}},
		},
	}, {
		name: `GEP-713 "Conflict resolution rules": same timestamp, first by namespace/name wins`,
		rows: []at{
			{name: "b", day: 1, node: gwNode, level: lvlGW, blocks: []policykind.Block{def("Atomic", m{"a": "b"})}},
			{name: "a", day: 1, node: gwNode, level: lvlGW, blocks: []policykind.Block{def("Atomic", m{"a": "a"})}},
		},
		want: m{"a": "a"},
		standings: map[string]standing{
			"a": {st: effective.Enforced},
			"b": {st: effective.Overridden, others: []string{"ns/a"}, lost: []string{"/a"}},
		},
	}, {
		// A policy that sets no field loses none, yet an atomic merge
		// replaces it whole: Overridden by the policy that replaced it.
		name: `GEP-713 "Atomic spec": a spec setting no field, superseded as a whole`,
		rows: []at{
			{name: "gw", day: 1, node: gwNode, level: lvlGW, blocks: []policykind.Block{def("Atomic", m{})}},
			{name: "route", day: 2, node: routeNode, level: lvlRoute, blocks: []policykind.Block{def("Atomic", m{"a": "route"})}},
		},
		want: m{"a": "route"},
		standings: map[string]standing{
			"gw":    {st: effective.Overridden, others: []string{"ns/route"}},
			"route": {st: effective.Enforced},
		},
	}, {
		// Patched, an empty spec is merged, not replaced.
		name: `GEP-713 "Patch spec": a spec setting no field stays Enforced`,
		rows: []at{
			{name: "gw", day: 1, node: gwNode, level: lvlGW, blocks: []policykind.Block{def("Patch", m{})}},
			{name: "route", day: 2, node: routeNode, level: lvlRoute, blocks: []policykind.Block{def("Patch", m{"a": "route"})}},
		},
		want: m{"a": "route"},
		standings: map[string]standing{
			"gw":    {st: effective.Enforced},
			"route": {st: effective.Enforced},
		},
	}} {
		t.Run(c.name, func(t *testing.T) {
			entries, byName := stack(c.rows)
			o := effective.Fold(entries, funcs())
			if !reflect.DeepEqual(o.Result.Values, c.want) {
				t.Errorf("values = %v, want %v", o.Result.Values, c.want)
			}
			for leaf, name := range c.prov {
				if got := o.Result.Prov[leaf]; got != byName[name] {
					t.Errorf("%s set by %v, want %s", leaf, got, name)
				}
			}
			conflicted := map[string]string{}
			for p, w := range o.Conflicted {
				conflicted[p.Name] = w.Name
			}
			if c.conflicted == nil {
				c.conflicted = map[string]string{}
			}
			if !reflect.DeepEqual(conflicted, c.conflicted) {
				t.Errorf("conflicted = %v, want %v", conflicted, c.conflicted)
			}
			for name, want := range c.standings {
				st, others, lost := o.Standing(byName[name])
				if got := (standing{st, others, lost}); !reflect.DeepEqual(got, want) {
					t.Errorf("Standing(%s) = %+v, want %+v", name, got, want)
				}
			}
		})
	}
}

// TestFoldEmpty: an empty stack folds to an empty outcome, not a panic.
func TestFoldEmpty(t *testing.T) {
	o := effective.Fold(nil, funcs())
	if o == nil || len(o.Result.Values) != 0 || len(o.Conflicted) != 0 {
		t.Errorf("Fold(nil) = %+v, want an empty outcome", o)
	}
}
