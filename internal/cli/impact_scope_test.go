package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/query"
)

// TestImpactScoped checks that `impact`, which computes only the targets
// below the policy's old and new targets (query.ImpactScope), before the
// change as after it, prints exactly what it prints after a complete run,
// for deleting, moving and copying every policy of the examples.
func TestImpactScoped(t *testing.T) {
	compared := 0
	for _, dir := range []string{discParable, "../../examples/gep-713/example-3", "../../examples/gep-713/listenerset", "../../examples/gep-713/mesh", "../../examples/childmerge"} {
		res := loadForTest(t, dir)
		for i, p := range res.Policies {
			arg := strings.ToLower(p.Kind.Kind) + "." + p.Kind.Group + "/" + p.Name
			ns := p.Namespace
			if ns == "" {
				ns = "default"
			}
			// The new version: its first targetRef dropped and the
			// first targetRef of the next policy of its kind added, so
			// that it leaves targets and reaches new ones.
			moved := p.Object.DeepCopy()
			refs, _, _ := unstructured.NestedSlice(moved.Object, "spec", "targetRefs")
			for _, q := range res.Policies[i+1:] {
				if q.Kind == p.Kind {
					if more, _, _ := unstructured.NestedSlice(q.Object.Object, "spec", "targetRefs"); len(more) > 0 {
						refs = append(refs, more[0])
					}
					break
				}
			}
			if len(refs) > 1 {
				refs = refs[1:]
			}
			if refs != nil {
				if err := unstructured.SetNestedSlice(moved.Object, refs, "spec", "targetRefs"); err != nil {
					t.Fatal(err)
				}
			}
			added := moved.DeepCopy()
			added.SetName(p.Name + "-copy")
			added.SetCreationTimestamp(p.Object.GetCreationTimestamp())
			dirT := t.TempDir()
			write := func(name string, v any) string {
				b, err := yaml.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(dirT, name)
				if err := os.WriteFile(path, b, 0o600); err != nil {
					t.Fatal(err)
				}
				return path
			}
			movedFile, addedFile := write("moved.yaml", moved.Object), write("added.yaml", added.Object)
			for _, args := range [][]string{
				{arg, "-n", ns, "--delete"},
				{arg, "-n", ns, "--replace", movedFile},
				{"--add", addedFile, "-n", ns},
			} {
				compareImpact(t, append(args, "-f", dir, "-o", "yaml"))
				compared++
			}
		}
	}
	if compared < 100 {
		t.Fatalf("only %d questions compared", compared)
	}
	t.Logf("%d questions compared", compared)
}

// compareImpact requires impact with args to answer the same scoped as
// complete, and to answer something.
func compareImpact(t *testing.T, args []string) {
	t.Helper()
	complete, scoped := runImpact(args, false), runImpact(args, true)
	if d := cmp.Diff(complete, scoped); d != "" {
		t.Errorf("strata impact %s: scoped differs (-complete +scoped):\n%s", strings.Join(args, " "), d)
	}
	if !strings.Contains(complete, "changed:") {
		t.Errorf("strata impact %s: no answer:\n%s", strings.Join(args, " "), complete)
	}
}

// runImpact runs impact, scoped or not, and returns what it wrote and its
// error.
func runImpact(args []string, scoped bool) string {
	var out, errb bytes.Buffer
	c := newImpactScoped(Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, scoped)
	c.SetArgs(args)
	c.SilenceErrors, c.SilenceUsage = true, true
	err := c.Execute()
	return fmt.Sprintf("stdout:\n%s\nstderr:\n%s\nerror: %v\n", out.String(), errb.String(), err)
}

// impact POLICY-KIND -l/--field-selector --delete computes only the
// targets below the chosen policies (query.DeletionScope) and answers
// what the complete run answers, for every kind in every namespace of
// the examples (the policies of a kind in a namespace, deleted
// together).
func TestImpactSelectorScoped(t *testing.T) {
	compared := 0
	for _, dir := range []string{discParable, "../../examples/gep-713/example-3", "../../examples/childmerge"} {
		res := loadForTest(t, dir)
		seen := map[string]bool{}
		for _, p := range res.Policies {
			kind := strings.ToLower(p.Kind.Kind) + "." + p.Kind.Group
			ns := p.Namespace
			if ns == "" || seen[kind+" "+ns] {
				continue
			}
			seen[kind+" "+ns] = true
			compareImpact(t, []string{kind, "-n", ns, "--field-selector", "metadata.namespace=" + ns, "--delete", "-f", dir, "-o", "yaml"})
			compared++
		}
	}
	if compared < 10 {
		t.Fatalf("only %d questions compared", compared)
	}
	t.Logf("%d questions compared", compared)
}

// An impact question that names no policy (not found, an object, a kind
// that is no policy kind) fails as the complete run fails, from a run
// that computes nothing (query.ImpactScope).
func TestImpactErrorsScoped(t *testing.T) {
	added := filepath.Join(t.TempDir(), "route.yaml")
	if err := os.WriteFile(added, []byte("apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r9, namespace: baker}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"retrypolicy/baker-retrie", "-n", "baker", "--delete"},
		{"retrypolicy/baker-retries", "-n", "frosting", "--delete"},
		{"retrypolicy/baker-retrie", "-n", "baker", "--delete", "-A"},
		{"httproute/baker", "-n", "baker", "--delete"},
		{"retrypolicy/baker-retrie", "-n", "baker", "--replace", added},
		{"--add", added, "-n", "baker"},
	} {
		args = append(args, "-f", discParable)
		complete, scoped := runImpact(args, false), runImpact(args, true)
		if d := cmp.Diff(complete, scoped); d != "" {
			t.Errorf("strata impact %s: scoped differs (-complete +scoped):\n%s", strings.Join(args, " "), d)
		}
		if !strings.Contains(complete, "error: ") || strings.Contains(complete, "error: <nil>") {
			t.Errorf("strata impact %s: want an error, got:\n%s", strings.Join(args, " "), complete)
		}
	}
	res := loadForTest(t, discParable)
	none := func(*engine.Result) *policykind.Policy { return nil }
	if got := query.ImpactScope(none, nil)(res); !slices.Equal(got, query.NoTargets(res)) {
		t.Errorf("no policy, no new version: scope %v, want nothing", got)
	}
	route := &unstructured.Unstructured{}
	route.SetAPIVersion("gateway.networking.k8s.io/v1")
	route.SetKind("HTTPRoute")
	route.SetName("r9")
	if got := query.ImpactScope(none, route)(res); !slices.Equal(got, query.NoTargets(res)) {
		t.Errorf("no policy, a new version of no policy kind: scope %v, want nothing", got)
	}
}
