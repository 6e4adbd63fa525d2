package policies_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/strata-dev/strata/pkg/controller/policies"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/sink/effectivepolicy"
)

// roomKinds are the policy kinds of TestStatusRoom: APolicy .. JPolicy.
var roomKinds = strings.Split("ABCDEFGHIJ", "")

// roomWorld is a GatewayClass, Gateway g1 and HTTPRoute r1 under it, and
// for each of roomKinds a ColorPolicy-style CRD, a managed PolicyKind
// whose effective target kind is eff (Gateway or HTTPRoute), and one
// policy on g1.
func roomWorld(t *testing.T, eff string) []*unstructured.Unstructured {
	y := `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: other}
spec: {controllerName: example.com/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g1, namespace: default}
spec:
  gatewayClassName: other
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r1, namespace: default}
spec:
  parentRefs: [{name: g1}]
`
	for _, k := range roomKinds {
		lower := strings.ToLower(k)
		y += fmt.Sprintf(`---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: %[2]spolicies.policies.controller.io
  labels: {gateway.networking.k8s.io/policy: Inherited}
spec:
  group: policies.controller.io
  scope: Namespaced
  names: {kind: %[1]sPolicy, listKind: %[1]sPolicyList, plural: %[2]spolicies, singular: %[2]spolicy}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
          status: {type: object, x-kubernetes-preserve-unknown-fields: true}
---
apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: %[2]spolicies.policies.controller.io}
spec:
  group: policies.controller.io
  kind: %[1]sPolicy
  class: Inherited
  managed: true
  targetKinds: [{group: gateway.networking.k8s.io, kind: Gateway}]
  effectiveTargetKind: {group: gateway.networking.k8s.io, kind: %[3]s}
---
apiVersion: policies.controller.io/v1
kind: %[1]sPolicy
metadata: {name: p, namespace: default}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: g1}
  color: red
`, k, lower, eff)
	}
	return decode(t, y)
}

// theirs is a condition of the Gateway's own controller.
func theirs(typ string) map[string]any {
	return map[string]any{"type": typ, "status": "True", "reason": typ, "message": "theirs", "lastTransitionTime": "2026-01-01T00:00:00Z"}
}

// TestStatusRoom: a Gateway (or a route's parent entry) whose own
// controller wrote 2 conditions, reached by 10 policy kinds: the API
// server accepts at most 8 conditions in the list (Gateway API v1.6
// CRDs), so Strata writes 6 of its <Kind>Affected conditions, names the 4
// it left out in the strata.dev/omitted-conditions annotation and in the
// EffectivePolicy records, and stops writing (issue 43, "Status the API
// accepts"). Before, the API server refused every write ("Too many: 12:
// must have at most 8 items") and Strata retried it forever.
func TestStatusRoom(t *testing.T) {
	for _, c := range []struct {
		name string
		eff  string // the kinds' effective target kind
		// give writes the other controller's status onto the stored
		// object; list reads the list of conditions Strata shares.
		give   func(*unstructured.Unstructured)
		list   func(*unstructured.Unstructured) []any
		kind   string
		object string
		place  string
	}{{
		name: "Gateway status.conditions",
		eff:  "Gateway",
		give: func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedSlice(u.Object, []any{theirs("Accepted"), theirs("Programmed")}, "status", "conditions")
		},
		list: func(u *unstructured.Unstructured) []any {
			l, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			return l
		},
		kind: "Gateway", object: "g1", place: "status.conditions",
	}, {
		name: "route status.parents[].conditions",
		eff:  "HTTPRoute",
		give: func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{
				"parentRef":      map[string]any{"name": "g1"},
				"controllerName": "example.com/gateway-controller",
				"conditions":     []any{theirs("Accepted"), theirs("ResolvedRefs")},
			}}, "status", "parents")
		},
		list: func(u *unstructured.Unstructured) []any {
			ps, _, _ := unstructured.NestedSlice(u.Object, "status", "parents")
			if len(ps) != 1 {
				return nil
			}
			l, _ := ps[0].(map[string]any)["conditions"].([]any)
			return l
		},
		kind: "HTTPRoute", object: "r1", place: "status.parents[Gateway g1].conditions",
	}} {
		t.Run(c.name, func(t *testing.T) {
			cl := newCluster(t)
			cl.apply(roomWorld(t, c.eff)...)
			// The Gateway's own controller has written its status.
			obj := cl.get("gateway.networking.k8s.io/v1", c.kind, "default", c.object)
			c.give(obj)
			if err := cl.client.Status().Update(context.Background(), obj); err != nil {
				t.Fatal(err)
			}
			r := cl.startWith(policies.Options{EffectivePolicies: true})

			var kept []string
			for _, k := range roomKinds[:6] {
				kept = append(kept, "strata.dev/"+k+"PolicyAffected")
			}
			var omitted []string
			for _, k := range roomKinds[6:] {
				omitted = append(omitted, "strata.dev/"+k+"PolicyAffected")
			}
			wantNote := c.place + ": " + strings.Join(omitted, ", ")
			cl.eventually("6 of Strata's 10 conditions beside the other controller's 2, the other 4 named", func() error {
				u := cl.get("gateway.networking.k8s.io/v1", c.kind, "default", c.object)
				var got []string
				for _, cond := range c.list(u) {
					got = append(got, cond.(map[string]any)["type"].(string))
				}
				if len(got) != 8 || !slices.Equal(got[2:], kept) {
					return fmt.Errorf("conditions %v", got)
				}
				if note := u.GetAnnotations()[hierarchy.OmittedAnnotation]; note != wantNote {
					return fmt.Errorf("annotation %q, want %q", note, wantNote)
				}
				return nil
			})
			cl.eventually("the EffectivePolicy names the lists the 4 are not in", func() error {
				ep := &effectivepolicy.EffectivePolicy{}
				if err := cl.client.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: c.object}, ep); err != nil {
					return err
				}
				for _, kp := range ep.Policies {
					want := []string(nil)
					if slices.Contains(omitted, "strata.dev/"+kp.Kind+"Affected") {
						want = []string{c.place}
					}
					if !slices.Equal(kp.ConditionOmittedFrom, want) {
						return fmt.Errorf("%s: conditionOmittedFrom %v, want %v", kp.Kind, kp.ConditionOmittedFrom, want)
					}
				}
				if len(ep.Policies) != len(roomKinds) {
					return fmt.Errorf("%d kinds in the record", len(ep.Policies))
				}
				return nil
			})
			// Nothing is refused and nothing is retried: once the queues
			// are idle the attempts (write latencies observed, failed ones
			// included) have stayed put.
			cl.idle(r, "after converging")
			attempts := r.sampleCount("strata_status_write_duration_seconds")
			cl.idle(r, "still, after converging")
			if n := r.sampleCount("strata_status_write_duration_seconds"); n != attempts {
				t.Errorf("%v more write attempts after converging", n-attempts)
			}
			if n := r.counter("strata_status_writes_refused_total"); n != 0 {
				t.Errorf("%v writes refused", n)
			}
		})
	}
}

// counter is the total of a counter (all its series).
func (r *running) counter(name string) float64 {
	var total float64
	mfs, _ := r.reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, m := range mf.GetMetric() {
				total += m.GetCounter().GetValue()
			}
		}
	}
	return total
}

// sampleCount is the number of observations of a histogram (all its
// series).
func (r *running) sampleCount(name string) uint64 {
	var total uint64
	mfs, _ := r.reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == name {
			for _, m := range mf.GetMetric() {
				total += m.GetHistogram().GetSampleCount()
			}
		}
	}
	return total
}
