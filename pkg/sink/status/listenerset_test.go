package status_test

import (
	"strings"
	"testing"

	"github.com/strata-dev/strata/pkg/sink/status"
)

// A policy targeting a ListenerSet (GEP-1713 "Policy Attachment"): its
// <Kind>Affected goes to the ListenerSet's status.listeners[] for a
// listener target, as for a Gateway; a route affected through the
// ListenerSet gets its condition in the entry for the ListenerSet (its
// direct parent) that the Gateway's controller wrote, never a new one; the
// policy's ancestor is the ListenerSet.
func TestListenerSetTargets(t *testing.T) {
	lsKind := strings.Replace(kind, "  - {group: gateway.networking.k8s.io, kind: HTTPRoute}\n", "  - {group: gateway.networking.k8s.io, kind: ListenerSet}\n  - {group: gateway.networking.k8s.io, kind: HTTPRoute}\n", 1)
	gw := `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: ns}
spec:
  gatewayClassName: c
  allowedListeners: {namespaces: {from: Same}}
  listeners: [{name: http, protocol: HTTP, port: 80}]`
	ls := `apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: ls, namespace: ns}
spec:
  parentRef: {name: gw}
  listeners: [{name: a, protocol: HTTP, port: 8080}]`
	rt := `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: ns, generation: 4}
spec:
  parentRefs: [{kind: ListenerSet, name: ls, sectionName: a}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]`
	pol := func(section string) string {
		return `apiVersion: example.io/v1
kind: TestPolicy
metadata: {name: p, namespace: ns}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: ListenerSet, name: ls` + section + `}
  a: 1`
	}

	class := `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: c}
spec: {controllerName: example.com/gw}`
	// Strata creates no route parent entry (docs/status.md): without one
	// written by the Gateway's controller, the route gets the annotation.
	res := runYAML(t, lsKind, class, gw, ls, rt, pol(""))
	objs := status.Targets(res, now)
	if len(objs) != 1 || objs[0].GetKind() != "HTTPRoute" {
		t.Fatalf("targets: %v", objs)
	}
	if st, _ := objs[0].Object["status"].(map[string]any); st != nil && st["parents"] != nil {
		t.Errorf("Strata created route parent entries: %v", st["parents"])
	}
	if objs[0].GetAnnotations()["strata.dev/TestPolicyAffected"] != "true" {
		t.Errorf("annotations %v, want strata.dev/TestPolicyAffected", objs[0].GetAnnotations())
	}
	// The entry the ListenerSet's Gateway's controller wrote for the
	// ListenerSet (the route's parent) carries the condition.
	written := rt + `
status:
  parents:
  - parentRef: {group: gateway.networking.k8s.io, kind: ListenerSet, name: ls, sectionName: a}
    controllerName: example.com/gw
    conditions:
    - {type: Accepted, status: "True", reason: Accepted, message: ok, lastTransitionTime: "2026-01-01T00:00:00Z"}`
	res = runYAML(t, lsKind, class, gw, ls, written, pol(""))
	objs = status.Targets(res, now)
	if len(objs) != 1 {
		t.Fatalf("targets: %v", objs)
	}
	parents, _ := objs[0].Object["status"].(map[string]any)["parents"].([]any)
	if len(parents) != 1 {
		t.Fatalf("want the Gateway controller's entry for the ListenerSet, got %v", parents)
	}
	entry := parents[0].(map[string]any)
	pr := entry["parentRef"].(map[string]any)
	conds, _ := entry["conditions"].([]any)
	if pr["kind"] != "ListenerSet" || pr["name"] != "ls" || entry["controllerName"] != "example.com/gw" || len(conds) != 1 || conds[0].(map[string]any)["type"] != "strata.dev/TestPolicyAffected" {
		t.Errorf("entry %v, want ListenerSet ls of example.com/gw with TestPolicyAffected", entry)
	}
	if anc := res.Outcome.Policies[0].Ancestors; len(anc) != 1 || anc[0].Ref.Kind != "ListenerSet" || anc[0].Ref.Name != "ls" {
		t.Errorf("ancestors %v, want ListenerSet ls", anc)
	}

	lsEffective := strings.Replace(lsKind, "effectiveTargetKind: {group: gateway.networking.k8s.io, kind: HTTPRoute}", "effectiveTargetKind: {group: gateway.networking.k8s.io, kind: ListenerSet}", 1)
	lsEffective = strings.Replace(lsEffective, "  - {group: gateway.networking.k8s.io, kind: HTTPRoute}\n", "", 1)
	res = runYAML(t, lsEffective, gw, ls, rt, pol(", sectionName: a"))
	var found bool
	for _, f := range status.Fragments(res, now) {
		if f.GVK.Kind != "ListenerSet" {
			continue
		}
		found = true
		if len(f.Listeners) != 1 || f.Listeners[0].Name != "a" || len(f.Listeners[0].Conditions) != 1 || f.Listeners[0].Conditions[0].Type != "strata.dev/TestPolicyAffected" {
			t.Errorf("ListenerSet fragment listeners %+v, want a with TestPolicyAffected", f.Listeners)
		}
	}
	if !found {
		t.Errorf("no fragment for the ListenerSet")
	}
}
