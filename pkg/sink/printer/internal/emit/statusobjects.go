package emit

import (
	"sort"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/sink/status"
)

// The emitter writes the objects of `strata status` from their parts, as
// the bytes of the objects they render: a status.Fragment from its Go
// fields, and a status.PolicyObject as its object with the ancestors
// written from their Go fields, members in go-yaml's key order.

// policyObject emits p.Object(): p.Source with status.ancestors set.
func (e *yamlEmitter) policyObject(p *status.PolicyObject, depth int) error {
	return e.mappingWith(p.Source, "status", depth, func(depth int) error {
		old, _ := p.Source["status"].(map[string]any)
		return e.mappingWith(old, "ancestors", depth, func(int) error {
			n := len(p.Theirs)
			return e.items(n+len(p.Ours), func(i int) error {
				if i < n {
					return e.node(p.Theirs[i], true, false, false, depth+1)
				}
				a := &p.Ours[i-n]
				saved := e.increaseIndent(false, false)
				e.member("ancestorRef")
				writeParentRef(e, &a.AncestorRef)
				if len(a.Conditions) > 0 {
					e.member("conditions")
					e.conditions(a.Conditions)
				}
				e.field("controllerName", string(a.ControllerName))
				e.indent = saved
				return nil
			})
		})
	})
}

// mappingWith emits m with its member key set to what value emits, as
// mapping emits such a map (never empty), without copying m.
func (e *yamlEmitter) mappingWith(m map[string]any, key string, depth int, value func(depth int) error) error {
	keys := e.scratchKeys(depth)
	for k := range m {
		if k != key {
			keys = append(keys, k)
		}
	}
	keys = append(keys, key)
	sort.Sort(&keys)
	e.keys[depth] = keys
	saved := e.increaseIndent(false, false)
	for _, k := range keys {
		if k == key {
			e.key(validUTF8(k))
			e.sequenceContext, e.mappingContext, e.simpleKeyContext = false, true, false
			e.keep(value(depth + 1))
		} else if err := e.entry(validUTF8(k), m[k], depth); err != nil {
			return err
		}
		e.keep(e.flush(false))
	}
	e.indent = saved
	return e.err
}

// fragment writes apiVersion itself: through typedWriter its text would
// escape to the heap.
func (e *yamlEmitter) fragment(f *status.Fragment, depth int) error {
	saved := e.begin()
	e.field("apiVersion", f.GVK.GroupVersion().String())
	writeFragment(e, f, depth)
	e.end(saved)
	return e.err
}

func (w *jsonWriter) fragment(f *status.Fragment) {
	w.open('{')
	w.field("apiVersion", f.GVK.GroupVersion().String())
	writeFragment(w, f, 0)
	w.close('}')
}

// writeFragment writes a status.Fragment's members after apiVersion.
func writeFragment(w typedWriter, f *status.Fragment, depth int) {
	w.field("kind", f.GVK.Kind)
	if f.Name != "" || f.Namespace != "" || len(f.Annotations) > 0 {
		w.member("metadata")
		w.keep(w.metadata("annotations", f.Annotations, f.Name, f.Namespace, depth+1))
	}
	if len(f.Conditions) > 0 || len(f.Listeners) > 0 || len(f.Parents) > 0 {
		w.member("status")
		inner := w.begin()
		if len(f.Conditions) > 0 {
			w.member("conditions")
			w.conditions(f.Conditions)
		}
		if len(f.Listeners) > 0 {
			w.member("listeners")
			ls, _ := w.list(false, len(f.Listeners))
			for i := range f.Listeners {
				l := &f.Listeners[i]
				w.next()
				s := w.begin()
				w.member("conditions")
				w.conditions(l.Conditions)
				w.field("name", l.Name)
				w.end(s)
			}
			w.endList(ls)
		}
		if len(f.Parents) > 0 {
			w.member("parents")
			ls, _ := w.list(false, len(f.Parents))
			for i := range f.Parents {
				p := &f.Parents[i]
				w.next()
				s := w.begin()
				if len(p.Conditions) > 0 {
					w.member("conditions")
					w.conditions(p.Conditions)
				}
				w.field("controllerName", string(p.ControllerName))
				w.member("parentRef")
				writeParentRef(w, &p.ParentRef)
				w.end(s)
			}
			w.endList(ls)
		}
		w.end(inner)
	}
}

// conditions emits a list of conditions as their converter's maps
// (status.conditionMap): message and reason always, observedGeneration
// when set, a zero time as null.
func (e *yamlEmitter) conditions(cs []metav1.Condition) {
	_ = e.items(len(cs), func(i int) error {
		e.condition(&cs[i])
		return nil
	})
}

// condition emits one condition, again when it wrote it in the same
// state before (again.go).
func (e *yamlEmitter) condition(c *metav1.Condition) {
	_ = again(e, e.conds[:], *c, func() error { e.writeCondition(c); return nil })
}

// writeCondition writes a condition's fields (condition).
func (e *yamlEmitter) writeCondition(c *metav1.Condition) {
	saved := e.increaseIndent(false, false)
	e.member("lastTransitionTime")
	if c.LastTransitionTime.IsZero() {
		e.null()
	} else {
		e.stringScalar(e.timeText(c.LastTransitionTime.Time))
	}
	e.field("message", c.Message)
	if c.ObservedGeneration != 0 {
		e.member("observedGeneration")
		e.plainScalar(strconv.FormatInt(c.ObservedGeneration, 10))
	}
	e.field("reason", c.Reason)
	e.field("status", string(c.Status))
	e.field("type", c.Type)
	e.indent = saved
}

// seenTime is a time and its text.
type seenTime struct {
	t    time.Time
	text string
}

// timeText is metav1.Time's text (RFC 3339, in UTC), of the last time
// asked for remembered: a List's conditions mostly carry one time.
func (e *yamlEmitter) timeText(t time.Time) string {
	if m := e.time; m.text == "" || !t.Equal(m.t) {
		m.t, m.text = t, t.UTC().Format(time.RFC3339)
	}
	return e.time.text
}

// writeParentRef writes a ParentReference as status.parentRefMap has it.
func writeParentRef(w typedWriter, r *gwv1.ParentReference) {
	saved := w.begin()
	if r.Group != nil {
		w.field("group", string(*r.Group))
	}
	if r.Kind != nil {
		w.field("kind", string(*r.Kind))
	}
	w.field("name", string(r.Name))
	if r.Namespace != nil {
		w.field("namespace", string(*r.Namespace))
	}
	if r.Port != nil {
		w.intField("port", int64(*r.Port))
	}
	if r.SectionName != nil {
		w.field("sectionName", string(*r.SectionName))
	}
	w.end(saved)
}

// conditions writes conditions as status.conditionMap has them.
func (w *jsonWriter) conditions(cs []metav1.Condition) {
	_ = w.slice(false, len(cs), func(i int) error {
		c := &cs[i]
		w.open('{')
		w.member("lastTransitionTime")
		if t, ok := c.LastTransitionTime.ToUnstructured().(string); ok {
			w.str(t)
		} else {
			w.null()
		}
		w.field("message", c.Message)
		if c.ObservedGeneration != 0 {
			w.member("observedGeneration")
			w.integer(c.ObservedGeneration)
		}
		w.field("reason", c.Reason)
		w.field("status", string(c.Status))
		w.field("type", c.Type)
		w.close('}')
		return nil
	})
}
