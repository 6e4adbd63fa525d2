package status

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestConditionMapIsConverter checks that conditionMap renders a
// condition as apimachinery's converter does, field for field, for the
// zero and set values of every field that has one.
func TestConditionMapIsConverter(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 2, 3, 4, 5, 6, 0, time.FixedZone("x", 3600)))
	for name, c := range map[string]metav1.Condition{
		"zero":       {},
		"full":       {Type: "strata.dev/RetryPolicyAffected", Status: metav1.ConditionTrue, ObservedGeneration: 7, LastTransitionTime: at, Reason: "Affected", Message: "affected by a/b"},
		"no time":    {Type: "T", Status: metav1.ConditionFalse, ObservedGeneration: 1, Reason: "R"},
		"no gen":     {Type: "T", Status: metav1.ConditionUnknown, LastTransitionTime: at},
		"negative":   {Type: "T", ObservedGeneration: -1},
		"multi-line": {Type: "T", Message: "a\nb: c"},
	} {
		t.Run(name, func(t *testing.T) {
			want, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&c)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, conditionMap(&c)); diff != "" {
				t.Errorf("conditionMap differs from the converter (-converter +conditionMap):\n%s", diff)
			}
		})
	}
}

// TestStoredStatusIsWholeObjects checks that storedStatus, which
// converts a typed object's status alone, reads the same status as the
// whole object converted, for every shape of object fragment reads.
func TestStoredStatusIsWholeObjects(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC))
	conds := []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionTrue, LastTransitionTime: at, Reason: "Accepted", ObservedGeneration: 2}}
	group := gwv1.Group(gwv1.GroupName)
	route := &gwv1.HTTPRoute{
		ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns"},
		Spec:       gwv1.HTTPRouteSpec{Hostnames: []gwv1.Hostname{"a.example"}},
		Status: gwv1.HTTPRouteStatus{RouteStatus: gwv1.RouteStatus{Parents: []gwv1.RouteParentStatus{{
			ParentRef:      gwv1.ParentReference{Group: &group, Name: "gw"},
			ControllerName: "example.com/gw",
			Conditions:     conds,
		}}}},
	}
	gw := &gwv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Name: "gw", Namespace: "ns"},
		Status: gwv1.GatewayStatus{
			Conditions: conds,
			Listeners:  []gwv1.ListenerStatus{{Name: "http", Conditions: conds, SupportedKinds: []gwv1.RouteGroupKind{{Kind: "HTTPRoute"}}}},
		},
	}
	u := &unstructured.Unstructured{Object: map[string]any{"kind": "X", "status": map[string]any{"conditions": []any{map[string]any{"type": "A"}}}}}
	for name, obj := range map[string]any{
		"route":                       route,
		"route without status":        &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Name: "r"}},
		"gateway":                     gw,
		"service":                     &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s"}},
		"namespace":                   &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "n"}},
		"unstructured":                u,
		"unstructured without status": &unstructured.Unstructured{Object: map[string]any{"kind": "X"}},
	} {
		t.Run(name, func(t *testing.T) {
			whole := toUnstructured(obj)
			got := storedStatus(obj)
			for _, path := range [][]string{{"status", "conditions"}, {"status", "listeners"}, {"status", "parents"}} {
				want, wantFound, _ := unstructured.NestedFieldNoCopy(whole, path...)
				have, haveFound, _ := unstructured.NestedFieldNoCopy(got, path...)
				if wantFound != haveFound || !cmp.Equal(want, have) {
					t.Errorf("%v: storedStatus has %v (%v), the whole object %v (%v)", path, have, haveFound, want, wantFound)
				}
			}
		})
	}
}

