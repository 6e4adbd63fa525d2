package status

import (
	"maps"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/outcome"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// PolicyStatus is Strata's part of one policy's status.ancestors (GEP-713
// "Standard status struct"), fitted to the room (Fit) and timed (Retime).
type PolicyStatus struct {
	Policy    *policykind.Policy
	Ancestors []gwv1.PolicyAncestorStatus
}

// Ancestors returns Strata's status.ancestors entries of every policy of
// a managed kind; now stamps conditions whose status changed.
func Ancestors(r *engine.Result, now metav1.Time) []PolicyStatus {
	var out []PolicyStatus
	for _, ps := range r.Outcome.Policies {
		if ps.Policy.Kind.Managed {
			out = append(out, PolicyStatus{Policy: ps.Policy, Ancestors: ancestors(ps, now)})
		}
	}
	return out
}

// AncestorsOf is Ancestors of the policies given (of r) only.
func AncestorsOf(r *engine.Result, policies []*policykind.Policy, now metav1.Time) []PolicyStatus {
	want := make(map[*policykind.Policy]bool, len(policies))
	for _, p := range policies {
		want[p] = true
	}
	var out []PolicyStatus
	for _, ps := range r.Outcome.Policies {
		if want[ps.Policy] && ps.Policy.Kind.Managed {
			out = append(out, PolicyStatus{Policy: ps.Policy, Ancestors: ancestors(ps, now)})
		}
	}
	return out
}

// ancestors is Strata's status.ancestors of one policy (Ancestors).
func ancestors(ps outcome.PolicyStatus, now metav1.Time) []gwv1.PolicyAncestorStatus {
	p := ps.Policy
	stored := storedAncestors(p.Object.Object)
	mine := controlledBy(p.Kind.ControllerName)
	others, old := splitAncestors(stored, mine)
	fitted := Fit(ps.Ancestors, Limit(p.Kind)-others)
	entries := make([]gwv1.PolicyAncestorStatus, 0, len(fitted))
	for _, a := range fitted {
		ref := parentRef(a.Ref)
		entries = append(entries, gwv1.PolicyAncestorStatus{
			AncestorRef:    ref,
			ControllerName: gwv1.GatewayController(p.Kind.ControllerName),
			Conditions:     Retime(old[parentKey(ref)], a.Conditions, now),
		})
	}
	return entries
}

// Policies returns, for every policy of a managed kind, a copy of the
// policy object with the status.ancestors Strata would write, sharing
// every other field with the policy objects of r (withStatus).
func Policies(r *engine.Result, now metav1.Time) []*unstructured.Unstructured {
	pos := PolicyObjects(r, now)
	out := make([]*unstructured.Unstructured, len(pos))
	for i := range len(pos) {
		out[i] = pos[i].Object()
	}
	return out
}

// PolicyObject is a policy object with the status.ancestors Strata would
// write, as its parts: the object, the stored entries of other
// controllers and Strata's, in that order.
type PolicyObject struct {
	Source map[string]any
	Theirs []any
	Ours   []gwv1.PolicyAncestorStatus
}

// PolicyObjects is Policies as PolicyObjects.
func PolicyObjects(r *engine.Result, now metav1.Time) []*PolicyObject {
	var out []*PolicyObject
	for _, ps := range r.Outcome.Policies {
		if o := ObjectOf(ps, now); o != nil {
			out = append(out, o)
		}
	}
	return out
}

// ObjectOf is the PolicyObject of one policy's outcome; nil when its kind
// is not managed, for Strata writes no status on it.
func ObjectOf(ps outcome.PolicyStatus, now metav1.Time) *PolicyObject {
	p := ps.Policy
	if !p.Kind.Managed {
		return nil
	}
	src := p.Object.Object
	return &PolicyObject{Source: src, Theirs: othersOf(storedAncestors(src), controlledBy(p.Kind.ControllerName)), Ours: ancestors(ps, now)}
}

// Object is the policy object with its status.ancestors (withStatus).
func (p *PolicyObject) Object() *unstructured.Unstructured {
	list := ancestorList(p.Theirs, p.Ours)
	if list == nil {
		list = []any{}
	}
	return withStatus(p.Source, "ancestors", list)
}

// MergeAncestors returns status.ancestors with Strata's entries replaced
// by ours: the stored entries of other controllers (mine says which are
// Strata's) first, as they are, then ours, timed against Strata's stored
// entry for the same ancestorRef (Retime). theirs is how many entries
// belong to other controllers; stored items that are not objects are
// dropped.
func MergeAncestors(stored []any, ours []gwv1.PolicyAncestorStatus, mine func(controllerName string) bool, now metav1.Time) (merged []any, theirs int) {
	theirs, old := splitAncestors(stored, mine)
	timed := make([]gwv1.PolicyAncestorStatus, len(ours))
	for i, a := range ours {
		a.Conditions = Retime(old[parentKey(a.AncestorRef)], a.Conditions, now)
		timed[i] = a
	}
	return ancestorList(othersOf(stored, mine), timed), theirs
}

// ancestorList is status.ancestors of the entries of other controllers,
// as they are, then ours; nil when there are none.
func ancestorList(theirs []any, ours []gwv1.PolicyAncestorStatus) []any {
	if len(theirs)+len(ours) == 0 {
		return nil
	}
	list := make([]any, 0, len(theirs)+len(ours))
	list = append(list, theirs...)
	var last lastConditions
	for i := range ours {
		list = append(list, ancestorMap(&ours[i], &last))
	}
	return list
}

// othersOf are the stored entries of other controllers, as they are.
func othersOf(stored []any, mine func(string) bool) (others []any) {
	for _, e := range stored {
		if m, ok := e.(map[string]any); ok && !mine(str(m, "controllerName")) {
			others = append(others, m)
		}
	}
	return others
}

// splitAncestors counts the stored entries of other controllers and reads
// the conditions of Strata's, by ancestorRef.
func splitAncestors(stored []any, mine func(string) bool) (others int, ours map[string][]metav1.Condition) {
	ours = map[string][]metav1.Condition{}
	for _, e := range stored {
		m, ok := e.(map[string]any)
		if !ok {
			continue // not an entry: dropped
		}
		if !mine(str(m, "controllerName")) {
			others++
			continue
		}
		ref, _ := m["ancestorRef"].(map[string]any)
		ours[refKey(ref)] = conditionsOf(m["conditions"])
	}
	return others, ours
}

func storedAncestors(obj map[string]any) []any {
	list, _, _ := unstructured.NestedSlice(obj, "status", "ancestors")
	return list
}

func controlledBy(name string) func(string) bool {
	return func(c string) bool { return c == name }
}

// parentRef renders a ref as a Gateway API ParentReference, group and
// kind always set (GEP-713 "Standard status struct").
func parentRef(r topology.Ref) gwv1.ParentReference {
	group, kind := gwv1.Group(r.Group), gwv1.Kind(r.Kind)
	ref := gwv1.ParentReference{Group: &group, Kind: &kind, Name: gwv1.ObjectName(r.Name)}
	if r.Namespace != "" {
		ns := gwv1.Namespace(r.Namespace)
		ref.Namespace = &ns
	}
	if r.Section != "" {
		sec := gwv1.SectionName(r.Section)
		ref.SectionName = &sec
	}
	return ref
}

// parentKey is the key of a ParentReference; refKey of a stored one.
func parentKey(r gwv1.ParentReference) string {
	return strings.Join([]string{deref(r.Group), deref(r.Kind), deref(r.Namespace), string(r.Name), deref(r.SectionName)}, "\x00")
}

func refKey(m map[string]any) string {
	return strings.Join([]string{str(m, "group"), str(m, "kind"), str(m, "namespace"), str(m, "name"), str(m, "sectionName")}, "\x00")
}

func deref[T ~string](p *T) string {
	if p == nil {
		return ""
	}
	return string(*p)
}

// withStatus returns a copy of obj with status.field set to v: the object
// and its status map are new, nothing below them is copied.
func withStatus(obj map[string]any, field string, v any) *unstructured.Unstructured {
	out := make(map[string]any, len(obj)+1)
	maps.Copy(out, obj)
	old, _ := obj["status"].(map[string]any)
	st := make(map[string]any, len(old)+1)
	maps.Copy(st, old)
	st[field] = v
	out["status"] = st
	return &unstructured.Unstructured{Object: out}
}
