package query_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/source/files"
)

// TestScopedMatchesComplete checks the promise of Scope: for every node of
// GEP-713's examples, the parable and a synthetic world, Describe and
// Explain (of every field in force, and of one that is not) answer the
// same, to the byte, on an engine.RunScoped result for the node's Scope as
// on the complete engine.Run.
func TestScopedMatchesComplete(t *testing.T) {
	read := func(paths ...string) *snapshot.Snapshot {
		src, err := files.Read(paths, nil)
		if err != nil {
			t.Fatal(err)
		}
		return src.Snapshot
	}
	worlds := []struct {
		name string
		s    *snapshot.Snapshot
	}{
		{"example-1", read("../../examples/gep-713/example-1")},
		{"example-2", read("../../examples/gep-713/example-2")},
		{"example-3", read(example3)},
		{"parable", read(parable)},
		{"synthetic", synth.Generate(synth.Sizes{Namespaces: 4, Gateways: 8, Routes: 120, Services: 120, Policies: 120}, 7)},
	}
	for _, w := range worlds {
		t.Run(w.name, func(t *testing.T) {
			full, err := engine.Run(w.s, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			scoped, narrowed := 0, 0
			for id := range full.Graph.Nodes {
				n := full.Graph.Node(topology.NodeID(id))
				ref := n.Ref
				var nodes []topology.NodeID
				res, err := engine.RunScoped(w.s, engine.Options{}, func(r *engine.Result) []topology.NodeID {
					if id := r.Graph.Lookup(ref); id != topology.None {
						nodes = query.Scope(r, id)
					}
					return nodes
				})
				if err != nil {
					t.Fatal(err)
				}
				if nodes == nil {
					if res.Scope != nil || res.Outcome == nil {
						t.Fatalf("%s: nil scope, want the complete result", ref)
					}
					continue
				}
				scoped++
				if len(nodes) < len(full.Graph.Nodes)/2 {
					narrowed++
				}
				got, want := answers(t, res, ref), answers(t, full, ref)
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("%s: scoped answers differ (-complete +scoped):\n%s", ref, d)
				}
			}
			t.Logf("%d nodes, %d scoped, %d of them to less than half the graph", len(full.Graph.Nodes), scoped, narrowed)
			if narrowed == 0 {
				t.Error("no node was narrowed: the test compares nothing")
			}
		})
	}
}

// answers are Describe of ref and Explain of each field in force on it
// (and of one that is not), as JSON and errors.
func answers(t *testing.T, res *engine.Result, ref topology.Ref) []string {
	t.Helper()
	n := res.Graph.Lookup(ref)
	if n == topology.None {
		t.Fatalf("%s not found", ref)
	}
	d := query.Describe(res, n)
	js, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{string(js)}
	fields := map[string]bool{"/not/set": true}
	for _, ke := range d.Effective {
		for _, te := range ke.Targets {
			for _, ce := range te.Contexts {
				for _, fe := range ce.Fields {
					fields[fe.Field] = true
				}
			}
		}
	}
	for _, f := range slices.Sorted(maps.Keys(fields)) {
		x, err := query.Explain(res, n, f, nil)
		js, _ := json.Marshal(x)
		out = append(out, fmt.Sprintf("%s: %s %v", f, js, err))
	}
	return out
}
