package effective_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-dev/strata/internal/enginetest"
	"github.com/strata-dev/strata/pkg/engine/effective"
)

// childKind declares an Envoy Gateway-like kind: None (the most specific
// policy applies whole) unless the more specific policy chooses to merge
// through spec.mergeType (spec.childMerge).
func childKind(strategies string) string {
	return `apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: childs}
spec:
  group: example.io
  kind: ChildPolicy
  targetKinds:
  - {group: gateway.networking.k8s.io, kind: Gateway}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute}
  effectiveTargetKinds:
  - {group: gateway.networking.k8s.io, kind: HTTPRoute}
  strategies: ` + strategies + `
  childMerge:
    field: spec.mergeType
    values: {JSONMerge: Patch, StrategicMerge: StrategicMergePatch, Replace: Atomic}
`
}

// childCRD is ChildPolicy's CRD: rules is a list keyed by name, which a
// strategic merge merges item by item.
const childCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: childpolicies.example.io}
spec:
  group: example.io
  names: {kind: ChildPolicy, plural: childpolicies}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              targetRef: {type: object, x-kubernetes-preserve-unknown-fields: true}
              mergeType: {type: string}
              defaults: {type: object, x-kubernetes-preserve-unknown-fields: true}
              overrides:
                type: object
                properties:
                  strategy: {type: string}
                  timeout: {type: object, additionalProperties: {type: string}}
              timeout: {type: object, additionalProperties: {type: string}}
              rules:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    limit: {type: integer}
`

func childPolicy(name, day, target, spec string) string {
	return fmt.Sprintf(`apiVersion: example.io/v1
kind: ChildPolicy
metadata: {name: %s, namespace: infra, creationTimestamp: "2026-01-%sT00:00:00Z"}
spec:
  targetRef: %s
%s`, name, day, target, spec)
}

// TestChildMerge: a more specific policy that chooses a merge through
// its kind's spec.childMerge is merged into the closest less specific
// policy in force, instead of replacing it, and every field still names
// the policy that set it (Envoy Gateway's mergeType). The less specific
// policy keeps the fields the child does not set: its standing is read
// from them, and the child's Merged names it.
func TestChildMerge(t *testing.T) {
	gwPolicy := childPolicy("gw", "01", fmt.Sprintf(toGW, "gw"),
		"  timeout: {request: 10s, idle: 5s}\n  rules: [{name: a, limit: 1}]")
	routeWith := func(mergeType string) string {
		spec := "  timeout: {request: 3s}\n  rules: [{name: b, limit: 2}]"
		if mergeType != "" {
			spec = "  mergeType: " + mergeType + "\n" + spec
		}
		// A route in namespace infra under gw only.
		return `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: local, namespace: infra}
spec:
  parentRefs: [{name: gw}]
