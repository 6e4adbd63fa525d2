package status_test

import (
	"strings"
	"testing"

	"github.com/strata-dev/strata/pkg/sink/status"
)

// A policy targeting a ListenerSet (GEP-1713 "Policy Attachment"): its
// <Kind>Affected goes to the ListenerSet's status.listeners[] for a
// listener target, as for a Gateway; a route affected through the
// ListenerSet gets a status.parents entry for it (its direct parent); the
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

	res := runYAML(t, lsKind, gw, ls, rt, pol(""))
	objs := status.Targets(res, now)
	if len(objs) != 1 || objs[0].GetKind() != "HTTPRoute" {
		t.Fatalf("targets: %v", objs)
	}
	parents, _ := objs[0].Object["status"].(map[string]any)["parents"].([]any)
	if len(parents) != 1 {
		t.Fatalf("want one parent entry (the ListenerSet), got %v", parents)
	}
	pr := parents[0].(map[string]any)["parentRef"].(map[string]any)
	if pr["kind"] != "ListenerSet" || pr["name"] != "ls" {
		t.Errorf("parentRef %v, want ListenerSet ls", pr)
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
