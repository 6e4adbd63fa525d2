package effective

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine/attach"
	"github.com/strata-dev/strata/pkg/engine/merge"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/policykind/builtin"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/source/files"
)

// TestFoldInPlace checks that folding in place (merge.Acc) gives exactly
// what the immutable fold gives, on every stack of the synthetic worlds:
// the mixed world of the performance requirement and each shape of many
// policies on one Gateway (issue 11, "No cliffs"). Both folds run on
// every stack, whatever its size.
func TestFoldInPlace(t *testing.T) {
	eachSyntheticKind(t, func(t *testing.T, c func() *computer) {
		in, out := c(), c()
		in.inPlaceFrom, out.inPlaceFrom = 0, math.MaxInt
		a, b := in.compute(nil), out.compute(nil)
		if len(a.Targets) != len(b.Targets) {
			t.Fatalf("%s: %d targets in place, %d not", in.k.Kind, len(a.Targets), len(b.Targets))
		}
		for i := range a.Targets {
			for j, ca := range a.Targets[i].Contexts {
				cb := b.Targets[i].Contexts[j]
				where := fmt.Sprintf("%s target %d context %d (%d entries)", in.k.Kind, a.Targets[i].Node, j, len(ca.Entries))
				if !reflect.DeepEqual(ca.Result, cb.Result) {
					t.Errorf("%s: in place\n%v\n%v\nimmutable\n%v\n%v", where, ca.Result.Values, ca.Result.Prov, cb.Result.Values, cb.Result.Prov)
				}
				if !reflect.DeepEqual(ca.Conflicted, cb.Conflicted) {
					t.Errorf("%s: conflicts differ", where)
				}
			}
		}
	})
}

// TestFrozenStandings checks what freeze keeps against what a Folded
// answers unfrozen: for every policy of every context's stack on the
// synthetic worlds (short stacks, scanned, and the shapes' stacks of
// hundreds of policies, indexed), Standing is the standing computed on
// the spot, and Contributes says whether the policy set a field of the
// result.
func TestFrozenStandings(t *testing.T) {
	checked, indexed := 0, 0
	eachSyntheticKind(t, func(t *testing.T, c func() *computer) {
		for _, tg := range c().compute(nil).Targets {
			for _, ctx := range tg.Contexts {
				if ctx.byPolicy != nil {
					indexed++
				}
				for p := range ctx.Policies {
					st, others, lost := ctx.Standing(p)
					wst, wothers, wlost := ctx.standing(p, nil)
					if st != wst || !slices.Equal(others, wothers) || !slices.Equal(lost, wlost) {
						t.Fatalf("%s: frozen standing %s %v %v, computed %s %v %v", p.ID(), st, others, lost, wst, wothers, wlost)
					}
					sets := slices.ContainsFunc(slices.Collect(maps.Values(ctx.Result.Prov)), func(s merge.Source) bool { return PolicyOf(s) == p })
					if got := ctx.Contributes(p); got != sets {
						t.Fatalf("%s: Contributes %t, sets a field: %t", p.ID(), got, sets)
					}
					checked++
				}
			}
		}
	})
	if checked == 0 || indexed == 0 {
		t.Fatalf("%d standings checked, %d contexts with indexed standings: the worlds no longer cover both", checked, indexed)
	}
}

// eachSyntheticKind calls check, per policy kind of each synthetic world
// (the mixed world of the performance requirement and each shape of many
// policies on one Gateway), with a function that makes a new computer of
// that kind.
func eachSyntheticKind(t *testing.T, check func(t *testing.T, c func() *computer)) {
	worlds := map[string]*snapshot.Snapshot{
		"generate": synth.Generate(synth.Sizes{Namespaces: 4, Gateways: 8, Routes: 160, Services: 160, Policies: 400}, 7),
	}
	for _, sh := range synth.Shapes() {
		s, err := synth.GenerateShape(sh, 60)
		if err != nil {
			t.Fatal(err)
		}
		worlds[string(sh)] = s
	}
	eachKind(t, worlds, check)
}

