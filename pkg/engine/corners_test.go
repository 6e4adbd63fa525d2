package engine_test

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// noneKind declares an Inherited kind that supports only None, targets
// Gateways and HTTPRoutes and augments the given effective kind.
func noneKind(effective string) string {
	return `apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: tests}
spec:
  group: example.io
  kind: TestPolicy
  managed: true
  targetKinds:
  - {group: gateway.networking.k8s.io, kind: Gateway}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute}
  effectiveTargetKind: {group: "` + group(effective) + `", kind: ` + effective + `}
  strategies: {supported: [None], default: None}
`
}

// lonely is a Gateway no route attaches to.
const lonely = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: lonely, namespace: infra}
spec:
  gatewayClassName: shared
  listeners:
  - {name: http, protocol: HTTP, port: 80}
`

// wantCondition checks one condition of a policy's first ancestor: its
// status, reason and words its message must hold.
func wantCondition(t *testing.T, conds []metav1.Condition, typ string, status metav1.ConditionStatus, reason string, mentions ...string) {
	t.Helper()
	c := meta.FindStatusCondition(conds, typ)
	if c == nil {
		t.Fatalf("no %s condition in %+v", typ, conds)
	}
	if c.Status != status || c.Reason != reason {
		t.Errorf("%s = %s/%s (%q), want %s/%s", typ, c.Status, c.Reason, c.Message, status, reason)
	}
	for _, m := range mentions {
		if !strings.Contains(c.Message, m) {
			t.Errorf("%s message %q does not mention %q", typ, c.Message, m)
		}
	}
}

// TestSupersededAsAWhole: a policy that sets no field is Overridden where
// a more specific spec replaces it whole (GEP-713 "Merge strategies",
// "Atomic spec": "either one spec wins or another"), as Envoy Gateway
// reports it, and Enforced where nothing replaces it.
func TestSupersededAsAWhole(t *testing.T) {
	empty := policy("infra", "empty", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}")
	for _, c := range []struct {
		name     string
		docs     []string
		want     string
		mentions []string
	}{
		{"004 \"Merge strategies\": Atomic Defaults replaces an empty spec", []string{kind("Service", ""), empty,
			policy("web", "route", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}\n  a: 1")},
			"Overridden", []string{"web/route"}},
		{"004 \"Merge strategies\": None on a more specific target replaces an empty spec", []string{noneKind("Service"), empty,
			policy("web", "route", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}\n  a: 1")},
			"Overridden", []string{"web/route"}},
		{"alone, an empty spec is enforced", []string{kind("Service", ""), empty}, "Enforced", nil},
		{"patched, an empty spec is not replaced", []string{kind("Service", "  strategies:\n    default: PatchDefaults\n"), empty,
			policy("web", "route", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}\n  a: 1")},
			"Enforced", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := runYAML(t, append([]string{topo}, c.docs...)...)
			conds := statusOf(t, res, "empty")
			wantCondition(t, conds, "Accepted", metav1.ConditionTrue, "Accepted")
			wantCondition(t, conds, c.want, metav1.ConditionTrue, c.want, c.mentions...)
		})
	}
}

// TestNoneConflictWithoutContexts: 004 "Merge strategies" None: "all the
// other metaresources attached to the same target are rejected", also
// when no context path reaches the target yet (a Gateway without routes,
// for a kind whose effective target is HTTPRoute).
func TestNoneConflictWithoutContexts(t *testing.T) {
	res := runYAML(t, topo, lonely, noneKind("HTTPRoute"),
		policy("infra", "old", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: lonely}\n  v: old"),
		policy("infra", "new", "2026-01-02T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: lonely}\n  v: new"),
		policy("infra", "aaa-same-time", "2026-01-02T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: lonely}\n  v: aaa"))
	for _, name := range []string{"new", "aaa-same-time"} {
		wantCondition(t, statusOf(t, res, name), "Accepted", metav1.ConditionFalse, "Conflicted", "infra/old")
	}
	old := statusOf(t, res, "old")
	wantCondition(t, old, "Accepted", metav1.ConditionTrue, "Accepted")
	wantCondition(t, old, "Enforced", metav1.ConditionTrue, "Enforced", "no HTTPRoute is reached")
}

// TestNoneBothBlocks: a policy of a None kind with a defaults and an
// overrides block is one spec (004 "Merge strategies" None rejects the
// *other* metaresources), its overrides beating its defaults (001
// "Conflict Resolution"); it is not in conflict with itself.
func TestNoneBothBlocks(t *testing.T) {
	res := runYAML(t, topo, noneKind("Service"),
		policy("web", "both", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}\n  defaults: {a: d, b: d}\n  overrides: {a: o}"))
	conds := statusOf(t, res, "both")
	wantCondition(t, conds, "Accepted", metav1.ConditionTrue, "Accepted")
	wantCondition(t, conds, "Enforced", metav1.ConditionTrue, "Enforced")
	if got, want := effectiveOf(res, "baker"), []map[string]any{{"a": "o", "b": "d"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("effective baker = %v, want %v", got, want)
	}
}

// api is a second route under infra/gw to the same Service.
const api = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: api, namespace: web}
spec:
  hostnames: [web.example.com]
  parentRefs: [{name: gw, namespace: infra}]
  rules:
  - backendRefs: [{name: baker, namespace: baker, port: 80}]
`

