package effective_test

import (
	"reflect"
	"testing"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// meshWorld is 001's mesh (GEP-1426): Service prod/foo is the parent of
// a producer route prod/p sending to foo itself, and of a consumer route
// cons/c splitting requests from namespace cons between foo-a and foo-b.
// prod grants cons's routes their backends and cons's TestPolicies the
// Services.
const meshWorld = `
apiVersion: v1
kind: Service
metadata: {name: foo, namespace: prod}
spec: {ports: [{name: http, port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: foo-a, namespace: prod}
---
apiVersion: v1
kind: Service
metadata: {name: foo-b, namespace: prod}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: p, namespace: prod}
spec:
  parentRefs: [{group: "", kind: Service, name: foo}]
  rules: [{backendRefs: [{name: foo, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: c, namespace: cons}
spec:
  parentRefs: [{group: "", kind: Service, name: foo, namespace: prod, port: 80}]
  rules: [{backendRefs: [{name: foo-a, namespace: prod, port: 80}, {name: foo-b, namespace: prod, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: cons, namespace: prod}
spec:
  from:
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: cons}
  - {group: example.io, kind: TestPolicy, namespace: cons}
  to: [{group: "", kind: Service}]
---
apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: tests}
spec:
  group: example.io
  kind: TestPolicy
  targetKinds:
  - {group: "", kind: Namespace}
  - {group: "", kind: Service}
  effectiveTargetKinds:
  - {group: gateway.networking.k8s.io, kind: HTTPRoute}
  - {group: "", kind: Service}
  strategies: {supported: [PatchDefaults], default: PatchDefaults}
`

const toSvc = `{group: "", kind: Service, name: foo, namespace: prod}`

// TestComputeMesh checks mesh contexts: each path starts at foo's
// frontend; a consumer route's context is marked with its namespace and
// is the only one where a consumer policy (cons's, on prod's Service)
// acts (001 "Policy Attachment for Mesh": it "can only apply to requests
// from the same namespace"); the producer's policy on its Service acts
// in every context through it, a Namespace's in every context through
// an object in it.
func TestComputeMesh(t *testing.T) {
	res, eff := compute(t, nil, meshWorld,
		testPolicy("prod", "ns-prod", "01", `{group: "", kind: Namespace, name: prod}`, "  defaults: {a: ns-prod}"),
		testPolicy("cons", "ns-cons", "01", `{group: "", kind: Namespace, name: cons}`, "  defaults: {d: ns-cons}"),
		testPolicy("prod", "producer", "02", toSvc, "  defaults: {b: producer}"),
		testPolicy("cons", "consumer", "03", toSvc, "  defaults: {c: consumer}"),
	)
	g := res.Graph
	type ctx struct {
		Consumer string
		Values   map[string]any
	}
	tests := []struct {
		target string
		want   []ctx
	}{
		{target: "foo", want: []ctx{{Values: map[string]any{"a": "ns-prod", "b": "producer"}}}},
		{target: "p", want: []ctx{{Values: map[string]any{"a": "ns-prod", "b": "producer"}}}},
		{target: "c", want: []ctx{{Consumer: "cons", Values: map[string]any{"a": "ns-prod", "b": "producer", "c": "consumer", "d": "ns-cons"}}}},
		{target: "foo-a", want: []ctx{{Consumer: "cons", Values: map[string]any{"a": "ns-prod", "b": "producer", "c": "consumer", "d": "ns-cons"}}}},
	}
	for _, tg := range eff.Targets {
		if r := g.Node(tg.Node).Ref; r.Role != hierarchy.RoleNone {
			t.Errorf("%s is an effective target; the Service's node is", r)
		}
	}
	for _, tc := range tests {
		t.Run(tc.target, func(t *testing.T) {
			tg := targetNamed(g, eff, tc.target)
			if tg == nil {
				t.Fatalf("%s is not an effective target", tc.target)
			}
			var got []ctx
			for _, c := range tg.Contexts {
				if f, _ := g.Mesh(c.Path); f == topology.None {
					t.Errorf("context %v is not a mesh path", c.Path)
				}
				if c.ConsumerRoute != (c.Consumer(g) != "") {
					t.Errorf("ConsumerRoute %v, consumer %q", c.ConsumerRoute, c.Consumer(g))
				}
				got = append(got, ctx{Consumer: c.Consumer(g), Values: c.Result.Values})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("contexts %+v, want %+v", got, tc.want)
			}
		})
	}
}