// eachKind is eachSyntheticKind for the worlds given.
func eachKind(t *testing.T, worlds map[string]*snapshot.Snapshot, check func(t *testing.T, c func() *computer)) {
	for name, s := range worlds {
		t.Run(name, func(t *testing.T) {
			var extra topology.Extra
			byKind := map[schema.GroupKind][]*policykind.Policy{}
			var kinds []*policykind.Kind
			for _, d := range s.Declarations {
				k, err := policykind.Compile(d)
				if err != nil {
					t.Fatal(err)
				}
				kinds = append(kinds, k)
			}
			for _, u := range s.Policies {
				for _, k := range kinds {
					if k.Kind == u.GetKind() {
						byKind[k.Key()] = append(byKind[k.Key()], k.Read(u))
						extra.Namespaces = append(extra.Namespaces, u.GetNamespace())
					}
				}
			}
			g := topology.BuildWith(s, extra)
			for _, k := range kinds {
				funcs, err := Funcs(merge.DefaultRegistry(), k, nil)
				if err != nil {
					t.Fatal(err)
				}
				att := attach.Resolve(g, byKind[k.Key()])
				check(t, func() *computer { return newComputer(g, k, att, funcs) })
			}
		})
	}
}

// TestLastOfEach checks the scan for short lists against the index for
// long ones: each policy's last attachment, in order, for lists of every
// length on both sides of the switch.
func TestLastOfEach(t *testing.T) {
	ps := make([]*policykind.Policy, 6)
	for i := range ps {
		ps[i] = &policykind.Policy{Name: fmt.Sprint(i)}
	}
	indexed := func(all []*attach.Attachment) []*attach.Attachment {
		last := map[*policykind.Policy]int{}
		for i, a := range all {
			last[a.Policy] = i
		}
		var out []*attach.Attachment
		for i, a := range all {
			if last[a.Policy] == i {
				out = append(out, a)
			}
		}
		return out
	}
	for n := range 40 {
		all := make([]*attach.Attachment, n)
		for i := range all {
			all[i] = &attach.Attachment{Policy: ps[(i*7+n)%len(ps)], Node: topology.NodeID(i)}
		}
		want := indexed(all)
		if got := lastOfEach(slices.Clone(all)); !slices.Equal(got, want) {
			t.Errorf("%d attachments: got %v, want %v", n, got, want)
		}
	}
}

// TestFoldResumesPrefixes checks that a fold resumed from the fold of a
// prefix of its stack (foldImmutable) is the fold of the whole stack on
// a computer that has folded nothing before: value, provenance,
// conflicts, merges, replacements and standings, for every context's
// stack of the synthetic worlds and of examples/childmerge (policies
// that merge into their parents, spec.childMerge), folded in order and
// in reverse order on one computer.
func TestFoldResumesPrefixes(t *testing.T) {
	worlds := map[string]*snapshot.Snapshot{
		"generate": synth.Generate(synth.Sizes{Namespaces: 4, Gateways: 8, Routes: 160, Services: 160, Policies: 400}, 7),
	}
	for _, sh := range []synth.Shape{synth.PoliciesMixed, synth.PoliciesConflicts, synth.PoliciesRouteEffective} {
		s, err := synth.GenerateShape(sh, 12)
		if err != nil {
			t.Fatal(err)
		}
		worlds[string(sh)] = s
	}
	child, err := files.Read([]string{"../../../examples/childmerge"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := builtin.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range cat {
		child.Snapshot.Declarations = append(child.Snapshot.Declarations, e.Declaration)
	}
	worlds["childmerge"] = child.Snapshot
	resumed, merged := 0, 0
	eachKind(t, worlds, func(t *testing.T, c func() *computer) {
		var stacks [][]*Entry
		for _, tg := range c().compute(nil).Targets {
			for _, ctx := range tg.Contexts {
				stacks = append(stacks, ctx.Entries)
			}
		}
		for _, order := range []string{"in order", "reversed"} {
			warm := c()
			for i := range stacks {
				entries := stacks[i]
				if order == "reversed" {
					entries = stacks[len(stacks)-1-i]
				}
				before := len(warm.prefixes)
				got := warm.freeze(warm.fold(entries, nil), entries)
				if len(warm.prefixes) < before+len(entries) {
					resumed++
				}
				fresh := c()
				want := fresh.freeze(fresh.fold(entries, nil), entries)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, %s, stack of %d: resumed fold %+v, whole fold %+v", warm.k.Kind, order, len(entries), got, want)
				}
				if len(got.Merged) > 0 {
					merged++
				}
			}
		}
	})
	if resumed == 0 || merged == 0 {
		t.Fatalf("%d folds resumed a prefix, %d merged: the worlds do not test resuming", resumed, merged)
	}
	t.Logf("%d folds resumed a prefix, %d with merges", resumed, merged)
}
