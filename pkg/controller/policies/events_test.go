package policies

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-dev/strata/pkg/sink/status"
)

func TestChangedStandings(t *testing.T) {
	accepted := standing{Place: "Gateway default/g1", Type: "Accepted", Status: "True", Reason: "Accepted", Message: "accepted"}
	conflicted := standing{Place: "Gateway default/g1", Type: "Accepted", Status: "False", Reason: "Conflicted", Message: "conflicts with default/p2"}
	enforced := standing{Place: "Gateway default/g1", Type: "Enforced", Status: "True", Reason: "Enforced", Message: "enforced"}
	retimed := enforced // a resync: same standing, only times differ (not compared)
	for _, tc := range []struct {
		name          string
		before, after []standing
		want          []standing
	}{
		{"first standing", nil, []standing{accepted, enforced}, []standing{accepted, enforced}},
		{"resync changes nothing", []standing{accepted, enforced}, []standing{accepted, retimed}, nil},
		{"Accepted -> Conflicted", []standing{accepted, enforced}, []standing{conflicted, enforced}, []standing{conflicted}},
		{"message changes", []standing{enforced}, []standing{{Place: enforced.Place, Type: "Enforced", Status: "True", Reason: "Enforced", Message: "other"}},
			[]standing{{Place: enforced.Place, Type: "Enforced", Status: "True", Reason: "Enforced", Message: "other"}}},
		{"condition gone", []standing{accepted, enforced}, []standing{accepted},
			[]standing{{Place: enforced.Place, Type: "Enforced", Status: "Unknown", Reason: "Removed", Message: "Enforced no longer reported"}}},
		{"same type, other place", []standing{accepted}, []standing{accepted, {Place: "Gateway default/g2", Type: "Accepted", Status: "True", Reason: "Accepted"}},
			[]standing{{Place: "Gateway default/g2", Type: "Accepted", Status: "True", Reason: "Accepted"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, changedStandings(tc.before, tc.after)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestStandings(t *testing.T) {
	ours := func(n string) bool { return n == "strata.dev/policy-controller" }
	anc := []any{
		map[string]any{"ancestorRef": map[string]any{"kind": "Gateway", "namespace": "default", "name": "g1"}, "controllerName": "other.example/c",
			"conditions": []any{map[string]any{"type": "Accepted", "status": "True", "reason": "Accepted"}}},
		map[string]any{"ancestorRef": map[string]any{"kind": "Gateway", "namespace": "default", "name": "g1", "sectionName": "http"}, "controllerName": "strata.dev/policy-controller",
			"conditions": []any{map[string]any{"type": "Accepted", "status": "False", "reason": "TargetNotFound", "message": "no such listener"}}},
	}
	if d := cmp.Diff([]standing{{Place: "Gateway default/g1 section http", Type: "Accepted", Status: "False", Reason: "TargetNotFound", Message: "no such listener"}},
		ancestorStandings(anc, ours)); d != "" {
		t.Errorf("ancestors (-want +got):\n%s", d)
	}
	owned := status.Owned{Types: map[string]bool{"strata.dev/ColorPolicyAffected": true}}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"annotations": map[string]any{"strata.dev/ColorPolicyAffected": "true", "other": "x"}},
		"status": map[string]any{
			"conditions": []any{map[string]any{"type": "Ready", "status": "True"}, map[string]any{"type": "strata.dev/ColorPolicyAffected", "status": "True", "reason": "Affected", "message": "affected by ColorPolicy default/p1"}},
			"listeners":  []any{map[string]any{"name": "http", "conditions": []any{map[string]any{"type": "strata.dev/ColorPolicyAffected", "status": "True", "reason": "Affected", "message": "m"}}}},
		},
	}}
	want := []standing{
		{Type: "strata.dev/ColorPolicyAffected", Status: "True", Reason: "Affected", Message: "affected by ColorPolicy default/p1"},
		{Place: "listener http", Type: "strata.dev/ColorPolicyAffected", Status: "True", Reason: "Affected", Message: "m"},
		{Place: "annotation", Type: "strata.dev/ColorPolicyAffected", Status: "True", Reason: "Affected", Message: "strata.dev/ColorPolicyAffected=true"},
	}
	if d := cmp.Diff(want, targetStandings(obj, owned)); d != "" {
		t.Errorf("target (-want +got):\n%s", d)
	}
}
