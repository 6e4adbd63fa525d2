package status_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/sink/status"
)

var (
	t2021 = metav1.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
	t2026 = metav1.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tNow  = metav1.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
)

func cond(typ string, st metav1.ConditionStatus, at metav1.Time) metav1.Condition {
	return metav1.Condition{Type: typ, Status: st, Reason: typ, LastTransitionTime: at}
}

// Retime is the one rule for lastTransitionTime: a condition whose status
// is unchanged keeps its old time, a changed or new one keeps the time it
// has, and one without a time gets now.
func TestRetime(t *testing.T) {
	for _, c := range []struct {
		name      string
		old, cond []metav1.Condition
		want      metav1.Time
	}{
		{"unchanged keeps the old time", []metav1.Condition{cond("A", "True", t2021)}, []metav1.Condition{cond("A", "True", metav1.Time{})}, t2021},
		{"unchanged keeps the old time over a snapshot's", []metav1.Condition{cond("A", "True", t2021)}, []metav1.Condition{cond("A", "True", t2026)}, t2021},
		{"changed status: now", []metav1.Condition{cond("A", "False", t2021)}, []metav1.Condition{cond("A", "True", metav1.Time{})}, tNow},
		{"changed status keeps a snapshot's time", []metav1.Condition{cond("A", "False", t2021)}, []metav1.Condition{cond("A", "True", t2026)}, t2026},
		{"new type: now", nil, []metav1.Condition{cond("A", "True", metav1.Time{})}, tNow},
		{"old without a time carries none", []metav1.Condition{cond("A", "True", metav1.Time{})}, []metav1.Condition{cond("A", "True", metav1.Time{})}, tNow},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := status.Retime(c.old, c.cond, tNow)
			if len(got) != 1 || !got[0].LastTransitionTime.Equal(&c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// MergeAncestors is the one merge of status.ancestors (CLI and
// controller): other controllers' entries first, as stored; Strata's
// replaced, keeping the times of unchanged conditions of the same
// ancestorRef; anything that is not an entry dropped.
func TestMergeAncestors(t *testing.T) {
	group, kind, ns := gwv1.Group("gateway.networking.k8s.io"), gwv1.Kind("Gateway"), gwv1.Namespace("ns")
	ref := func(name string) gwv1.ParentReference {
		return gwv1.ParentReference{Group: &group, Kind: &kind, Namespace: &ns, Name: gwv1.ObjectName(name)}
	}
	storedRef := func(name string) map[string]any {
		return map[string]any{"group": string(group), "kind": string(kind), "namespace": string(ns), "name": name}
	}
	theirs := map[string]any{"ancestorRef": storedRef("g1"), "controllerName": "other.io/c",
		"conditions": []any{map[string]any{"type": "Accepted", "status": "True", "reason": "Accepted", "message": "", "lastTransitionTime": "2020-01-01T00:00:00Z"}}}
	stored := []any{
		map[string]any{"ancestorRef": storedRef("g1"), "controllerName": "strata.dev/c",
			"conditions": []any{map[string]any{"type": "Accepted", "status": "True", "reason": "Accepted", "message": "", "lastTransitionTime": "2021-01-01T00:00:00Z"}}},
		"not an entry",
		theirs,
		map[string]any{"ancestorRef": storedRef("gone"), "controllerName": "strata.dev/c"},
	}
	ours := []gwv1.PolicyAncestorStatus{
		{AncestorRef: ref("g1"), ControllerName: "strata.dev/c", Conditions: []metav1.Condition{cond("Accepted", "True", t2026), cond("Enforced", "True", t2026)}},
		{AncestorRef: ref("g2"), ControllerName: "strata.dev/c", Conditions: []metav1.Condition{cond("Accepted", "True", metav1.Time{})}},
	}
	merged, n := status.MergeAncestors(stored, ours, func(c string) bool { return c == "strata.dev/c" }, tNow)
	if n != 1 || len(merged) != 3 {
		t.Fatalf("theirs = %d, merged = %v", n, merged)
	}
	if d := cmp.Diff(theirs, merged[0]); d != "" {
		t.Errorf("other controller's entry not kept first, as stored: %s", d)
	}
	times := func(e any) []any {
		var out []any
		for _, c := range e.(map[string]any)["conditions"].([]any) {
			out = append(out, c.(map[string]any)["lastTransitionTime"])
		}
		return out
	}
	if d := cmp.Diff([]any{"2021-01-01T00:00:00Z", "2026-01-01T00:00:00Z"}, times(merged[1])); d != "" {
		t.Errorf("g1 times: %s", d)
	}
	if d := cmp.Diff([]any{"2026-05-01T00:00:00Z"}, times(merged[2])); d != "" {
		t.Errorf("g2 times: %s", d)
	}
}
