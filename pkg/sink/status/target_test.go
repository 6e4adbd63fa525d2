package status_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/strata-dev/strata/pkg/sink/status"
)

func obj(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(y), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

// Merge replaces only Strata's part of a target: other controllers'
// conditions, listener entries and route parents stay; unchanged
// conditions keep their time; listener entries are never invented.
func TestMerge(t *testing.T) {
	owned := status.Owned{Types: map[string]bool{"strata.dev/ColorPolicyAffected": true}, Controllers: map[string]bool{"strata.dev/policy-controller": true}}
	current := obj(t, `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g, namespace: ns, annotations: {keep: me}}
status:
  conditions:
  - {type: Programmed, status: "True", reason: Programmed, message: theirs, lastTransitionTime: "2020-01-01T00:00:00Z"}
  - {type: strata.dev/ColorPolicyAffected, status: "True", reason: Affected, message: old, lastTransitionTime: "2021-01-01T00:00:00Z"}
  listeners:
  - name: http
    attachedRoutes: 1
    supportedKinds: []
    conditions:
    - {type: strata.dev/ColorPolicyAffected, status: "True", reason: Affected, message: old, lastTransitionTime: "2021-01-01T00:00:00Z"}
`)
	// affected is a condition as Fragments makes it, stamped at a later
	// snapshot's time.
	affected := func(msg string) []metav1.Condition {
		return []metav1.Condition{{Type: "strata.dev/ColorPolicyAffected", Status: metav1.ConditionTrue, Reason: "Affected", Message: msg,
			LastTransitionTime: metav1.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}
	}
	for _, c := range []struct {
		name     string
		fragment *status.Fragment
		want     string
		changed  bool
	}{{
		name: "same condition, other snapshot time: no change",
		fragment: &status.Fragment{
			Conditions: affected("old"),
			Listeners:  []status.Listener{{Name: "http", Conditions: affected("old")}},
		},
		want:    "",
		changed: false,
	}, {
		name: "new message keeps the transition time",
		fragment: &status.Fragment{
			Conditions: affected("new"),
			Listeners: []status.Listener{
				{Name: "http", Conditions: affected("old")},
				{Name: "https", Conditions: affected("never written")},
			},
		},
		want:    "message: new",
		changed: true,
	}, {
		name:     "no longer affected: Strata's conditions go, others stay",
		fragment: nil,
		want:     "message: theirs",
		changed:  true,
	}} {
		t.Run(c.name, func(t *testing.T) {
			desired, changed := status.Merge(current, c.fragment, owned)
			if changed != c.changed {
				t.Errorf("changed = %v", changed)
			}
			out, _ := yaml.Marshal(desired.Object)
			s := string(out)
			if !strings.Contains(s, c.want) || strings.Contains(s, "never written") || !strings.Contains(s, "keep: me") || !strings.Contains(s, "theirs") {
				t.Errorf("desired:\n%s", s)
			}
			if c.changed && c.fragment != nil && !strings.Contains(s, `lastTransitionTime: "2021-01-01T00:00:00Z"`) {
				t.Errorf("transition time not kept:\n%s", s)
			}
			if c.fragment == nil && strings.Contains(s, "ColorPolicyAffected") {
				t.Errorf("Strata's conditions left behind:\n%s", s)
			}
			if !changed {
				if d := cmp.Diff(current.Object, desired.Object); d != "" {
					t.Errorf("unchanged object differs: %s", d)
				}
			}
		})
	}
}

// Route parents: Strata's condition goes into the Gateway controller's
// entry the fragment names, next to that controller's conditions; no
// entry is created; entries with Strata's controllerName (written before
// v0.2) are removed.
func TestMergeRouteParents(t *testing.T) {
	owned := status.Owned{Types: map[string]bool{"strata.dev/ColorPolicyAffected": true}, Controllers: map[string]bool{"strata.dev/policy-controller": true}}
	current := obj(t, `
status:
  parents:
  - {parentRef: {name: g}, controllerName: example.com/gateway, conditions: [{type: Accepted, status: "True"}]}
  - {parentRef: {name: h}, controllerName: example.com/gateway, conditions: [{type: Accepted, status: "True"}, {type: strata.dev/ColorPolicyAffected, status: "True"}]}
  - {parentRef: {name: old}, controllerName: strata.dev/policy-controller, conditions: [{type: strata.dev/ColorPolicyAffected, status: "True"}]}
`)
	affected := metav1.Condition{Type: "strata.dev/ColorPolicyAffected", Status: metav1.ConditionTrue, Reason: "Affected"}
	for _, tc := range []struct {
		name string
		frag *status.Fragment
		want string
	}{
		{"into g's entry, out of h's", &status.Fragment{Parents: []gwv1.RouteParentStatus{
			{ParentRef: gwv1.ParentReference{Name: "g"}, ControllerName: "example.com/gateway", Conditions: []metav1.Condition{affected}},
			{ParentRef: gwv1.ParentReference{Name: "missing"}, ControllerName: "example.com/gateway", Conditions: []metav1.Condition{affected}},
		}}, `
- {parentRef: {name: g}, controllerName: example.com/gateway, conditions: [{type: Accepted, status: "True"}, {type: strata.dev/ColorPolicyAffected, status: "True", reason: Affected, message: "", lastTransitionTime: null}]}
- {parentRef: {name: h}, controllerName: example.com/gateway, conditions: [{type: Accepted, status: "True"}]}
`},
		{"not affected", nil, `
- {parentRef: {name: g}, controllerName: example.com/gateway, conditions: [{type: Accepted, status: "True"}]}
- {parentRef: {name: h}, controllerName: example.com/gateway, conditions: [{type: Accepted, status: "True"}]}
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			desired, changed := status.Merge(current, tc.frag, owned)
			if !changed {
				t.Error("no change")
			}
			var want []any
			if err := yaml.Unmarshal([]byte(tc.want), &want); err != nil {
				t.Fatal(err)
			}
			got, _, _ := unstructured.NestedSlice(desired.Object, "status", "parents")
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("parents (-want +got):\n%s", d)
			}
		})
	}
}

// A route without status reads as parents: null; that is no change.
func TestMergeNullLists(t *testing.T) {
	owned := status.Owned{Types: map[string]bool{"strata.dev/ColorPolicyAffected": true}, Controllers: map[string]bool{"strata.dev/policy-controller": true}}
	current := obj(t, "status: {parents: null, conditions: null}")
	if _, changed := status.Merge(current, nil, owned); changed {
		t.Error("null lists read as a change")
	}
}

// An entry of a Gateway controller that shares a controllerName with a
// policy kind is not Strata's old entry: it stays, Strata's condition out.
func TestMergeSharedControllerName(t *testing.T) {
	owned := status.Owned{Types: map[string]bool{"strata.dev/ColorPolicyAffected": true}, Controllers: map[string]bool{"strata.dev/policy-controller": true}}
	current := obj(t, `
status:
  parents:
  - {parentRef: {name: g}, controllerName: strata.dev/policy-controller, conditions: [{type: Accepted, status: "True"}, {type: strata.dev/ColorPolicyAffected, status: "True"}]}
`)
	desired, changed := status.Merge(current, nil, owned)
	got, _, _ := unstructured.NestedSlice(desired.Object, "status", "parents")
	var want []any
	if err := yaml.Unmarshal([]byte(`[{parentRef: {name: g}, controllerName: strata.dev/policy-controller, conditions: [{type: Accepted, status: "True"}]}]`), &want); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); !changed || d != "" {
		t.Errorf("changed %v, parents (-want +got):\n%s", changed, d)
	}
}