// TestMessagesHaveNoEmptySlots: a condition message names the policies,
// the contexts and the fields it speaks of, or says which are unknown;
// it never reads "superseded by  in 1 of 2 contexts (fields )".
func TestMessagesHaveNoEmptySlots(t *testing.T) {
	both := "  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}, {group: gateway.networking.k8s.io, kind: HTTPRoute, name: api}]\n  v: new"
	for _, c := range []struct {
		name     string
		docs     []string
		policy   string
		typ      string
		mentions []string
	}{
		{"004 \"Merge strategies\" None: conflicted in one context, enforced in the other", []string{noneKind("Service"),
			policy("web", "old", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}\n  v: old"),
			policy("web", "new", "2026-01-02T00:00:00Z", both)},
			"new", "PartiallyEnforced", []string{"conflicts with web/old in 1 of 2 contexts"}},
		{"004 \"Merge strategies\" Atomic: a spec setting no field replaced in one context", []string{kind("Service", ""),
			policy("infra", "new", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}"),
			policy("web", "route", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}\n  a: 1")},
			"new", "PartiallyEnforced", []string{"superseded by web/route in 1 of 2 contexts", "whole spec"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := runYAML(t, append([]string{topo, api}, c.docs...)...)
			conds := statusOf(t, res, c.policy)
			wantCondition(t, conds, c.typ, metav1.ConditionTrue, c.typ, c.mentions...)
			for _, cond := range conds {
				for _, bad := range []string{"  ", "()", "( ", " )", "by  ", "fields )", "with  "} {
					if strings.Contains(cond.Message, bad) {
						t.Errorf("%s message %q has an empty slot (%q)", cond.Type, cond.Message, bad)
					}
				}
			}
		})
	}
}

// TestOverriddenAndConflicted: rejected by None in one context and
// replaced by a more specific target in the other (004 "Merge
// strategies"), a policy's message counts each rather than saying
// "overridden ... in all 2 contexts".
func TestOverriddenAndConflicted(t *testing.T) {
	named := strings.Replace(api, "  - backendRefs:", "  - name: main\n    backendRefs:", 1)
	res := runYAML(t, topo, named, noneKind("Service"),
		policy("web", "old", "2026-01-01T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}\n  v: old"),
		policy("web", "rule", "2026-01-03T00:00:00Z", "  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: api, sectionName: main}\n  v: rule"),
		policy("web", "new", "2026-01-02T00:00:00Z", "  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: web}, {group: gateway.networking.k8s.io, kind: HTTPRoute, name: api}]\n  v: new"))
	wantCondition(t, statusOf(t, res, "new"), "Overridden", metav1.ConditionTrue, "Overridden",
		"overridden by web/rule in 1 of 2 contexts; conflicts with web/old in 1")
}
