package status

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Retime gives conds their lastTransitionTime, apimachinery's
// meta.SetStatusCondition rule: the time of the condition of the same type
// in old when the status is the same (the transition did not happen now,
// whatever snapshot conds were computed from), else the time a condition
// already has, else now. It is the one place Strata carries a time over,
// for policy ancestors and target conditions alike, in the CLI and the
// controller; it keeps writes from differing by a timestamp alone.
func Retime(old, conds []metav1.Condition, now metav1.Time) []metav1.Condition {
	out := make([]metav1.Condition, 0, len(conds))
	for _, c := range conds {
		if prev := meta.FindStatusCondition(old, c.Type); prev != nil && prev.Status == c.Status && !prev.LastTransitionTime.IsZero() {
			c.LastTransitionTime = prev.LastTransitionTime
		} else if c.LastTransitionTime.IsZero() {
			c.LastTransitionTime = now
		}
		out = append(out, c)
	}
	return out
}

// conditionsOf reads a stored list of conditions; entries that are not
// conditions are skipped (they carry no time to keep).
func conditionsOf(v any) []metav1.Condition {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	var out []metav1.Condition
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		var c metav1.Condition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &c); err == nil {
			out = append(out, c)
		}
	}
	return out
}

// lastConditions remembers the conditions last rendered (toMaps) and
// their maps, to render the same conditions again as the same maps. A
// policy's ancestors mostly carry the same conditions (its standing,
// which the ancestors share), and so do Services side by side that the
// same policies affect: 320,000 condition maps of the performance
// world's `strata status` were 20,000 different ones. The maps are
// shared read-only, as withStatus shares a policy's other fields; a
// writer copies them (unstructured.SetNestedSlice). Only the last is
// remembered: no table that a world of all-different conditions would
// grow.
type lastConditions struct {
	conds []metav1.Condition
	maps  []any
}

// toMaps is toMaps(conds), the maps of last when conds are the same
// conditions.
func (last *lastConditions) toMaps(conds []metav1.Condition) []any {
	if last.maps != nil && slices.Equal(conds, last.conds) {
		return last.maps
	}
	m := toMaps(conds)
	last.conds, last.maps = conds, m
	return m
}

// toMaps renders conditions for an unstructured object.
func toMaps(conds []metav1.Condition) []any {
	out := make([]any, 0, len(conds))
	for i := range conds {
		out = append(out, conditionMap(&conds[i]))
	}
	return out
}

// conditionMap is runtime.DefaultUnstructuredConverter.ToUnstructured of
// a condition, field by field (its json tags; a zero time is null, as
// metav1.Time.ToUnstructured has it) without reflection: every affected
// target of a large world gets one (TestConditionMapIsConverter).
func conditionMap(c *metav1.Condition) map[string]any {
	m := make(map[string]any, 6)
	m["type"] = c.Type
	m["status"] = string(c.Status)
	if c.ObservedGeneration != 0 {
		m["observedGeneration"] = c.ObservedGeneration
	}
	m["lastTransitionTime"] = c.LastTransitionTime.ToUnstructured()
	m["reason"] = c.Reason
	m["message"] = c.Message
	return m
}

// parentRefMap is runtime.DefaultUnstructuredConverter.ToUnstructured of
// a ParentReference, field by field (its json tags: pointers omitted when
// nil, the port an int64), without reflection: every policy ancestor and
// route parent entry Strata writes has one (TestStatusMapsAreConverter).
func parentRefMap(r *gwv1.ParentReference) map[string]any {
	m := make(map[string]any, 6)
	if r.Group != nil {
		m["group"] = string(*r.Group)
	}
	if r.Kind != nil {
		m["kind"] = string(*r.Kind)
	}
	if r.Namespace != nil {
		m["namespace"] = string(*r.Namespace)
	}
	m["name"] = string(r.Name)
	if r.SectionName != nil {
		m["sectionName"] = string(*r.SectionName)
	}
	if r.Port != nil {
		m["port"] = int64(*r.Port)
	}
	return m
}

// ancestorMap is the converter's PolicyAncestorStatus (parentRefMap).
func ancestorMap(a *gwv1.PolicyAncestorStatus, last *lastConditions) map[string]any {
	return entryMap("ancestorRef", &a.AncestorRef, a.ControllerName, a.Conditions, last)
}

// routeParentMap is the converter's RouteParentStatus (parentRefMap).
func routeParentMap(p *gwv1.RouteParentStatus, last *lastConditions) map[string]any {
	return entryMap("parentRef", &p.ParentRef, p.ControllerName, p.Conditions, last)
}

// entryMap is a status entry of one controller for one parent: the ref
// under refField, the controller and the conditions (omitted when none,
// their omitempty).
func entryMap(refField string, ref *gwv1.ParentReference, controller gwv1.GatewayController, conds []metav1.Condition, last *lastConditions) map[string]any {
	m := make(map[string]any, 3)
	m[refField] = parentRefMap(ref)
	m["controllerName"] = string(controller)
	if len(conds) > 0 {
		m["conditions"] = last.toMaps(conds)
	}
	return m
}
