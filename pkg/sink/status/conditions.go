package status

import (
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Retime gives conds their lastTransitionTime, meta.SetStatusCondition's
// rule: the time of old's condition of the same type when the status is
// the same, else the time a condition already has, else now. It is the
// one place Strata carries a time over, so writes never differ by a
// timestamp alone.
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
// their maps, to render the same conditions again as the same maps,
// shared read-only (a writer copies them).
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

// conditionMap is the converter's ToUnstructured of a condition, field by
// field without reflection.
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

// parentRefMap is the converter's ToUnstructured of a ParentReference,
// field by field without reflection.
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

// entryMap is a status entry of one controller for one parent, the ref
// under refField.
func entryMap(refField string, ref *gwv1.ParentReference, controller gwv1.GatewayController, conds []metav1.Condition, last *lastConditions) map[string]any {
	m := make(map[string]any, 3)
	m[refField] = parentRefMap(ref)
	m["controllerName"] = string(controller)
	if len(conds) > 0 {
		m["conditions"] = last.toMaps(conds)
	}
	return m
}
