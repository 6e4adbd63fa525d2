package status

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
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

// toMap renders a typed status entry for an unstructured object.
func toMap(v any) map[string]any {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(v)
	if err != nil {
		return nil // Gateway API status types always convert
	}
	return m
}
