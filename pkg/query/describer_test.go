package query_test

import (
	"encoding/json"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/source/files"
)

// A Describer and a PolicyDescriber answer for every node and policy, in
// any order, as Describe and DescribePolicy do with nothing shared: what
// they remember between answers (the kinds' targets and stacks, the
// policies' status, the nodes' keys) changes no answer. The parable and
// a synthetic world, every node and policy described in reverse order
// by one describer of each, and every policy by four describers of
// PolicyDescribers at once.
func TestDescribersShareNothingVisible(t *testing.T) {
	src, err := files.Read([]string{parable}, nil)
	if err != nil {
		t.Fatal(err)
	}
	worlds := map[string]*snapshot.Snapshot{
		"parable":   src.Snapshot,
		"synthetic": synth.Generate(synth.Sizes{Namespaces: 4, Gateways: 8, Routes: 120, Services: 120, Policies: 120}, 11),
	}
	js := func(v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for name, s := range worlds {
		res, err := engine.Run(s, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		describe := query.Describer(res)
		for i := len(res.Graph.Nodes) - 1; i >= 0; i-- {
			n := topology.NodeID(i)
			if got, want := js(describe(n)), js(query.Describe(res, n)); got != want {
				t.Fatalf("%s: %s: shared describer differs:\n got %s\nwant %s", name, res.Graph.Node(n).Ref, got, want)
			}
		}
		describePolicy := query.PolicyDescriber(res)
		for _, p := range slices.Backward(res.Policies) {
			if got, want := js(describePolicy(p)), js(query.DescribePolicy(res, p)); got != want {
				t.Fatalf("%s: %s: shared describer differs:\n got %s\nwant %s", name, p.ID(), got, want)
			}
		}
		// Describers of PolicyDescribers, on goroutines of their own,
		// each from another policy on, share what they find of the run
		// (under -race: without a race).
		describers := query.PolicyDescribers(res)
		got := make([][]string, 4)
		var wg sync.WaitGroup
		for w := range got {
			wg.Go(func() {
				describe := describers()
				got[w] = make([]string, len(res.Policies))
				for k := range res.Policies {
					i := (k + w*len(res.Policies)/len(got)) % len(res.Policies)
					got[w][i] = js(describe(res.Policies[i]))
				}
			})
		}
		wg.Wait()
		for i, p := range res.Policies {
			want := js(query.DescribePolicy(res, p))
			for w := range got {
				if got[w][i] != want {
					t.Fatalf("%s: %s: describer %d of PolicyDescribers differs:\n got %s\nwant %s", name, p.ID(), w, got[w][i], want)
				}
			}
		}
	}
}

// The impact of deleting each policy of a synthetic world is the same
// whether its contexts are compared on one core or on four
// (compareKind): the same targets, in the same order, with the same
// contexts. The widest impacts compare hundreds of pairs, more than one
// worker's chunk.
func TestImpactOnOneCoreAndOnMany(t *testing.T) {
	s := synth.Generate(synth.Sizes{Namespaces: 4, Gateways: 8, Routes: 120, Services: 120, Policies: 120}, 11)
	res, err := engine.Run(s, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	impact := func(procs int, p *policykind.Policy) (string, int) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		im, _, err := query.ImpactOf(res, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(im)
		if err != nil {
			t.Fatal(err)
		}
		return string(b), im.Changed.Contexts
	}
	widest := 0
	for _, p := range res.Policies {
		one, _ := impact(1, p)
		many, contexts := impact(4, p)
		if one != many {
			t.Fatalf("%s: on four cores:\n%s\non one:\n%s", p.ID(), many, one)
		}
		widest = max(widest, contexts)
	}
	if widest <= 64 {
		t.Fatalf("the widest impact changes %d contexts: no deletion is compared by more than one worker", widest)
	}
}
