package status_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-dev/strata/pkg/sink/status"
)

// policyCRD is a labelled CRD for TestPolicy whose status.ancestors holds
// at most max entries.
func policyCRD(max int) string {
	return fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: testpolicies.example.io
  labels: {gateway.networking.k8s.io/policy: inherited}
spec:
  group: example.io
  scope: Namespaced
  names: {kind: TestPolicy, plural: testpolicies}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
          status:
            type: object
            properties:
              ancestors: {type: array, maxItems: %d, items: {type: object, x-kubernetes-preserve-unknown-fields: true}}`, max)
}

// capWorld: gateways g00..g(n-1) under one route r; policy "wide" on all
// of them (and on a Gateway that does not exist, a problem); older
// policies on the gateways named in overridden, which beat "wide" there
// (GEP-713 "Conflict resolution rules": the older wins), another problem.
func capWorld(n int, overridden ...string) []string {
	docs := []string{kind}
	var gws []string
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("g%02d", i)
		docs = append(docs, gateway(name))
		gws = append(gws, name)
	}
	refs := `[{group: gateway.networking.k8s.io, kind: Gateway, selector: {matchLabels: {team: a}}}, {group: gateway.networking.k8s.io, kind: Gateway, name: zz-missing}]`
	docs = append(docs, route("r", gws...), `apiVersion: example.io/v1
kind: TestPolicy
metadata: {name: wide, namespace: ns, creationTimestamp: "2026-01-02T00:00:00Z"}
spec:
  targetRefs: `+refs+`
  a: 1`)
	for _, g := range overridden {
		docs = append(docs, fmt.Sprintf(`apiVersion: example.io/v1
kind: TestPolicy
metadata: {name: old-%s, namespace: ns, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: Gateway, name: %s}
  a: 2`, g, g))
	}
	return docs
}

// TestAncestorsCap: status.ancestors holds at most the CRD's maxItems, or
// 16 without a CRD (Gateway API v1.6 PolicyStatus); when more ancestors
// exist, those with problems are kept first, the kept ones stay in ref
// order and say how many were left out (issue 11, "Status that the API
// server accepts").
func TestAncestorsCap(t *testing.T) {
	for _, c := range []struct {
		name     string
		docs     []string
		want     []string // kept ancestor names, in order
		wantNote string
	}{{
		name: "no CRD: 16, problems first",
		docs: capWorld(20, "g17", "g18", "g19"),
		want: []string{"g00", "g01", "g02", "g03", "g04", "g05", "g06", "g07", "g08", "g09", "g10", "g11", "g17", "g18", "g19", "zz-missing"},
		// 21 ancestors: 4 problems and 12 of the 17 others kept.
		wantNote: "; 5 more ancestors not listed (room for 16 in status.ancestors), none with a problem",
	}, {
		// A kind of the Programmed vocabulary: Programmed=False
		// Overridden is the problem Overridden=True is.
		name: "no CRD, Programmed vocabulary: 16, problems first",
		docs: func() []string {
			docs := capWorld(20, "g17", "g18", "g19")
			docs[0] = programmedKind
			return docs
		}(),
		want:     []string{"g00", "g01", "g02", "g03", "g04", "g05", "g06", "g07", "g08", "g09", "g10", "g11", "g17", "g18", "g19", "zz-missing"},
		wantNote: "; 5 more ancestors not listed (room for 16 in status.ancestors), none with a problem",
	}, {
		name:     "CRD maxItems 5, more problems than room",
		docs:     append(capWorld(10, "g01", "g03", "g05", "g07", "g09", "g08"), policyCRD(5)),
		want:     []string{"g01", "g03", "g05", "g07", "g08"},
		wantNote: "; 6 more ancestors not listed (room for 5 in status.ancestors), 2 with problems",
	}, {
		// The CRD of a kind a PolicyKind declares bounds it without the
		// policy label too.
		name:     "unlabelled CRD of the declared kind, maxItems 3",
		docs:     append(capWorld(6, "g02"), strings.Replace(policyCRD(3), "labels: {gateway.networking.k8s.io/policy: inherited}", "labels: {}", 1)),
		want:     []string{"g00", "g02", "zz-missing"},
		wantNote: "; 4 more ancestors not listed (room for 3 in status.ancestors), none with a problem",
	}, {
		name: "CRD maxItems 40: all fit, no note",
		docs: append(capWorld(20, "g17"), policyCRD(40)),
		want: func() []string {
			var all []string
			for i := 0; i < 20; i++ {
				all = append(all, fmt.Sprintf("g%02d", i))
			}
			return append(all, "zz-missing")
		}(),
	}} {
		t.Run(c.name, func(t *testing.T) {
			res := runYAML(t, c.docs...)
			var anc []any
			for _, o := range status.Policies(res, now) {
				if o.GetName() == "wide" {
					anc, _, _ = unstructured.NestedSlice(o.Object, "status", "ancestors")
				}
			}
			var got []string
			for _, a := range anc {
				m := a.(map[string]any)
				got = append(got, m["ancestorRef"].(map[string]any)["name"].(string))
				for _, cond := range m["conditions"].([]any) {
					cm := cond.(map[string]any)
					if cm["type"] != "Accepted" {
						continue
					}
					msg := cm["message"].(string)
					if c.wantNote == "" && strings.Contains(msg, "not listed") || c.wantNote != "" && !strings.HasSuffix(msg, c.wantNote) {
						t.Errorf("%v: Accepted message %q, want note %q", got[len(got)-1], msg, c.wantNote)
					}
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("ancestors %v, want %v", got, c.want)
			}
		})
	}
}

// TestProblem: an ancestor has a problem when not Accepted, or Accepted
// but partly or not at all in force, in either vocabulary.
func TestProblem(t *testing.T) {
	cond := func(typ, st, reason string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: metav1.ConditionStatus(st), Reason: reason}
	}
	accepted := cond("Accepted", "True", "Accepted")
	for _, c := range []struct {
		name  string
		conds []metav1.Condition
		want  bool
	}{
		{"not accepted", []metav1.Condition{cond("Accepted", "False", "Conflicted")}, true},
		{"Enforced", []metav1.Condition{accepted, cond("Enforced", "True", "Enforced"), cond("PartiallyEnforced", "False", "NotApplicable"), cond("Overridden", "False", "NotApplicable")}, false},
		{"PartiallyEnforced", []metav1.Condition{accepted, cond("Enforced", "False", "NotApplicable"), cond("PartiallyEnforced", "True", "PartiallyEnforced"), cond("Overridden", "False", "NotApplicable")}, true},
		{"Overridden", []metav1.Condition{accepted, cond("Enforced", "False", "NotApplicable"), cond("PartiallyEnforced", "False", "NotApplicable"), cond("Overridden", "True", "Overridden")}, true},
		{"Programmed", []metav1.Condition{accepted, cond("Programmed", "True", "Programmed")}, false},
		{"PartiallyProgrammed", []metav1.Condition{accepted, cond("Programmed", "True", "PartiallyProgrammed")}, true},
		{"Programmed=False Overridden", []metav1.Condition{accepted, cond("Programmed", "False", "Overridden")}, true},
	} {
		if got := status.Problem(c.conds); got != c.want {
			t.Errorf("%s: Problem = %v, want %v", c.name, got, c.want)
		}
	}
}
