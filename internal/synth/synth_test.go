package synth_test

import (
	"bytes"
	"testing"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/source/files"
)

// TestGenerate checks counts, determinism and that WriteYAML's output
// reads back (pkg/source/files) into a snapshot the engine treats the same way.
func TestGenerate(t *testing.T) {
	cases := []struct {
		name  string
		sizes synth.Sizes
	}{
		{"tiny", synth.Sizes{Namespaces: 3, Gateways: 6, Routes: 120, Services: 90, Policies: 100}},
		{"one namespace", synth.Sizes{Namespaces: 1, Gateways: 2, Routes: 40, Services: 40, Policies: 50}},
		{"no policies", synth.Sizes{Namespaces: 2, Gateways: 2, Routes: 10, Services: 10}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := synth.Generate(tc.sizes, 42)
			for _, c := range []struct {
				what      string
				got, want int
			}{
				{"namespaces", len(s.Namespaces), tc.sizes.Namespaces},
				{"gateways", len(s.Gateways), tc.sizes.Gateways},
				{"routes", len(s.HTTPRoutes), tc.sizes.Routes},
				{"services", len(s.Services), tc.sizes.Services},
				{"policies", len(s.Policies), tc.sizes.Policies},
				{"gateway classes", len(s.GatewayClasses), 1},
				{"declarations", len(s.Declarations), 2},
			} {
				if c.got != c.want {
					t.Errorf("%s = %d, want %d", c.what, c.got, c.want)
				}
			}

			var a, b bytes.Buffer
			if err := synth.WriteYAML(&a, s); err != nil {
				t.Fatal(err)
			}
			if err := synth.WriteYAML(&b, synth.Generate(tc.sizes, 42)); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Error("two snapshots generated with the same seed differ")
			}

			read, err := files.Read([]string{"-"}, bytes.NewReader(a.Bytes()))
			if err != nil {
				t.Fatalf("read back WriteYAML output: %v", err)
			}
			if len(read.Ignored) > 0 {
				t.Errorf("ignored kinds when read back: %v", read.Ignored)
			}
			want, got := summary(t, s), summary(t, read.Snapshot)
			if want != got {
				t.Errorf("engine on the YAML round trip = %+v, want %+v", got, want)
			}
		})
	}
}

// runSummary is what the engine made of a snapshot, in numbers.
type runSummary struct {
	nodes, problems, contexts, policyStatuses, ancestors, targets int
}

func summary(t *testing.T, s *snapshot.Snapshot) runSummary {
	t.Helper()
	res, err := engine.Run(s, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := runSummary{nodes: len(res.Graph.Nodes), problems: len(res.Graph.Problems), policyStatuses: len(res.Outcome.Policies), targets: res.Outcome.NumTargets()}
	for _, kr := range res.Kinds {
		for _, tg := range kr.Effective.Targets {
			out.contexts += len(tg.Contexts)
		}
	}
	for _, ps := range res.Outcome.Policies {
		out.ancestors += len(ps.Ancestors)
	}
	return out
}
