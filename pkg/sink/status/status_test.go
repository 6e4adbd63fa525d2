package status_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-dev/strata/internal/enginetest"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/sink/status"
)

var now = metav1.NewTime(time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC))

func runYAML(t *testing.T, docs ...string) *engine.Result {
	t.Helper()
	return enginetest.RunYAML(t, docs...)
}

const kind = `apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: t}
spec:
  group: example.io
  kind: TestPolicy
  managed: true
  targetKinds:
  - {group: "", kind: Namespace}
  - {group: gateway.networking.k8s.io, kind: Gateway}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute}
  effectiveTargetKind: {group: gateway.networking.k8s.io, kind: HTTPRoute}`

// programmedKind is kind with the Programmed vocabulary
// (spec.status.vocabulary).
const programmedKind = kind + `
  status: {vocabulary: Programmed}`

func gateway(name string) string {
	return fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: %s, namespace: ns, labels: {team: a}}
spec:
  gatewayClassName: c
  listeners: [{name: http, protocol: HTTP, port: 80}]`, name)
}

func route(name string, gws ...string) string {
	var refs []string
	for _, g := range gws {
		refs = append(refs, "{name: "+g+"}")
	}
	return fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: %s, namespace: ns, generation: 4}
spec:
  parentRefs: [%s]
  rules: [{backendRefs: [{name: svc, port: 80}]}]`, name, strings.Join(refs, ", "))
}

// Entries of other controllers survive; Strata's own entries are replaced;
// unchanged conditions keep their lastTransitionTime.
func TestPolicyAncestors(t *testing.T) {
	pol := `apiVersion: example.io/v1
kind: TestPolicy
metadata: {name: p, namespace: ns, generation: 2}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: g1}
  a: 1
status:
  ancestors:
  - ancestorRef: {group: gateway.networking.k8s.io, kind: Gateway, name: g1, namespace: ns}
    controllerName: other.io/controller
    conditions: [{type: Accepted, status: "True", reason: Accepted, message: theirs, lastTransitionTime: "2020-01-01T00:00:00Z"}]
  - ancestorRef: {group: gateway.networking.k8s.io, kind: Gateway, name: g1, namespace: ns}
    controllerName: strata.dev/policy-controller
    conditions:
    - {type: Accepted, status: "True", reason: Accepted, message: old, lastTransitionTime: "2021-01-01T00:00:00Z"}
    - {type: Overridden, status: "True", reason: Overridden, message: old, lastTransitionTime: "2021-01-01T00:00:00Z"}
  - ancestorRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gone, namespace: ns}
    controllerName: strata.dev/policy-controller
    conditions: [{type: Accepted, status: "True", reason: Accepted, message: stale, lastTransitionTime: "2021-01-01T00:00:00Z"}]`
	res := runYAML(t, kind, gateway("g1"), route("r", "g1"), pol)
	objs := status.Policies(res, now)
	if len(objs) != 1 {
		t.Fatalf("got %d policies", len(objs))
	}
	anc, _, _ := unstructured.NestedSlice(objs[0].Object, "status", "ancestors")
	if len(anc) != 2 {
		t.Fatalf("want the other controller's entry and one of ours, got %d: %v", len(anc), anc)
	}
	// The controller's merge, which times Strata's entries again against
	// what is stored when it writes, says the same of the same stored
	// entries.
	stored, _, _ := unstructured.NestedSlice(res.Policies[0].Object.Object, "status", "ancestors")
	merged, theirs := status.MergeAncestors(stored, status.Ancestors(res, now)[0].Ancestors, func(c string) bool { return c == "strata.dev/policy-controller" }, now)
	if theirs != 1 || !equality.Semantic.DeepEqual(merged, anc) {
		t.Errorf("the controller's merge (%d of others) differs:\n%v\n%v", theirs, merged, anc)
	}
	if anc[0].(map[string]any)["controllerName"] != "other.io/controller" {
		t.Errorf("other controller's entry not kept first: %v", anc[0])
	}
	ours := anc[1].(map[string]any)
	times := map[string]string{}
	for _, c := range ours["conditions"].([]any) {
		m := c.(map[string]any)
		times[m["type"].(string)+"="+m["status"].(string)] = m["lastTransitionTime"].(string)
		if m["observedGeneration"] != int64(2) {
			t.Errorf("observedGeneration = %v, want 2", m["observedGeneration"])
		}
	}
	want := map[string]string{
		"Accepted=True":           "2021-01-01T00:00:00Z", // unchanged: old time
		"Enforced=True":           "2026-05-01T00:00:00Z",
		"PartiallyEnforced=False": "2026-05-01T00:00:00Z",
		"Overridden=False":        "2026-05-01T00:00:00Z", // changed: now
	}
	for k, v := range want {
		if times[k] != v {
			t.Errorf("%s lastTransitionTime = %q, want %q (all: %v)", k, times[k], v, times)
		}
	}
}

