package status

import (
	"maps"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/outcome"
	"github.com/strata-dev/strata/pkg/engine/policykind"
)

// Owned is what of a target object Strata owns: its <Kind>Affected
// condition types and annotations, and route parent entries of its
// controller names; the rest is other controllers'.
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
// fragment (nil when the target is no longer affected), and whether that
// changes anything; conditions keep current's lastTransitionTime when
// their status is the same (Retime). Conditions go into existing
// status.listeners and status.parents entries only: those belong to the
// Gateway's controller, which must create them. Other controllers'
// conditions are kept; Strata's fill the room they leave of the CRD's
// maxItems, problems first (fitConditions), and
// hierarchy.OmittedAnnotation names the rest (docs/status.md, "Room").
func Merge(current *unstructured.Unstructured, fragment *Fragment, owned Owned) (*unstructured.Unstructured, bool) {
	desired := current.DeepCopy()
	frag := fragment
	if frag == nil {
		frag = &Fragment{}
	}
	limit := hierarchy.Kinds[current.GroupVersionKind().GroupKind()].MaxConditions
	om := omissions{}
	for _, o := range frag.Omitted {
		om.add(o.Place, o.Types)
	}
	isOurs := func(c map[string]any) bool { return owned.Types[str(c, "type")] }
	// merged is list with Strata's conditions replaced by ours, cut to the
	// room the others leave.
	merged := func(list []any, ours []metav1.Condition, place string) []any {
		theirs := keep(list, not(isOurs))
		if limit > 0 {
			var left []string
			ours, left = fitConditions(ours, limit-len(theirs), frag.problem)
			om.add(place, left)
		}
		return append(theirs, toMaps(Retime(conditionsOf(keep(list, isOurs)), ours, metav1.Time{}))...)
	}
	// mergeEach merges the conditions of each entry of list with ours of
	// it, in its place.
	mergeEach := func(list []any, of func(map[string]any) ([]metav1.Condition, string)) {
		for _, e := range list {
			if m, ok := e.(map[string]any); ok {
				lc, _ := m["conditions"].([]any)
				ours, place := of(m)
				m["conditions"] = merged(lc, ours, place)
			}
		}
	}
	setSlice(desired.Object, merged(slice(desired.Object, "status", "conditions"), frag.Conditions, placeConditions), "status", "conditions")
	if ls := slice(desired.Object, "status", "listeners"); len(ls) > 0 {
		ours := map[string][]metav1.Condition{}
		for _, l := range frag.Listeners {
			ours[l.Name] = l.Conditions
		}
		mergeEach(ls, func(m map[string]any) ([]metav1.Condition, string) {
			return ours[str(m, "name")], listenerPlace(str(m, "name"))
		})
		setSlice(desired.Object, ls, "status", "listeners")
	}
	// status.parents[]: Strata's conditions go into the entries of the
	// Gateways' controllers the fragment names, never into a new entry;
	// an entry of Strata's controllerName holding only its conditions is
	// removed, one that holds another controller's conditions too stays.
	isOurParent := func(p map[string]any) bool {
		if !owned.Controllers[str(p, "controllerName")] {
			return false
		}
		pc, _ := p["conditions"].([]any)
		return len(keep(pc, not(isOurs))) == 0
	}
	ourParents := map[string][]metav1.Condition{}
	for _, p := range frag.Parents {
		ourParents[entryKey(parentRefMap(&p.ParentRef), string(p.ControllerName))] = p.Conditions
	}
	parents := keep(slice(desired.Object, "status", "parents"), not(isOurParent))
	mergeEach(parents, func(m map[string]any) ([]metav1.Condition, string) {
		pr, _ := m["parentRef"].(map[string]any)
		return ourParents[entryKey(pr, str(m, "controllerName"))], parentPlace(pr)
	})
	setSlice(desired.Object, parents, "status", "parents")
	// Annotations: Strata's <Kind>Affected ones, and what was left out.
	ann := desired.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	maps.DeleteFunc(ann, func(k, _ string) bool { return owned.Types[k] || k == hierarchy.OmittedAnnotation })
	for k, v := range frag.Annotations {
		if k != hierarchy.OmittedAnnotation {
			ann[k] = v
		}
	}
	if len(om) > 0 {
		ann[hierarchy.OmittedAnnotation] = hierarchy.FormatOmissions(om.list(limit))
	}
	if len(ann) == 0 {
		ann = nil
	}
	desired.SetAnnotations(ann)
	return desired, StatusChanged(current, desired) || AnnotationsChanged(current, desired)
}

// entryKey names a route parent entry by parentRef and controller.
func entryKey(parentRef map[string]any, controller string) string {
	return refKey(withDefaults(parentRef)) + "\x00" + controller
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
	s, _, _ := unstructured.NestedSlice(obj, path...)
	return s
}

// setSlice writes a list, leaving an absent field absent rather than empty.
func setSlice(obj map[string]any, list []any, path ...string) {
	if len(list) == 0 { // absent and null both read as "no list"
		if v, found, _ := unstructured.NestedFieldNoCopy(obj, path...); !found || v == nil {
			return
		}
	}
	if list == nil {
		list = []any{}
	}
	_ = unstructured.SetNestedSlice(obj, list, path...)
}

func not(f func(map[string]any) bool) func(map[string]any) bool {
	return func(m map[string]any) bool { return !f(m) }
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
