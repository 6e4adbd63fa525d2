package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-dev/strata/internal/synth"
)

// gatewayDark overrides /colors/dark on the Gateway of synth.Routes: a
// change that reaches every Service below it.
const gatewayDark = `apiVersion: policies.synth.strata.dev/v1
kind: ColorPolicy
metadata: {name: gateway-dark, namespace: ns-0000, creationTimestamp: "2026-02-01T00:00:00Z"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw-00000}]
  overrides: {colors: {dark: pitch}, strategy: patch}
`

// groupingWorld writes synth.Routes at size n (n HTTPRoutes on one
// Gateway, one Service each) and gatewayDark into a directory, and
// returns the world's file and gatewayDark's.
func groupingWorld(t *testing.T, n int) (world, change string) {
	t.Helper()
	dir := t.TempDir()
	var b bytes.Buffer
	if err := synth.WriteShapeYAML(&b, synth.Routes, n); err != nil {
		t.Fatal(err)
	}
	world, change = filepath.Join(dir, "world.yaml"), filepath.Join(dir, "gateway-dark.yaml")
	if err := os.WriteFile(world, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(change, []byte(gatewayDark), 0o644); err != nil {
		t.Fatal(err)
	}
	return world, change
}

// TestGroupedOutputAtScale: on a synthetic world of 600 routes and
// Services, a change to the Gateway's policies (strata diff, human and
// markdown) and a narrowed description of the Gateway print as many
// lines as on a world of 60: the targets with the same effect are one
// block, the Gateway's children and a policy's nodes are counted (issue
// 18, "Output that stays readable at scale"). -o yaml and --full still
// list every target and context.
func TestGroupedOutputAtScale(t *testing.T) {
	const large, small = 600, 60
	lw, lc := groupingWorld(t, large)
	sw, sc := groupingWorld(t, small)
	run := func(args ...string) string {
		t.Helper()
		out, errOut, code := strata(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		return out
	}
	commands := map[string]func(world, change string) []string{
		"testdata/grouping/diff.golden": func(w, c string) []string {
			return []string{"diff", "-f", w, "--against", w + "," + c}
		},
		"testdata/grouping/diff.md.golden": func(w, c string) []string {
			return []string{"diff", "-f", w, "--against", w + "," + c, "-o", "markdown"}
		},
		"testdata/grouping/describe-gateway.golden": func(w, _ string) []string {
			return []string{"describe", "gateway/gw-00000", "-n", "ns-0000", "-f", w, "--kind", "ColorPolicy", "--field", "colors.dark"}
		},
	}
	for golden, args := range commands {
		t.Run(filepath.Base(golden), func(t *testing.T) {
			out := run(args(lw, lc)...)
			discoverGolden(t, golden, out)
			lines, smallLines := strings.Count(out, "\n"), strings.Count(run(args(sw, sc)...), "\n")
			if lines != smallLines || lines > 60 {
				t.Errorf("%d lines for %d routes, %d for %d: want as many, and at most 60", lines, large, smallLines, small)
			}
			for _, l := range strings.Split(out, "\n") {
				if len(l) > 200 {
					t.Errorf("a line of %d bytes: %.120s...", len(l), l)
				}
			}
		})
	}
	// Machine output and --full are complete.
	y := run("diff", "-f", lw, "--against", lw+","+lc, "-o", "yaml")
	if n := strings.Count(y, "\n  target:\n"); n != large {
		t.Errorf("diff -o yaml lists %d targets, want %d", n, large)
	}
	full := run("describe", "gateway/gw-00000", "-n", "ns-0000", "-f", lw, "--kind", "ColorPolicy", "--field", "colors.dark", "--full")
	if n := strings.Count(full, "  via "); n != large {
		t.Errorf("describe --full lists %d contexts, want %d", n, large)
	}
	if !strings.Contains(full, "HTTPRoute ns-0000/route-000599") {
		t.Error("describe --full does not name every child")
	}
}