// A kind of the Programmed vocabulary writes Accepted and Programmed
// alone; an entry written before the kind chose it loses its Enforced,
// PartiallyEnforced and Overridden conditions (Strata's entries are
// replaced whole), and Accepted, unchanged, keeps its time.
func TestPolicyAncestorsProgrammed(t *testing.T) {
	pol := func(name, day, target string) string {
		return fmt.Sprintf(`apiVersion: example.io/v1
kind: TestPolicy
metadata: {name: %s, namespace: ns, generation: 2, creationTimestamp: "2026-01-%sT00:00:00Z"}
spec:
  targetRef: %s
  a: %s
status:
  ancestors:
  - ancestorRef: {group: gateway.networking.k8s.io, kind: Gateway, name: g1, namespace: ns}
    controllerName: strata.dev/policy-controller
    conditions:
    - {type: Accepted, status: "True", reason: Accepted, message: old, lastTransitionTime: "2021-01-01T00:00:00Z"}
    - {type: Enforced, status: "True", reason: Enforced, message: old, lastTransitionTime: "2021-01-01T00:00:00Z"}
    - {type: PartiallyEnforced, status: "False", reason: NotApplicable, message: old, lastTransitionTime: "2021-01-01T00:00:00Z"}
    - {type: Overridden, status: "False", reason: NotApplicable, message: old, lastTransitionTime: "2021-01-01T00:00:00Z"}`,
			name, day, target, name)
	}
	// Both set a; route, more specific, wins it (GEP-713 "Conflict
	// resolution rules"), so gw is Overridden in its only context.
	res := runYAML(t, programmedKind, gateway("g1"), route("r", "g1"),
		pol("gw", "02", "{group: gateway.networking.k8s.io, kind: Gateway, name: g1}"),
		pol("route", "05", "{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}"))
	got := map[string][]string{}
	for _, o := range status.Policies(res, now) {
		anc, _, _ := unstructured.NestedSlice(o.Object, "status", "ancestors")
		for _, a := range anc {
			for _, c := range a.(map[string]any)["conditions"].([]any) {
				m := c.(map[string]any)
				got[o.GetName()] = append(got[o.GetName()], fmt.Sprintf("%s=%s %s %s: %s", m["type"], m["status"], m["reason"], m["lastTransitionTime"], m["message"]))
			}
		}
	}
	want := map[string][]string{
		"gw": {
			"Accepted=True Accepted 2021-01-01T00:00:00Z: accepted",
			"Programmed=False Overridden 2026-05-01T00:00:00Z: overridden by ns/route in its only context",
		},
		"route": {
			"Accepted=True Accepted 2021-01-01T00:00:00Z: accepted",
			"Programmed=True Programmed 2026-05-01T00:00:00Z: fully programmed in 1 context",
		},
	}
	for name, w := range want {
		if strings.Join(got[name], "\n") != strings.Join(w, "\n") {
			t.Errorf("%s conditions\n got: %s\nwant: %s", name, strings.Join(got[name], "\n      "), strings.Join(w, "\n      "))
		}
	}
}

// Without a CRD, at most 16 ancestors (Gateway API v1.6 PolicyStatus):
// other controllers' entries first, then Strata's, sorted by ref and cut;
// the kept ones say how many were left out.
func TestMaxAncestors(t *testing.T) {
	docs := []string{kind}
	var gws []string
	for i := 0; i < 40; i++ {
		name := fmt.Sprintf("g%02d", i)
		docs = append(docs, gateway(name))
		gws = append(gws, name)
	}
	docs = append(docs, route("r", gws...), `apiVersion: example.io/v1
kind: TestPolicy
metadata: {name: p, namespace: ns}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, selector: {matchLabels: {team: a}}}]
  a: 1
status:
  ancestors:
  - ancestorRef: {group: gateway.networking.k8s.io, kind: Gateway, name: x, namespace: ns}
    controllerName: other.io/controller
    conditions: [{type: Accepted, status: "True", reason: Accepted, message: theirs, lastTransitionTime: "2020-01-01T00:00:00Z"}]`)
	res := runYAML(t, docs...)
	if n := len(res.Outcome.Policies[0].Ancestors); n != 40 {
		t.Fatalf("engine ancestors = %d, want 40", n)
	}
	anc, _, _ := unstructured.NestedSlice(status.Policies(res, now)[0].Object, "status", "ancestors")
	if len(anc) != status.MaxAncestors {
		t.Fatalf("got %d ancestors, want %d", len(anc), status.MaxAncestors)
	}
	last := anc[len(anc)-1].(map[string]any)["ancestorRef"].(map[string]any)["name"]
	if last != "g14" {
		t.Errorf("last kept ancestor %v, want g14 (sorted, 15 of ours after 1 other)", last)
	}
	msg := anc[1].(map[string]any)["conditions"].([]any)[0].(map[string]any)["message"]
	if want := "accepted; 25 more ancestors not listed (room for 15 in status.ancestors), none with a problem"; msg != want {
		t.Errorf("Accepted message %q, want %q", msg, want)
	}
}

