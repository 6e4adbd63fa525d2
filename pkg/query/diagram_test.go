package query_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/source/files"
)

// TestStatusScope checks the promise of StatusScope: for every policy of
// example 3 and the parable, and for the policies of each namespace
// together, Summaries on an engine.RunScoped result for their
// StatusScope is Summaries on the complete run, and the scope leaves
// some nodes out.
func TestStatusScope(t *testing.T) {
	for _, dir := range []string{example3, parable} {
		src, err := files.Read([]string{dir}, nil)
		if err != nil {
			t.Fatal(err)
		}
		full, err := engine.Run(src.Snapshot, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// The questions: each policy alone, then each namespace's.
		var sets [][]query.PolicyRef
		byNS := map[string][]query.PolicyRef{}
		var namespaces []string
		for _, p := range full.Policies {
			ref := query.PolicyRefOf(p)
			sets = append(sets, []query.PolicyRef{ref})
			if byNS[p.Namespace] == nil {
				namespaces = append(namespaces, p.Namespace)
			}
			byNS[p.Namespace] = append(byNS[p.Namespace], ref)
		}
		for _, ns := range namespaces {
			sets = append(sets, byNS[ns])
		}
		narrowed := 0
		for _, refs := range sets {
			of := func(res *engine.Result) []*policykind.Policy {
				var ps []*policykind.Policy
				for _, p := range res.Policies {
					for _, r := range refs {
						if query.PolicyRefOf(p) == r {
							ps = append(ps, p)
						}
					}
				}
				return ps
			}
			var nodes []topology.NodeID
			scoped, err := engine.RunScoped(src.Snapshot, engine.Options{}, func(r *engine.Result) []topology.NodeID {
				nodes = query.StatusScope(r, of(r))
				return nodes
			})
			if err != nil {
				t.Fatal(err)
			}
			if nodes == nil {
				t.Fatalf("%s %v: nil scope, want some", dir, refs)
			}
			if len(nodes) < len(full.Graph.Nodes) {
				narrowed++
			}
			got, err := query.Summaries(scoped, of(scoped))
			if err != nil {
				t.Fatal(err)
			}
			want, err := query.Summaries(full, of(full))
			if err != nil {
				t.Fatal(err)
			}
			byRef := func(m map[*policykind.Policy]query.PolicySummary) map[query.PolicyRef]query.PolicySummary {
				out := map[query.PolicyRef]query.PolicySummary{}
				for p, s := range m {
					out[query.PolicyRefOf(p)] = s
				}
				return out
			}
			if d := cmp.Diff(byRef(want), byRef(got)); d != "" {
				t.Errorf("%s %v: scoped summaries differ (-complete +scoped):\n%s", dir, refs, d)
			}
		}
		if narrowed == 0 {
			t.Errorf("%s: no scope left a node out: the test compares nothing", dir)
		}
		// Summaries of a complete run are get policies' lines.
		all, err := query.Summaries(full, full.Policies)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range query.Policies(full, query.Filter{AllNamespaces: true}).Items {
			found := false
			for p, got := range all {
				if query.PolicyRefOf(p) == s.PolicyRef {
					found = true
					if d := cmp.Diff(s, got); d != "" {
						t.Errorf("%s: Summaries of %v differs from get policies (-get +Summaries):\n%s", dir, s.PolicyRef, d)
					}
				}
			}
			if !found {
				t.Errorf("%s: no summary of %v", dir, s.PolicyRef)
			}
		}
	}
}
