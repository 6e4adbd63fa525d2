package policies

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-dev/strata/pkg/sink/status"
)

// standing is one condition Strata writes, as an Event reports it: the
// place it sits in (an ancestor of a policy, a listener or route parent
// of a target, or the object itself) and its type, status, reason and
// message.
type standing struct {
	Place, Type, Status, Reason, Message string
}

// eventType is Normal for a True condition, Warning otherwise: GEP-713's
// conditions are positive-polarity, so a False one is a problem.
func (s standing) eventType() string {
	if s.Status == "True" {
		return corev1.EventTypeNormal
	}
	return corev1.EventTypeWarning
}

// note is the Event's message: where, and the engine's message.
func (s standing) note() string {
	if s.Place == "" {
		return s.Message
	}
	return s.Place + ": " + s.Message
}

// changedStandings is what a write changes of Strata's conditions, in
// order: every condition of after whose status, reason or message differs
// from before's (or that before lacks), and, as a "Removed" standing,
// every condition of before that after lacks.
func changedStandings(before, after []standing) []standing {
	key := func(s standing) string { return s.Place + "\x00" + s.Type }
	old := map[string]standing{}
	for _, s := range before {
		old[key(s)] = s
	}
	seen := map[string]bool{}
	var out []standing
	for _, s := range after {
		seen[key(s)] = true
		if o, ok := old[key(s)]; ok && o.Status == s.Status && o.Reason == s.Reason && o.Message == s.Message {
			continue
		}
		out = append(out, s)
	}
	for _, s := range before {
		if !seen[key(s)] {
			out = append(out, standing{Place: s.Place, Type: s.Type, Status: "Unknown", Reason: "Removed",
				Message: fmt.Sprintf("%s no longer reported", s.Type)})
		}
	}
	return out
}

// ancestorStandings are the conditions of Strata's entries of a
// policy's status.ancestors (those whose controllerName ours accepts),
// placed by ancestorRef.
func ancestorStandings(ancestors []any, ours func(string) bool) []standing {
	var out []standing
	for _, a := range ancestors {
		m, ok := a.(map[string]any)
		if !ok || !ours(str(m, "controllerName")) {
			continue
		}
		ref, _ := m["ancestorRef"].(map[string]any)
		out = append(out, conditionStandings(refString(ref), m["conditions"], nil)...)
	}
	return out
}

// targetStandings are Strata's conditions on a target (owned.Types): in
// status.conditions, status.listeners[], status.parents[], and the
// annotations that stand in for conditions.
func targetStandings(obj *unstructured.Unstructured, owned status.Owned) []standing {
	if obj == nil {
		return nil
	}
	isOurs := func(t string) bool { return owned.Types[t] }
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	out := conditionStandings("", conds, isOurs)
	ls, _, _ := unstructured.NestedSlice(obj.Object, "status", "listeners")
	for _, l := range ls {
		if m, ok := l.(map[string]any); ok {
			out = append(out, conditionStandings("listener "+str(m, "name"), m["conditions"], isOurs)...)
		}
	}
	ps, _, _ := unstructured.NestedSlice(obj.Object, "status", "parents")
	for _, p := range ps {
		if m, ok := p.(map[string]any); ok {
			ref, _ := m["parentRef"].(map[string]any)
			out = append(out, conditionStandings("parent "+refString(ref), m["conditions"], isOurs)...)
		}
	}
	ann := obj.GetAnnotations()
	for _, k := range slices.Sorted(maps.Keys(ann)) {
		if isOurs(k) {
			out = append(out, standing{Place: "annotation", Type: k, Status: "True", Reason: "Affected", Message: k + "=" + ann[k]})
		}
	}
	return out
}

// conditionStandings reads a conditions list; keep (nil: all) selects
// types.
func conditionStandings(place string, conds any, keep func(string) bool) []standing {
	list, _ := conds.([]any)
	var out []standing
	for _, c := range list {
		m, ok := c.(map[string]any)
		if !ok || keep != nil && !keep(str(m, "type")) {
			continue
		}
		out = append(out, standing{Place: place, Type: str(m, "type"), Status: str(m, "status"), Reason: str(m, "reason"), Message: str(m, "message")})
	}
	return out
}

// refString names an ancestorRef or parentRef as Kind namespace/name
// (section), for an Event's message.
func refString(ref map[string]any) string {
	s := str(ref, "kind") + " "
	if ns := str(ref, "namespace"); ns != "" {
		s += ns + "/"
	}
	s += str(ref, "name")
	if sec := str(ref, "sectionName"); sec != "" {
		s += " section " + sec
	}
	return strings.TrimSpace(s)
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}