// TestStoredConditionsAreConverted checks that storedConditions, which
// reads a typed object's status.conditions as they are, gives the
// conditions the whole object converted to unstructured gives, for
// typed objects with and without conditions and for unstructured ones.
func TestStoredConditionsAreConverted(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC))
	conds := []metav1.Condition{
		{Type: "strata.dev/ColorPolicyAffected", Status: metav1.ConditionTrue, LastTransitionTime: at, Reason: "Affected", Message: "affected by ns/p", ObservedGeneration: 2},
		{Type: "Ready", Status: metav1.ConditionFalse, Reason: "NotYet"}, // no time
	}
	u := &unstructured.Unstructured{Object: map[string]any{"kind": "X", "status": map[string]any{"conditions": []any{
		map[string]any{"type": "A", "status": "True", "lastTransitionTime": "2026-02-03T04:05:06Z", "reason": "R", "message": ""},
		"not a condition",
	}}}}
	for name, obj := range map[string]any{
		"service":              &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Status: corev1.ServiceStatus{Conditions: conds}},
		"service without":      &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s"}},
		"gateway":              &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Name: "g"}, Status: gwv1.GatewayStatus{Conditions: conds}},
		"namespace (no field)": &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "n"}},
		"unstructured":         u,
	} {
		t.Run(name, func(t *testing.T) {
			old, _, _ := unstructured.NestedSlice(toUnstructured(obj), "status", "conditions")
			want := conditionsOf(old)
			got := storedConditions(obj, func() map[string]any { return storedStatus(obj) })
			if !cmp.Equal(want, got, cmpopts.EquateEmpty()) {
				t.Errorf("storedConditions %v, converted %v", got, want)
			}
		})
	}
}

// TestStatusMapsAreConverter checks that parentRefMap, ancestorMap and
// routeParentMap render as apimachinery's converter does, for refs with
// every optional field unset, set, and set to its zero value.
func TestStatusMapsAreConverter(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC))
	group, kind, ns, sec := gwv1.Group(""), gwv1.Kind("Gateway"), gwv1.Namespace("ns"), gwv1.SectionName("http")
	var port, zeroPort gwv1.PortNumber = 8443, 0
	conds := []metav1.Condition{{Type: "T", Status: metav1.ConditionTrue, LastTransitionTime: at, Reason: "R", ObservedGeneration: 3}}
	for name, ref := range map[string]gwv1.ParentReference{
		"name only": {Name: "gw"},
		"full":      {Group: &group, Kind: &kind, Namespace: &ns, Name: "gw", SectionName: &sec, Port: &port},
		"zero port": {Name: "gw", Port: &zeroPort},
		"empty":     {},
	} {
		for cname, cs := range map[string][]metav1.Condition{"no conditions": nil, "empty conditions": {}, "conditions": conds} {
			t.Run(name+"/"+cname, func(t *testing.T) {
				a := gwv1.PolicyAncestorStatus{AncestorRef: ref, ControllerName: "strata.dev/controller", Conditions: cs}
				p := gwv1.RouteParentStatus{ParentRef: ref, ControllerName: "strata.dev/controller", Conditions: cs}
				for what, c := range map[string]struct {
					typed any
					got   map[string]any
				}{
					"ancestor":   {&a, ancestorMap(&a, &lastConditions{})},
					"parent":     {&p, routeParentMap(&p, &lastConditions{})},
					"parent ref": {&ref, parentRefMap(&ref)},
				} {
					want, err := runtime.DefaultUnstructuredConverter.ToUnstructured(c.typed)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(want, c.got); diff != "" {
						t.Errorf("%s differs from the converter (-converter +ours):\n%s", what, diff)
					}
				}
			})
		}
	}
}