---
` + childPolicy("route", "02", fmt.Sprintf(toRoute, "local"), spec)
	}
	type standing struct {
		St     effective.Standing
		Others []string
	}
	tests := []struct {
		name       string
		strategies string
		docs       []string
		wantProv   map[string]string
		wantValues string
		wantMerged map[string][]string
		wantStand  map[string]standing
	}{
		{
			name:       "no mergeType: the route policy replaces the Gateway's (None)",
			strategies: "{supported: [None], default: None}",
			docs:       []string{gwPolicy, routeWith("")},
			wantProv:   map[string]string{"/timeout/request": "infra/route", "/rules": "infra/route"},
			wantValues: `map[rules:[map[limit:2 name:b]] timeout:map[request:3s]]`,
			wantStand:  map[string]standing{"infra/gw": {effective.Overridden, []string{"infra/route"}}, "infra/route": {effective.Enforced, nil}},
		},
		{
			name:       "JSONMerge: RFC 7386, lists replaced whole",
			strategies: "{supported: [None], default: None}",
			docs:       []string{gwPolicy, routeWith("JSONMerge")},
			wantProv:   map[string]string{"/timeout/request": "infra/route", "/timeout/idle": "infra/gw", "/rules": "infra/route"},
			wantValues: `map[rules:[map[limit:2 name:b]] timeout:map[idle:5s request:3s]]`,
			wantMerged: map[string][]string{"infra/route": {"infra/gw"}},
			wantStand:  map[string]standing{"infra/gw": {effective.PartiallyEnforced, []string{"infra/route"}}, "infra/route": {effective.Enforced, nil}},
		},
		{
			name:       "StrategicMerge without a schema: lists replaced whole",
			strategies: "{supported: [None], default: None}",
			docs:       []string{gwPolicy, routeWith("StrategicMerge")},
			wantProv:   map[string]string{"/timeout/request": "infra/route", "/timeout/idle": "infra/gw", "/rules": "infra/route"},
			wantValues: `map[rules:[map[limit:2 name:b]] timeout:map[idle:5s request:3s]]`,
			wantMerged: map[string][]string{"infra/route": {"infra/gw"}},
			wantStand:  map[string]standing{"infra/gw": {effective.PartiallyEnforced, []string{"infra/route"}}, "infra/route": {effective.Enforced, nil}},
		},
		{
			name:       "StrategicMerge with the CRD's schema: rules merged by name",
			strategies: "{supported: [None], default: None}",
			docs:       []string{childCRD, gwPolicy, routeWith("StrategicMerge")},
			wantProv:   map[string]string{"/timeout/request": "infra/route", "/timeout/idle": "infra/gw", "/rules[name=a]": "infra/gw", "/rules[name=b]": "infra/route"},
			wantValues: `map[rules:[map[limit:2 name:b] map[limit:1 name:a]] timeout:map[idle:5s request:3s]]`,
			wantMerged: map[string][]string{"infra/route": {"infra/gw"}},
			wantStand:  map[string]standing{"infra/gw": {effective.PartiallyEnforced, []string{"infra/route"}}, "infra/route": {effective.Enforced, nil}},
		},
		{
			name:       "a child's choice under Defaults: Patch instead of the dictated Atomic",
			strategies: "{supported: [AtomicDefaults, PatchOverrides], default: AtomicDefaults}",
			docs:       []string{gwPolicy, routeWith("JSONMerge")},
			wantProv:   map[string]string{"/timeout/request": "infra/route", "/timeout/idle": "infra/gw", "/rules": "infra/route"},
			wantValues: `map[rules:[map[limit:2 name:b]] timeout:map[idle:5s request:3s]]`,
			wantMerged: map[string][]string{"infra/route": {"infra/gw"}},
			wantStand:  map[string]standing{"infra/gw": {effective.PartiallyEnforced, []string{"infra/route"}}, "infra/route": {effective.Enforced, nil}},
		},
		{
			name:       "a child's Atomic under Defaults replaces, as the dictated Atomic would",
			strategies: "{supported: [PatchDefaults], default: PatchDefaults}",
			docs:       []string{gwPolicy, routeWith("Replace")},
			wantProv:   map[string]string{"/timeout/request": "infra/route", "/rules": "infra/route"},
			wantValues: `map[rules:[map[limit:2 name:b]] timeout:map[request:3s]]`,
			wantStand:  map[string]standing{"infra/gw": {effective.Overridden, []string{"infra/route"}}, "infra/route": {effective.Enforced, nil}},
		},
		{
			name:       "an override is never weakened by the child's choice",
			strategies: "{supported: [AtomicDefaults, PatchOverrides], default: AtomicDefaults}",
			docs: []string{childCRD, childPolicy("gw", "01", fmt.Sprintf(toGW, "gw"), "  overrides: {strategy: patch, timeout: {request: 10s}}"),
				routeWith("StrategicMerge")},
			wantProv:   map[string]string{"/timeout/request": "infra/gw", "/rules": "infra/route"},
			wantValues: `map[rules:[map[limit:2 name:b]] timeout:map[request:10s]]`,
			wantStand:  map[string]standing{"infra/gw": {effective.Enforced, nil}, "infra/route": {effective.PartiallyEnforced, []string{"infra/gw"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := enginetest.RunYAML(t, append([]string{world, childKind(tt.strategies)}, tt.docs...)...)
			kr := res.Kinds[0]
			for _, p := range kr.Policies {
				if len(p.Invalid) > 0 {
					t.Fatalf("%s is Invalid: %v", p.ID(), p.Invalid)
				}
			}
			tg := targetNamed(res.Graph, kr.Effective, "local")
			if tg == nil || len(tg.Contexts) != 1 {
				t.Fatalf("route local: want one context, got %+v", tg)
			}
			ctx := tg.Contexts[0]
			prov := map[string]string{}
			for ptr, s := range ctx.Result.Prov {
				prov[ptr] = s.ID()
			}
			if diff := cmp.Diff(tt.wantProv, prov); diff != "" {
				t.Errorf("provenance (-want +got):\n%s", diff)
			}
			if got := fmt.Sprint(ctx.Result.Values); got != tt.wantValues {
				t.Errorf("values\n got %s\nwant %s", got, tt.wantValues)
			}
			merged := map[string][]string{}
			for p, into := range ctx.Merged {
				for _, q := range into {
					merged[p.ID()] = append(merged[p.ID()], q.ID())
				}
			}
			if len(merged) == 0 {
				merged = nil
			}
			if diff := cmp.Diff(tt.wantMerged, merged); diff != "" {
				t.Errorf("Merged (-want +got):\n%s", diff)
			}
			stand := map[string]standing{}
			for _, p := range kr.Policies {
				st, others, _ := ctx.Standing(p)
				stand[p.ID()] = standing{st, others}
			}
			if diff := cmp.Diff(tt.wantStand, stand); diff != "" {
				t.Errorf("standings (-want +got):\n%s", diff)
			}
		})
	}
}
