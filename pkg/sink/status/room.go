package status

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
)

// Places of a target object's lists of conditions (hierarchy.Omission.Place).
const placeConditions = "status.conditions"

func listenerPlace(name string) string { return "status.listeners[" + name + "].conditions" }

// parentPlace names an entry of status.parents by its parentRef as
// stored (group and kind defaulted, the group not shown).
func parentPlace(parentRef map[string]any) string {
	d := withDefaults(parentRef)
	var b strings.Builder
	b.WriteString("status.parents[" + str(d, "kind") + " ")
	if ns := str(d, "namespace"); ns != "" {
		b.WriteString(ns + "/")
	}
	b.WriteString(str(d, "name"))
	if s := str(d, "sectionName"); s != "" {
		b.WriteString("#" + s)
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

// fitConditions keeps as many of ours as room allows, in their order:
// those problem reports win first, then the others by kind name, as Fit
// keeps a policy's ancestors with a problem first. left are the types of
// the others, sorted.
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
func (o omissions) list(maxItems int) []hierarchy.Omission {
	if len(o) == 0 {
		return nil
	}
	out := make([]hierarchy.Omission, 0, len(o))
	for _, p := range sortedKeys(o) {
		out = append(out, hierarchy.Omission{Place: p, Types: o[p], MaxItems: maxItems})
	}
	return out
}

// OmittedFrom is the lists of om, the omissions of an object of kind gk,
// that leave out a condition of type typ of the object (section "") or
// one of its sections: a listener has a list of its own, a route's rules
// share its parent entries, any other section the object's conditions.
func OmittedFrom(om []hierarchy.Omission, gk schema.GroupKind, section, typ string) []string {
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