// TestFragmentObjectIsSetters checks that Fragment.Object builds the
// object unstructured's setters build, for fragments with and without
// each part.
func TestFragmentObjectIsSetters(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC))
	conds := []metav1.Condition{{Type: "strata.dev/RetryPolicyAffected", Status: metav1.ConditionTrue, LastTransitionTime: at, Reason: "Affected", Message: "m"}}
	gvk := schema.GroupVersionKind{Group: gwv1.GroupName, Version: "v1", Kind: "HTTPRoute"}
	for name, f := range map[string]Fragment{
		"empty":       {},
		"service":     {GVK: corev1.SchemeGroupVersion.WithKind("Service"), Namespace: "ns", Name: "svc", Conditions: conds},
		"cluster":     {GVK: schema.GroupVersionKind{Group: gwv1.GroupName, Version: "v1", Kind: "GatewayClass"}, Name: "gc", Conditions: conds},
		"listeners":   {GVK: gvk, Namespace: "ns", Name: "gw", Listeners: []Listener{{Name: "http", Conditions: conds}, {Name: "https"}}},
		"parents":     {GVK: gvk, Namespace: "ns", Name: "r", Parents: []gwv1.RouteParentStatus{{ParentRef: gwv1.ParentReference{Name: "gw"}, ControllerName: "c", Conditions: conds}}},
		"annotations": {GVK: gvk, Namespace: "ns", Name: "r", Annotations: map[string]string{"strata.dev/affected": "x"}},
	} {
		t.Run(name, func(t *testing.T) {
			want := &unstructured.Unstructured{Object: map[string]any{}}
			want.SetGroupVersionKind(f.GVK)
			want.SetName(f.Name)
			want.SetNamespace(f.Namespace)
			if len(f.Conditions) > 0 {
				_ = unstructured.SetNestedSlice(want.Object, toMaps(f.Conditions), "status", "conditions")
			}
			if len(f.Parents) > 0 {
				var parents []any
				for i := range f.Parents {
					m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&f.Parents[i])
					if err != nil {
						t.Fatal(err)
					}
					parents = append(parents, m)
				}
				_ = unstructured.SetNestedSlice(want.Object, parents, "status", "parents")
			}
			if len(f.Listeners) > 0 {
				var ls []any
				for _, l := range f.Listeners {
					ls = append(ls, map[string]any{"name": l.Name, "conditions": toMaps(l.Conditions)})
				}
				_ = unstructured.SetNestedSlice(want.Object, ls, "status", "listeners")
			}
			if len(f.Annotations) > 0 {
				want.SetAnnotations(f.Annotations)
			}
			if diff := cmp.Diff(want.Object, f.Object().Object); diff != "" {
				t.Errorf("Object differs from the setters (-setters +Object):\n%s", diff)
			}
		})
	}
}

// TestWithStatusLeavesObject checks that withStatus sets the field in a
// copy, keeping the object's other fields and status fields, and leaves
// the object it was given as it was.
func TestWithStatusLeavesObject(t *testing.T) {
	obj := map[string]any{
		"kind":     "RetryPolicy",
		"metadata": map[string]any{"name": "p"},
		"spec":     map[string]any{"attempts": int64(3)},
		"status":   map[string]any{"ancestors": []any{"old"}, "other": "kept"},
	}
	before := runtime.DeepCopyJSON(obj)
	got := withStatus(obj, "ancestors", []any{"new"})
	if diff := cmp.Diff(before, obj); diff != "" {
		t.Errorf("the object changed (-before +after):\n%s", diff)
	}
	want := runtime.DeepCopyJSON(obj)
	want["status"].(map[string]any)["ancestors"] = []any{"new"}
	if diff := cmp.Diff(want, got.Object); diff != "" {
		t.Errorf("withStatus (-want +got):\n%s", diff)
	}
	if got := withStatus(map[string]any{"kind": "K"}, "ancestors", []any{}); !cmp.Equal(got.Object, map[string]any{"kind": "K", "status": map[string]any{"ancestors": []any{}}}) {
		t.Errorf("without a status: %v", got.Object)
	}
}

