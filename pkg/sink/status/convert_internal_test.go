package status

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestConditionMapIsConverter checks that conditionMap renders a
// condition as apimachinery's converter does, field for field, for the
// zero and set values of every field that has one.
func TestConditionMapIsConverter(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 2, 3, 4, 5, 6, 0, time.FixedZone("x", 3600)))
	for name, c := range map[string]metav1.Condition{
		"zero":       {},
		"full":       {Type: "strata.dev/RetryPolicyAffected", Status: metav1.ConditionTrue, ObservedGeneration: 7, LastTransitionTime: at, Reason: "Affected", Message: "affected by a/b"},
		"no time":    {Type: "T", Status: metav1.ConditionFalse, ObservedGeneration: 1, Reason: "R"},
		"no gen":     {Type: "T", Status: metav1.ConditionUnknown, LastTransitionTime: at},
		"negative":   {Type: "T", ObservedGeneration: -1},
		"multi-line": {Type: "T", Message: "a\nb: c"},
	} {
		t.Run(name, func(t *testing.T) {
			want, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&c)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, conditionMap(&c)); diff != "" {
				t.Errorf("conditionMap differs from the converter (-converter +conditionMap):\n%s", diff)
			}
		})
	}
}

// TestStoredStatusIsWholeObjects checks that storedStatus, which
// converts a typed object's status alone, reads the same status as the
// whole object converted, for every shape of object fragment reads.
func TestStoredStatusIsWholeObjects(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC))
	conds := []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionTrue, LastTransitionTime: at, Reason: "Accepted", ObservedGeneration: 2}}
	group := gwv1.Group(gwv1.GroupName)
	route := &gwv1.HTTPRoute{
		ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns"},
		Spec:       gwv1.HTTPRouteSpec{Hostnames: []gwv1.Hostname{"a.example"}},
		Status: gwv1.HTTPRouteStatus{RouteStatus: gwv1.RouteStatus{Parents: []gwv1.RouteParentStatus{{
			ParentRef:      gwv1.ParentReference{Group: &group, Name: "gw"},
			ControllerName: "example.com/gw",
			Conditions:     conds,
		}}}},
	}
	gw := &gwv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Name: "gw", Namespace: "ns"},
		Status: gwv1.GatewayStatus{
			Conditions: conds,
			Listeners:  []gwv1.ListenerStatus{{Name: "http", Conditions: conds, SupportedKinds: []gwv1.RouteGroupKind{{Kind: "HTTPRoute"}}}},
		},
	}
	u := &unstructured.Unstructured{Object: map[string]any{"kind": "X", "status": map[string]any{"conditions": []any{map[string]any{"type": "A"}}}}}
	for name, obj := range map[string]any{
		"route":                       route,
		"route without status":        &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Name: "r"}},
		"gateway":                     gw,
		"service":                     &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s"}},
		"namespace":                   &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "n"}},
		"unstructured":                u,
		"unstructured without status": &unstructured.Unstructured{Object: map[string]any{"kind": "X"}},
	} {
		t.Run(name, func(t *testing.T) {
			whole := toUnstructured(obj)
			got := storedStatus(obj)
			for _, path := range [][]string{{"status", "conditions"}, {"status", "listeners"}, {"status", "parents"}} {
				want, wantFound, _ := unstructured.NestedFieldNoCopy(whole, path...)
				have, haveFound, _ := unstructured.NestedFieldNoCopy(got, path...)
				if wantFound != haveFound || !cmp.Equal(want, have) {
					t.Errorf("%v: storedStatus has %v (%v), the whole object %v (%v)", path, have, haveFound, want, wantFound)
				}
			}
		})
	}
}
