package effectivepolicy

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// Unstructured is p in its unstructured form, the map of
// runtime.DefaultUnstructuredConverter.ToUnstructured(p) that kubectl's
// printers read, made from p's fields without reflection. Metadata other
// than what Strata sets, and a resultant policy that is not JSON, are left
// to the converter.
func Unstructured(p *EffectivePolicy) (map[string]any, error) {
	if m, ok := unstructuredOf(p); ok {
		return m, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(p)
	if err != nil {
		return nil, fmt.Errorf("encode EffectivePolicy %s/%s: %w", p.Namespace, p.Name, err)
	}
	return m, nil
}

// unstructuredOf is Unstructured when every part of p converts here.
func unstructuredOf(p *EffectivePolicy) (map[string]any, bool) {
	meta, ok := metaOf(&p.ObjectMeta)
	if !ok {
		return nil, false
	}
	m := make(map[string]any, 5)
	if p.APIVersion != "" {
		m["apiVersion"] = p.APIVersion
	}
	if p.Kind != "" {
		m["kind"] = p.Kind
	}
	m["metadata"] = meta
	m["target"] = refOf(&p.Target)
	if p.Policies == nil {
		m["policies"] = nil
		return m, true
	}
	policies := make([]any, len(p.Policies))
	for i := range p.Policies {
		kp, ok := kindPoliciesOf(&p.Policies[i])
		if !ok {
			return nil, false
		}
		policies[i] = kp
	}
	m["policies"] = policies
	return m, true
}

// SimpleMeta reports whether m has only the members Strata sets on an
// EffectivePolicy (name, namespace, labels), which the writers that list
// an EffectivePolicy's members write themselves.
func SimpleMeta(m *metav1.ObjectMeta) bool {
	//lint:ignore SA1019 an object that still carries a selfLink must keep it, so it takes the generic way
	return m.GenerateName == "" && m.SelfLink == "" && m.UID == "" && m.ResourceVersion == "" &&
		m.Generation == 0 && m.CreationTimestamp.IsZero() && m.DeletionTimestamp == nil &&
		m.DeletionGracePeriodSeconds == nil && len(m.Annotations) == 0 && len(m.OwnerReferences) == 0 &&
		len(m.Finalizers) == 0 && len(m.ManagedFields) == 0
}

// metaOf is the unstructured metadata of an EffectivePolicy whose
// metadata is SimpleMeta.
func metaOf(o *metav1.ObjectMeta) (map[string]any, bool) {
	if !SimpleMeta(o) {
		return nil, false
	}
	m := make(map[string]any, 3)
	if len(o.Labels) > 0 {
		m["labels"] = stringMap(o.Labels)
	}
	if o.Name != "" {
		m["name"] = o.Name
	}
	if o.Namespace != "" {
		m["namespace"] = o.Namespace
	}
	return m, true
}

func stringMap(in map[string]string) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

func refOf(r *Ref) map[string]any {
	m := make(map[string]any, 6)
	m["group"], m["kind"], m["name"] = r.Group, r.Kind, r.Name
	if r.Namespace != "" {
		m["namespace"] = r.Namespace
	}
	if r.SectionName != "" {
		m["sectionName"] = r.SectionName
	}
	if r.Role != "" {
		m["role"] = r.Role
	}
	return m
}

func refsOf(rs []Ref) any {
	if rs == nil {
		return nil
	}
	out := make([]any, len(rs))
	for i := range rs {
		out[i] = refOf(&rs[i])
	}
	return out
}

func kindPoliciesOf(k *KindPolicies) (map[string]any, bool) {
	m := make(map[string]any, 7)
	m["controllerName"], m["group"], m["kind"] = k.ControllerName, k.Group, k.Kind
	if len(k.ConditionOmittedFrom) > 0 {
		from := make([]any, len(k.ConditionOmittedFrom))
		for i, p := range k.ConditionOmittedFrom {
			from[i] = p
		}
		m["conditionOmittedFrom"] = from
	}
	if k.OmittedContexts != 0 {
		m["omittedContexts"] = int64(k.OmittedContexts)
	}
	if k.PolicyCount != 0 {
		m["policyCount"] = int64(k.PolicyCount)
	}
	if k.Visibility != "" {
		m["visibility"] = k.Visibility
	}
	if k.Contexts == nil {
		m["contexts"] = nil
		return m, true
	}
	contexts := make([]any, len(k.Contexts))
	for i := range k.Contexts {
		c, ok := contextOf(&k.Contexts[i])
		if !ok {
			return nil, false
		}
		contexts[i] = c
	}
	m["contexts"] = contexts
	return m, true
}

func contextOf(c *Context) (map[string]any, bool) {
	m := make(map[string]any, 4)
	if len(c.FieldSources) > 0 {
		m["fieldSources"] = stringMap(c.FieldSources)
	}
	m["path"] = refsOf(c.Path)
	resultant, ok := jsonOf(c.ResultantPolicy)
	if !ok {
		return nil, false
	}
	m["resultantPolicy"] = resultant
	if c.Sources == nil {
		m["sources"] = nil
		return m, true
	}
	sources := make([]any, len(c.Sources))
	for i := range c.Sources {
		s := &c.Sources[i]
		sm := make(map[string]any, 4)
		if len(s.AttachedTo) > 0 {
			sm["attachedTo"] = refsOf(s.AttachedTo)
		}
		sm["name"], sm["result"] = s.Name, s.Result
		if s.Namespace != "" {
			sm["namespace"] = s.Namespace
		}
		sources[i] = sm
	}
	m["sources"] = sources
	return m, true
}

// jsonOf is a free-form field as the converter reads it: its JSON
// (MarshalJSON: Raw, or null) decoded with integers as int64 and other
// numbers as float64; not ok when it is not JSON.
func jsonOf(j *apiextensionsv1.JSON) (any, bool) {
	if j == nil {
		return nil, true
	}
	raw, err := j.MarshalJSON()
	if err != nil {
		return nil, false
	}
	var v any
	if err := utiljson.Unmarshal(raw, &v); err != nil {
		return nil, false
	}
	return v, true
}
