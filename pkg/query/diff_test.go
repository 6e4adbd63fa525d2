package query_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-dev/strata/internal/enginetest"
	"github.com/strata-dev/strata/pkg/query"
)

// Diff matches targets and contexts by locator across two runs that share
// nothing; for one policy deleted it finds what Compare finds, and says
// which contexts and policies appear or disappear.
func TestDiff(t *testing.T) {
	base := run(t, example3)
	if d := query.Diff(base, run(t, example3)); !d.Empty() || d.Changed != (query.Count{}) {
		t.Errorf("same input, two runs: %+v", d)
	}
	s, err := query.Resolve(base, "colorpolicy/p3", "default")
	if err != nil {
		t.Fatal(err)
	}
	head, err := query.Without(base, s.Policy)
	if err != nil {
		t.Fatal(err)
	}
	d := query.Diff(base, head)
	im := query.Compare(base, head, query.PolicyRefOf(s.Policy), query.ChangeDelete)
	if d.Changed != im.Changed || len(d.Targets) != len(im.Targets) {
		t.Fatalf("Diff changed %+v (%d targets), Compare %+v (%d)", d.Changed, len(d.Targets), im.Changed, len(im.Targets))
	}
	type ctxChange struct {
		Target, Change, Context string
		Fields                  []query.FieldChange
	}
	var got, want []ctxChange
	for i, tc := range d.Targets {
		for j, c := range tc.Contexts {
			got = append(got, ctxChange{tc.Target.String() + " " + tc.Change, c.Change, c.Path[len(c.Path)-2].String(), c.Fields})
			ic := im.Targets[i].Contexts[j]
			if !cmp.Equal(ic.Fields, c.Fields) || !cmp.Equal(ic.Path, c.Path) {
				t.Errorf("%s: Diff %+v, Compare %+v", tc.Target, c, ic)
			}
		}
	}
	// b1 via r3 loses its only policy (the context goes, b1 stays an
	// effective target through r1 and r2); b2 via r4 gets p4's green back.
	want = []ctxChange{
		{"Service default/b1 Changed", query.DiffRemoved, "HTTPRoute default/r3#rule-0", []query.FieldChange{{Field: "/colors/light", Before: "yellow", BeforeSetBy: "default/p3"}}},
		{"Service default/b2 Changed", query.DiffChanged, "HTTPRoute default/r4#rule-0", []query.FieldChange{{Field: "/colors/light", Before: "yellow", BeforeSetBy: "default/p3", After: "green", AfterSetBy: "default/p4"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("contexts (-want +got):\n%s", diff)
	}
	var removed []string
	for _, p := range d.Policies {
		if p.Change == query.DiffRemoved {
			removed = append(removed, p.ID())
			if p.Before == nil || p.After != nil {
				t.Errorf("%s removed: before %v, after %v", p.ID(), p.Before, p.After)
			}
		}
	}
	if !cmp.Equal(removed, []string{"default/p3"}) {
		t.Errorf("removed policies %v, want [default/p3]", removed)
	}

	// The other way round, what was removed is added and before and
	// after swap.
	back := query.Diff(head, base)
	if back.Changed != d.Changed || len(back.Policies) != len(d.Policies) {
		t.Fatalf("reverse: %+v", back)
	}
	swap := map[string]string{query.DiffAdded: query.DiffRemoved, query.DiffRemoved: query.DiffAdded, query.DiffChanged: query.DiffChanged}
	for i, tc := range back.Targets {
		for j, c := range tc.Contexts {
			f := d.Targets[i].Contexts[j]
			if c.Change != swap[f.Change] {
				t.Errorf("reverse %s: change %s, forward %s", tc.Target, c.Change, f.Change)
			}
			for k, fc := range c.Fields {
				ff := f.Fields[k]
				if fc.Before != ff.After || fc.After != ff.Before || fc.BeforeSetBy != ff.AfterSetBy {
					t.Errorf("reverse %s %s: %+v, forward %+v", tc.Target, fc.Field, fc, ff)
				}
			}
		}
	}
	for i, p := range back.Policies {
		if f := d.Policies[i]; p.Change != swap[f.Change] || p.ID() != f.ID() {
			t.Errorf("reverse policy %s %s, forward %s %s", p.ID(), p.Change, f.ID(), f.Change)
		}
	}
}

// Kinds of a value space share one result, compared at the space's first
// kind. A kind added on one side, sorting first, changes that kind: the
// two sides are still paired by the space, so only what changes is
// listed, not every target as removed and added.
func TestDiffValueSpace(t *testing.T) {
	kind := func(name string, rank int) string {
		return fmt.Sprintf(`apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: %[1]s}
spec:
  group: example.io
  kind: %[1]s
  targetKinds:
  - {group: gateway.networking.k8s.io, kind: Gateway}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute}
  effectiveTargetKinds:
  - {group: gateway.networking.k8s.io, kind: Gateway}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute}
  contexts: Target
  valueSpace: {name: example.io/values, rank: %[2]d}
  strategies: {supported: [PatchDefaults, PatchOverrides], default: PatchDefaults}
`, name, rank)
	}
	world := `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: shared}
spec: {controllerName: example.com/gw}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: shared
  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: web}
spec:
  parentRefs: [{name: gw, namespace: infra}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
---
apiVersion: example.io/v1
kind: Infra
metadata: {name: infra, namespace: infra, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  defaults: {a: infra}
`
	base := enginetest.RunYAML(t, kind("Infra", 1), kind("Tenant", 2), world)
	head := enginetest.RunYAML(t, kind("Infra", 1), kind("Tenant", 2), kind("Base", 0), world, `apiVersion: example.io/v1
kind: Base
metadata: {name: base, namespace: web, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}]
  defaults: {b: base}
`)
	d := query.Diff(base, head)
	var got []string
	for _, tc := range d.Targets {
		for _, c := range tc.Contexts {
			for _, f := range c.Fields {
				got = append(got, fmt.Sprintf("%s %s %s %s: %v -> %v (%s)", tc.PolicyKind.Kind, tc.Target, tc.Change, f.Field, f.Before, f.After, f.AfterSetBy))
			}
		}
	}
	// The target is labelled with the kind the base compares the space at.
	want := []string{"Infra HTTPRoute web/web Added /b: <nil> -> base (Base web/base)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
