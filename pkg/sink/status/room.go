package status

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
)

// OmittedAnnotation is the annotation that names, on a target object,
// Strata's <Kind>Affected conditions that are not in its status for want
// of room: each list of conditions of a Gateway API object holds at most
// its CRD's maxItems (hierarchy.KindInfo.MaxConditions), other
// controllers' conditions are never displaced, and an API server refuses
// the whole status write when a list is too long. GEP-713 "Target object
// status" asks for a condition (or, where conditions cannot be had, an
// annotation) on every affected object; this one annotation says which
// conditions could not be had and where they would have gone. Strata owns
// it: it is set while something is left out and removed when nothing is.
const OmittedAnnotation = "strata.dev/omitted-conditions"

// Omission is what of Strata's conditions one list of conditions of an
// object has no room for.
type Omission struct {
	// Place is the list: status.conditions,
	// status.listeners[NAME].conditions or
	// status.parents[Kind NS/NAME#SECTION:PORT].conditions (the entry's
	// parentRef as stored, namespace, section and port when it has them).
	Place string
	// Types are the condition types left out, sorted.
	Types []string
	// MaxItems is the list's bound, its CRD's maxItems.
	MaxItems int
}

// Text says what the omission leaves out, for people: "4 conditions not
// written: no room in status.conditions (maxItems 8): A, B, C, D".
func (o Omission) Text() string {
	noun := "conditions"
	if len(o.Types) == 1 {
		noun = "condition"
	}
	return fmt.Sprintf("%d %s not written: no room in %s (maxItems %d): %s", len(o.Types), noun, o.Place, o.MaxItems, strings.Join(o.Types, ", "))
}

// Places of a target object's lists of conditions (Omission.Place).
const placeConditions = "status.conditions"

func listenerPlace(name string) string { return "status.listeners[" + name + "].conditions" }

// parentPlace names an entry of status.parents by its parentRef as
// stored (group and kind defaulted, the group not shown).
func parentPlace(parentRef map[string]any) string {
	d := withDefaults(parentRef)
	var b strings.Builder
	b.WriteString("status.parents[")
	b.WriteString(str(d, "kind"))
	b.WriteString(" ")
	if ns := str(d, "namespace"); ns != "" {
		b.WriteString(ns)
		b.WriteString("/")
	}
	b.WriteString(str(d, "name"))
	if s := str(d, "sectionName"); s != "" {
		b.WriteString("#")
		b.WriteString(s)
	}
	switch p := d["port"].(type) {
	case int64:
		b.WriteString(":" + strconv.FormatInt(p, 10))
	case float64:
		b.WriteString(":" + strconv.FormatInt(int64(p), 10))
	case int32:
		b.WriteString(":" + strconv.FormatInt(int64(p), 10))
	}
	b.WriteString("].conditions")
	return b.String()
}

// FormatOmissions is the value of OmittedAnnotation: each list, then its
// omitted types, lists in Place order, "; " between them:
//
//	status.conditions: strata.dev/GPolicyAffected, strata.dev/HPolicyAffected
func FormatOmissions(om []Omission) string {
	parts := make([]string, 0, len(om))
	for _, o := range om {
		parts = append(parts, o.Place+": "+strings.Join(o.Types, ", "))
	}
	return strings.Join(parts, "; ")
}

// ParseOmissions reads a value of OmittedAnnotation (FormatOmissions) on
// an object whose lists hold at most maxItems conditions; what does not
// read as a list and its types is skipped.
func ParseOmissions(value string, maxItems int) []Omission {
	var out []Omission
	for _, part := range strings.Split(value, "; ") {
		place, list, ok := strings.Cut(part, ": ")
		if !ok || place == "" || list == "" {
			continue
		}
		out = append(out, Omission{Place: place, Types: strings.Split(list, ", "), MaxItems: maxItems})
	}
	return out
}

// fitConditions keeps of ours, Strata's conditions for one list in the
// order they are written, as many as room allows. When all fit they are
// returned as they are. Otherwise those problem reports (the types of
// Fragment.Problems) win first, then the others by kind name (the type's
// part after the domain, then the whole type), as Fit keeps a policy's
// ancestors with a problem first: an object whose policies are in
// trouble never hides that trouble behind conditions that say all is
// well. The kept ones stay in the order of ours; left are the types of
// the others, sorted. Deterministic: the same conditions and room give
// the same choice.
func fitConditions(ours []metav1.Condition, room int, problem func(string) bool) (kept []metav1.Condition, left []string) {
	if len(ours) <= room || len(ours) == 0 {
		return ours, nil
	}
	room = max(room, 0)
	order := make([]int, len(ours))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		pa, pb := problem(ours[a].Type), problem(ours[b].Type)
		if pa != pb {
			if pa {
				return -1
			}
			return 1
		}
		return compareTypes(ours[a].Type, ours[b].Type)
	})
	keep := slices.Clone(order[:room])
	slices.Sort(keep)
	kept = make([]metav1.Condition, 0, room)
	for _, i := range keep {
		kept = append(kept, ours[i])
	}
	for _, i := range order[room:] {
		left = append(left, ours[i].Type)
	}
	slices.Sort(left)
	return kept, left
}

// compareTypes orders condition types by kind name (what follows the
// domain: "ColorPolicyAffected"), then as strings.
func compareTypes(a, b string) int {
	_, ka, _ := strings.Cut(a, "/")
	_, kb, _ := strings.Cut(b, "/")
	return cmp.Or(strings.Compare(ka, kb), strings.Compare(a, b))
}

// omissions gathers omitted types by place.
type omissions map[string][]string

func (o omissions) add(place string, types []string) {
	if len(types) > 0 {
		o[place] = slices.Compact(slices.Sorted(slices.Values(append(o[place], types...))))
	}
}

// list is the omissions sorted by place, of lists bounded by maxItems;
// nil when there are none.
func (o omissions) list(maxItems int) []Omission {
	if len(o) == 0 {
		return nil
	}
	out := make([]Omission, 0, len(o))
	for _, p := range sortedKeys(o) {
		out = append(out, Omission{Place: p, Types: o[p], MaxItems: maxItems})
	}
	return out
}

// OmittedFrom is the lists of om, the omissions of an object of kind gk,
// that leave out a condition of type typ of the target that is the
// object (section "") or one of its sections: a listener has a list of
// its own; a route's rules share the route's parent entries; any other
// section (a Service port) shares the object's status.conditions.
func OmittedFrom(om []Omission, gk schema.GroupKind, section, typ string) []string {
	info := hierarchy.Kinds[gk]
	in := func(place string) bool { return place == placeConditions }
	switch {
	case info.Conditions == hierarchy.InRouteParents:
		in = func(place string) bool { return strings.HasPrefix(place, "status.parents[") }
	case section != "" && info.Section == "listener":
		in = func(place string) bool { return place == listenerPlace(section) }
	}
	var out []string
	for _, o := range om {
		if in(o.Place) && slices.Contains(o.Types, typ) {
			out = append(out, o.Place)
		}
	}
	return out
}