// Route targets get a condition in each status.parents entry the
// controller of a Gateway through which they are affected wrote (its
// parentRef names the Gateway, its controllerName is the GatewayClass's);
// Strata never creates an entry, so a route without one, or whose entries
// another controller wrote, gets the annotation (docs/status.md).
// Namespaces, which have no conditions, an annotation.
func TestTargets(t *testing.T) {
	const class = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: c}
spec: {controllerName: example.com/gateway}`
	policy := `apiVersion: example.io/v1
kind: TestPolicy
metadata: {name: p, namespace: ns}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: g2}
  a: 1`
	withStatus := func(entries string) string {
		return route("r", "g1", "g2") + "\nstatus:\n  parents:\n" + entries
	}
	const (
		g1Entry    = "  - {parentRef: {name: g1}, controllerName: example.com/gateway, conditions: [{type: Accepted, status: \"True\", reason: Accepted, message: ok, lastTransitionTime: \"2020-01-01T00:00:00Z\"}]}\n"
		g2Entry    = "  - {parentRef: {name: g2, sectionName: http}, controllerName: example.com/gateway, conditions: [{type: Accepted, status: \"True\", reason: Accepted, message: ok, lastTransitionTime: \"2020-01-01T00:00:00Z\"}]}\n"
		g2Other    = "  - {parentRef: {name: g2}, controllerName: other.example/mesh, conditions: []}\n"
		annotation = "strata.dev/TestPolicyAffected"
	)
	for _, tc := range []struct {
		name       string
		docs       []string
		wantParent string // name of the one entry with Strata's condition; "" none
		wantAnn    bool
	}{
		{"no status.parents: annotation", []string{class, route("r", "g1", "g2")}, "", true},
		{"no GatewayClass: annotation", []string{withStatus(g2Entry)}, "", true},
		{"entry of the Gateway's controller", []string{class, withStatus(g1Entry + g2Entry)}, "g2", false},
		{"only the other Gateway's entry: annotation", []string{class, withStatus(g1Entry)}, "", true},
		{"entry of another controller: annotation", []string{class, withStatus(g2Other)}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs := append([]string{kind, gateway("g1"), gateway("g2"), policy}, tc.docs...)
			objs := status.Targets(runYAML(t, docs...), now)
			if len(objs) != 1 {
				t.Fatalf("targets: %v", objs)
			}
			if got := objs[0].GetAnnotations()[annotation] == "true"; got != tc.wantAnn {
				t.Errorf("annotation %v, want %v: %v", got, tc.wantAnn, objs[0].GetAnnotations())
			}
			parents, _, _ := unstructured.NestedSlice(objs[0].Object, "status", "parents")
			if tc.wantParent == "" {
				if len(parents) != 0 {
					t.Errorf("Strata wrote parent entries: %v", parents)
				}
				return
			}
			if len(parents) != 1 {
				t.Fatalf("want one parent entry (%s), got %v", tc.wantParent, parents)
			}
			p := parents[0].(map[string]any)
			if p["parentRef"].(map[string]any)["name"] != tc.wantParent || p["controllerName"] != "example.com/gateway" {
				t.Errorf("parent entry %v", p)
			}
			conds := p["conditions"].([]any)
			if len(conds) != 1 {
				t.Fatalf("conditions %v, want Strata's only", conds)
			}
			c := conds[0].(map[string]any)
			if c["type"] != annotation || c["status"] != "True" || c["observedGeneration"] != int64(4) || !strings.Contains(c["message"].(string), "ns/p") {
				t.Errorf("condition %v", c)
			}
		})
	}

	nsKind := strings.Replace(kind, "effectiveTargetKind: {group: gateway.networking.k8s.io, kind: HTTPRoute}", "effectiveTargetKind: {group: \"\", kind: Namespace}", 1)
	nsKind = strings.Replace(nsKind, "  - {group: gateway.networking.k8s.io, kind: Gateway}\n  - {group: gateway.networking.k8s.io, kind: HTTPRoute}\n", "", 1)
	res := runYAML(t, nsKind, `apiVersion: example.io/v1
kind: TestPolicy
metadata: {name: p, namespace: ns}
spec:
  targetRef: {group: "", kind: Namespace, name: ns}
  a: 1`)
	objs := status.Targets(res, now)
	if len(objs) != 1 || objs[0].GetAnnotations()["strata.dev/TestPolicyAffected"] != "true" {
		t.Errorf("namespace target: %v", objs)
	}
}
