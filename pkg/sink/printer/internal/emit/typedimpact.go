package emit

import (
	"strconv"

	"github.com/strata-dev/strata/pkg/query"
)

// writeImpact writes an Impact from its Go fields, as
// writeEffectivePolicy does an EffectivePolicy; a field's before and
// after values go the generic way.
func writeImpact(w typedWriter, im *query.Impact, depth int) {
	saved := w.begin()
	if len(im.Also) > 0 {
		w.member("also")
		ls, _ := w.list(false, len(im.Also))
		for i := range im.Also {
			w.next()
			writePolicyRef(w, &im.Also[i])
		}
		w.endList(ls)
	}
	w.field("apiVersion", im.APIVersion)
	w.field("change", im.Change)
	w.member("changed")
	writeCount(w, &im.Changed)
	w.field("kind", im.Kind)
	w.member("policy")
	writePolicyRef(w, &im.Policy)
	w.member("targets")
	if ls, ok := w.list(im.Targets == nil, len(im.Targets)); ok {
		for i := range im.Targets {
			w.next()
			writeTargetChange(w, &im.Targets[i], depth+1)
		}
		w.endList(ls)
	}
	w.end(saved)
}

func writePolicyRef(w typedWriter, r *query.PolicyRef) {
	writeRefFields(w, r.Group, r.Kind, r.Name, r.Namespace, "", "")
}

func writeCount(w typedWriter, c *query.Count) {
	saved := w.begin()
	w.intField("contexts", int64(c.Contexts))
	w.intField("targets", int64(c.Targets))
	w.end(saved)
}

func writeTargetChange(w typedWriter, t *query.TargetChange, depth int) {
	saved := w.begin()
	w.member("contexts")
	if ls, ok := w.list(t.Contexts == nil, len(t.Contexts)); ok {
		for i := range t.Contexts {
			w.next()
			writeContextChange(w, &t.Contexts[i], depth+1)
		}
		w.endList(ls)
	}
	w.member("policyKind")
	inner := w.begin()
	w.field("group", t.PolicyKind.Group)
	w.field("kind", t.PolicyKind.Kind)
	w.end(inner)
	w.member("target")
	w.ref(&t.Target)
	w.end(saved)
}

func writeContextChange(w typedWriter, c *query.ContextChange, depth int) {
	saved := w.begin()
	w.member("fields")
	if ls, ok := w.list(c.Fields == nil, len(c.Fields)); ok {
		for i := range c.Fields {
			w.next()
			writeFieldChange(w, &c.Fields[i], depth+1)
		}
		w.endList(ls)
	}
	w.member("path")
	w.keep(w.refs(c.Path))
	w.end(saved)
}

func writeFieldChange(w typedWriter, f *query.FieldChange, depth int) {
	saved := w.begin()
	if f.After != nil {
		w.keep(w.anyField("after", f.After, depth))
	}
	w.optField("afterSetBy", f.AfterSetBy)
	if f.Before != nil {
		w.keep(w.anyField("before", f.Before, depth))
	}
	w.optField("beforeSetBy", f.BeforeSetBy)
	w.field("field", f.Field)
	w.end(saved)
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

func (w *jsonWriter) anyField(k string, v any, _ int) error {
	w.member(k)
	return w.value(v)
}