// TestJoinedLists: an object's lists of one kind (its own, its
// sections') join into one sorted list without duplicates, and a single
// list is the outcome's own, not a copy.
func TestJoinedLists(t *testing.T) {
	join := func(lists ...[]string) []string {
		var kl []kindLists[string]
		for _, l := range lists {
			kl = add(kl, nil, l)
		}
		return kl[0].joined()
	}
	one := []string{"ns/a", "ns/b"}
	if got := join(one); &got[0] != &one[0] {
		t.Errorf("one list copied: %v", got)
	}
	for _, tc := range []struct {
		lists [][]string
		want  []string
	}{
		{[][]string{{"ns/a", "ns/c"}, {"ns/b", "ns/c"}}, []string{"ns/a", "ns/b", "ns/c"}},
		{[][]string{{"ns/b"}, {}, {"ns/a"}, {"ns/b"}}, []string{"ns/a", "ns/b"}},
	} {
		if got := join(tc.lists...); !cmp.Equal(got, tc.want) {
			t.Errorf("joined %v = %v, want %v", tc.lists, got, tc.want)
		}
	}
	nodes := add(add(nil, nil, []int32{3, 9}), nil, []int32{1, 3})[0].joined()
	if !cmp.Equal(nodes, []int32{1, 3, 9}) {
		t.Errorf("joined nodes %v", nodes)
	}
}

// TestSameConditionsShareMaps checks that MergeAncestors and Targets'
// fragments render the same conditions as the previous entry's as the
// same maps (lastConditions), and different ones as their own: each
// entry as the converter renders it, whatever came before.
func TestSameConditionsShareMaps(t *testing.T) {
	at := metav1.NewTime(time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC))
	later := metav1.NewTime(at.Add(time.Second))
	accepted := []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionTrue, LastTransitionTime: at, Reason: "Accepted", ObservedGeneration: 1}}
	same := slices.Clone(accepted)
	otherTime := []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionTrue, LastTransitionTime: later, Reason: "Accepted", ObservedGeneration: 1}}
	otherMessage := []metav1.Condition{{Type: "Accepted", Status: metav1.ConditionTrue, LastTransitionTime: at, Reason: "Accepted", ObservedGeneration: 1, Message: "m"}}
	two := append(slices.Clone(accepted), metav1.Condition{Type: "Overridden", Status: metav1.ConditionFalse, LastTransitionTime: at, Reason: "NotApplicable"})
	lists := [][]metav1.Condition{accepted, same, otherTime, otherMessage, two, two, nil, accepted}
	shared := []bool{false, true, false, false, false, true, false, false}

	var ours []gwv1.PolicyAncestorStatus
	for i, cs := range lists {
		ours = append(ours, gwv1.PolicyAncestorStatus{AncestorRef: gwv1.ParentReference{Name: gwv1.ObjectName(fmt.Sprint("gw", i))}, ControllerName: "c", Conditions: cs})
	}
	merged, _ := MergeAncestors(nil, ours, func(string) bool { return false }, at)
	var frags []*Fragment
	for i, cs := range lists {
		frags = append(frags, &Fragment{GVK: corev1.SchemeGroupVersion.WithKind("Service"), Namespace: "ns", Name: fmt.Sprint("s", i), Conditions: cs})
	}
	var last lastConditions
	for i := range lists {
		want, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&ours[i])
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, merged[i]); diff != "" {
			t.Errorf("ancestor %d differs from the converter (-converter +merged):\n%s", i, diff)
		}
		fresh := frags[i].Object().Object
		obj := frags[i].object(&last).Object
		if diff := cmp.Diff(fresh, obj); diff != "" {
			t.Errorf("fragment %d differs from its own Object (-Object +after the others):\n%s", i, diff)
		}
		if i == 0 {
			continue
		}
		prevConds, _, _ := unstructured.NestedFieldNoCopy(merged[i-1].(map[string]any), "conditions")
		conds, _, _ := unstructured.NestedFieldNoCopy(merged[i].(map[string]any), "conditions")
		if got := conds != nil && prevConds != nil && &conds.([]any)[0] == &prevConds.([]any)[0]; got != shared[i] {
			t.Errorf("ancestor %d shares the conditions of the one before: %v, want %v", i, got, shared[i])
		}
	}
}
