package engine_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/sink/effectivepolicy"
	"github.com/strata-dev/strata/pkg/sink/status"
	"github.com/strata-dev/strata/pkg/source/files"
)

// Recompute after a change to one kind's policies gives exactly what a full
// Run on the changed snapshot gives, and leaves other kinds' results as
// they were.
func TestRecomputeEqualsRun(t *testing.T) {
	other := `apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: other}
spec:
  group: example.io
  kind: TimeoutPolicy
  managed: true
  targetKinds: [{group: gateway.networking.k8s.io, kind: HTTPRoute}]
---
apiVersion: example.io/v1
kind: TimeoutPolicy
metadata: {name: t1, namespace: default}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r1}
  timeout: 3s`
	read := func(extra string) *files.Result {
		src, err := files.Read([]string{"../../examples/gep-713/example-3", "-"}, strings.NewReader(other+"\n---\n"+extra))
		if err != nil {
			t.Fatal(err)
		}
		return src
	}
	before := read("")
	prev, err := engine.Run(before.Snapshot, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The change: p2 deleted, p4 turned into an override, p5 added.
	after := read(`apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p5, namespace: default, creationTimestamp: "2026-01-03T00:00:00Z"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r2}]
  colors: {dark: black}`)
	var colors []*unstructured.Unstructured
	for _, p := range after.Snapshot.Policies {
		switch {
		case p.GetKind() != "ColorPolicy", p.GetName() == "p2":
			continue
		case p.GetName() == "p4":
			_ = unstructured.SetNestedField(p.Object, map[string]any{"colors": map[string]any{"light": "green"}}, "spec", "overrides")
			unstructured.RemoveNestedField(p.Object, "spec", "colors")
		}
		colors = append(colors, p)
	}
	dirty := map[schema.GroupKind]bool{{Group: "policies.controller.io", Kind: "ColorPolicy"}: true}
	// Recompute only sees ColorPolicies; TimeoutPolicies are reused.
	got, err := prev.Recompute(colors, dirty)
	if err != nil {
		t.Fatal(err)
	}
	// The full run sees everything.
	full := after.Snapshot
	full.Policies = append(colors, timeouts(before)...)
	want, err := engine.Run(full, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := metav1.NewTime(time.Unix(0, 0))
	for name, f := range map[string]func(*engine.Result) any{
		"policy status":    func(r *engine.Result) any { return objects(status.Policies(r, now)) },
		"target status":    func(r *engine.Result) any { return objects(status.Targets(r, now)) },
		"effective policy": func(r *engine.Result) any { return effectivepolicy.Build(r) },
	} {
		if g, w := f(got), f(want); !reflect.DeepEqual(g, w) {
			t.Errorf("%s differs:\nrecompute: %v\nrun:       %v", name, g, w)
		}
	}
	if got.Kinds[0].Effective != prev.Kinds[0].Effective || got.Kinds[0].Kind.Kind != "TimeoutPolicy" {
		t.Error("TimeoutPolicy results were recomputed, not reused")
	}
}

func timeouts(s *files.Result) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, p := range s.Snapshot.Policies {
		if p.GetKind() == "TimeoutPolicy" {
			out = append(out, p)
		}
	}
	return out
}

func objects(us []*unstructured.Unstructured) []map[string]any {
	out := make([]map[string]any, len(us))
	for i, u := range us {
		out[i] = u.Object
	}
	return out
}
