package emit

import (
	"strconv"

	"github.com/strata-dev/strata/pkg/query"
)

// The emitter writes an Impact from its Go fields as it writes an
// EffectivePolicy (typed.go); a field's before and after values go the
// generic way.

func (e *yamlEmitter) impact(im *query.Impact, depth int) error {
	saved := e.increaseIndent(false, false)
	if len(im.Also) > 0 {
		e.member("also")
		e.keep(e.items(len(im.Also), func(i int) error { e.policyRef(&im.Also[i]); return nil }))
	}
	e.field("apiVersion", im.APIVersion)
	e.field("change", im.Change)
	e.member("changed")
	e.count(&im.Changed)
	e.field("kind", im.Kind)
	e.member("policy")
	e.policyRef(&im.Policy)
	e.member("targets")
	e.keep(e.slice(im.Targets == nil, len(im.Targets), func(i int) error { return e.targetChange(&im.Targets[i], depth+1) }))
	e.indent = saved
	return e.err
}

func (e *yamlEmitter) policyRef(r *query.PolicyRef) {
	e.refFields(r.Group, r.Kind, r.Name, r.Namespace, "", "")
}

func (e *yamlEmitter) targetChange(t *query.TargetChange, depth int) error {
	saved := e.increaseIndent(false, false)
	e.member("contexts")
	e.keep(e.slice(t.Contexts == nil, len(t.Contexts), func(i int) error { return e.contextChange(&t.Contexts[i], depth+1) }))
	e.member("policyKind")
	saved2 := e.increaseIndent(false, false)
	e.field("group", t.PolicyKind.Group)
	e.field("kind", t.PolicyKind.Kind)
	e.indent = saved2
	e.member("target")
	e.ref(&t.Target)
	e.indent = saved
	return e.err
}

func (e *yamlEmitter) contextChange(c *query.ContextChange, depth int) error {
	saved := e.increaseIndent(false, false)
	e.member("fields")
	e.keep(e.slice(c.Fields == nil, len(c.Fields), func(i int) error { return e.fieldChange(&c.Fields[i], depth+1) }))
	e.member("path")
	e.keep(e.refs(c.Path))
	e.indent = saved
	return e.err
}

func (e *yamlEmitter) fieldChange(f *query.FieldChange, depth int) error {
	saved := e.increaseIndent(false, false)
	if f.After != nil {
		e.keep(e.anyField("after", f.After, depth))
	}
	e.optField("afterSetBy", f.AfterSetBy)
	if f.Before != nil {
		e.keep(e.anyField("before", f.Before, depth))
	}
	e.optField("beforeSetBy", f.BeforeSetBy)
	e.field("field", f.Field)
	e.indent = saved
	return e.err
}

// anyField emits a member of any value: a string or a bool as it is (its
// JSON reads back to the same), anything else the generic way.
func (e *yamlEmitter) anyField(k string, v any, depth int) error {
	switch x := v.(type) {
	case string:
		e.field(k, x)
		return nil
	case bool:
		e.member(k)
		e.plainScalar(strconv.FormatBool(x))
		return nil
	}
	e.member(k)
	return e.generic(v, false, true, false, depth+1)
}

// The JSON writer's Impact, from its fields in the same order.

func (w *jsonWriter) impact(im *query.Impact) error {
	w.open('{')
	if len(im.Also) > 0 {
		w.member("also")
		_ = w.slice(false, len(im.Also), func(i int) error { w.policyRef(&im.Also[i]); return nil })
	}
	w.field("apiVersion", im.APIVersion)
	w.field("change", im.Change)
	w.member("changed")
	w.open('{')
	w.member("contexts")
	w.integer(int64(im.Changed.Contexts))
	w.member("targets")
	w.integer(int64(im.Changed.Targets))
	w.close('}')
	w.field("kind", im.Kind)
	w.member("policy")
	w.policyRef(&im.Policy)
	w.member("targets")
	w.keep(w.slice(im.Targets == nil, len(im.Targets), func(i int) error { return w.targetChange(&im.Targets[i]) }))
	w.close('}')
	return w.err
}

func (w *jsonWriter) policyRef(r *query.PolicyRef) {
	w.refFields(r.Group, r.Kind, r.Name, r.Namespace, "", "")
}

func (w *jsonWriter) targetChange(t *query.TargetChange) error {
	w.open('{')
	w.member("contexts")
	w.keep(w.slice(t.Contexts == nil, len(t.Contexts), func(i int) error { return w.contextChange(&t.Contexts[i]) }))
	w.member("policyKind")
	w.open('{')
	w.field("group", t.PolicyKind.Group)
	w.field("kind", t.PolicyKind.Kind)
	w.close('}')
	w.member("target")
	w.ref(&t.Target)
	w.close('}')
	return w.err
}

func (w *jsonWriter) contextChange(c *query.ContextChange) error {
	w.open('{')
	w.member("fields")
	w.keep(w.slice(c.Fields == nil, len(c.Fields), func(i int) error { return w.fieldChange(&c.Fields[i]) }))
	w.member("path")
	w.refs(c.Path)
	w.close('}')
	return w.err
}

func (w *jsonWriter) fieldChange(f *query.FieldChange) error {
	w.open('{')
	if f.After != nil {
		w.member("after")
		w.keep(w.value(f.After))
	}
	w.optField("afterSetBy", f.AfterSetBy)
	if f.Before != nil {
		w.member("before")
		w.keep(w.value(f.Before))
	}
	w.optField("beforeSetBy", f.BeforeSetBy)
	w.field("field", f.Field)
	w.close('}')
	return w.err
}
