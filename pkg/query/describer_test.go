package query_test

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
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
// by one describer of each.
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
	}
}
