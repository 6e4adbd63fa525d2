package status

import (
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-dev/strata/pkg/outcome"
	"github.com/strata-dev/strata/pkg/policykind"
)

// Owned is what of a target object Strata owns: its <Kind>Affected
// condition types and annotations, and route parent entries carrying its
// controller names. Everything else belongs to other controllers and is
// kept as it is.
type Owned struct {
	Types       map[string]bool
	Controllers map[string]bool
}

// OwnedBy is what Strata owns for a set of managed kinds.
func OwnedBy(kinds []*policykind.Kind) Owned {
	o := Owned{Types: map[string]bool{}, Controllers: map[string]bool{}}
	for _, k := range kinds {
		if k.Managed {
			o.Types[outcome.ConditionType(k)] = true
			o.Controllers[k.ControllerName] = true
		}
	}
	return o
}

// Merge returns a copy of current in which Strata's part is replaced by
// fragment (an object of Targets; nil when the target is no longer
// affected), and whether that changes anything. Conditions go into
// existing status.listeners entries only: listener entries belong to the
// Gateway's own controller, which must create them (they carry
// supportedKinds and attachedRoutes Strata cannot vouch for).
func Merge(current, fragment *unstructured.Unstructured, owned Owned) (*unstructured.Unstructured, bool) {
	desired := current.DeepCopy()
	var frag map[string]any
	if fragment != nil {
		frag = fragment.Object
	}
	// status.conditions
	conds := keep(slice(desired.Object, "status", "conditions"), func(c map[string]any) bool { return !owned.Types[str(c, "type")] })
	conds = append(conds, slice(frag, "status", "conditions")...)
	setSlice(desired.Object, conds, "status", "conditions")
	// status.listeners[].conditions
	if ls := slice(desired.Object, "status", "listeners"); len(ls) > 0 {
		ours := map[string][]any{}
		for _, l := range slice(frag, "status", "listeners") {
			m := l.(map[string]any)
			ours[str(m, "name")] = m["conditions"].([]any)
		}
		for _, l := range ls {
			m, ok := l.(map[string]any)
			if !ok {
				continue
			}
			lc, _ := m["conditions"].([]any)
			lc = keep(lc, func(c map[string]any) bool { return !owned.Types[str(c, "type")] })
			m["conditions"] = append(lc, ours[str(m, "name")]...)
		}
		setSlice(desired.Object, ls, "status", "listeners")
	}
	// status.parents[] entries of Strata's controllers
	parents := keep(slice(desired.Object, "status", "parents"), func(p map[string]any) bool { return !owned.Controllers[str(p, "controllerName")] })
	parents = append(parents, slice(frag, "status", "parents")...)
	setSlice(desired.Object, parents, "status", "parents")
	// annotations
	ann := desired.GetAnnotations()
	for k := range ann {
		if owned.Types[k] {
			delete(ann, k)
		}
	}
	if fragment != nil {
		for k, v := range fragment.GetAnnotations() {
			if ann == nil {
				ann = map[string]string{}
			}
			ann[k] = v
		}
	}
	if len(ann) == 0 {
		ann = nil
	}
	desired.SetAnnotations(ann)
	return desired, StatusChanged(current, desired) || AnnotationsChanged(current, desired)
}

// StatusChanged and AnnotationsChanged tell a writer which of the two
// writes (status subresource, object metadata) Merge's result needs.
func StatusChanged(current, desired *unstructured.Unstructured) bool {
	return !equality.Semantic.DeepEqual(current.Object["status"], desired.Object["status"])
}

// AnnotationsChanged reports whether desired's annotations differ.
func AnnotationsChanged(current, desired *unstructured.Unstructured) bool {
	return !equality.Semantic.DeepEqual(current.GetAnnotations(), desired.GetAnnotations())
}

func slice(obj map[string]any, path ...string) []any {
	if obj == nil {
		return nil
	}
	s, _, _ := unstructured.NestedSlice(obj, path...)
	return s
}

// setSlice writes a list, leaving the field absent rather than empty when
// it was absent, so that no change reads as no change.
func setSlice(obj map[string]any, list []any, path ...string) {
	if len(list) == 0 {
		if _, found, _ := unstructured.NestedFieldNoCopy(obj, path...); !found {
			return
		}
	}
	if list == nil {
		list = []any{}
	}
	_ = unstructured.SetNestedSlice(obj, list, path...)
}

func keep(list []any, f func(map[string]any) bool) []any {
	var out []any
	for _, e := range list {
		if m, ok := e.(map[string]any); !ok || f(m) {
			out = append(out, e)
		}
	}
	return out
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}
