package printer

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/sink/status"
)

// TestFragmentIsObject checks that a status.Fragment prints, in a List
// of YAML or JSON, as the object Fragment.Object renders prints (and,
// in YAML, as go-yaml writes that object), for random fragments with and
// without each part, printed one after another by the same emitter.
func TestFragmentIsObject(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	assertPrintsAsObjects(t, r, func() (any, map[string]any) {
		f := randomFragment(r)
		return f, f.Object().Object
	}, &status.Fragment{}, (&status.Fragment{}).Object().Object)
}

// TestPolicyObjectIsObject is TestFragmentIsObject for policies with
// Strata's status.ancestors: random objects, with a status or without
// (or one that is not an object), entries of other controllers and
// Strata's.
func TestPolicyObjectIsObject(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 17))
	empty := &status.PolicyObject{Source: map[string]any{}}
	assertPrintsAsObjects(t, r, func() (any, map[string]any) {
		p := randomPolicyObject(r)
		return p, p.Object().Object
	}, empty, empty.Object().Object)
}

// assertPrintsAsObjects prints Lists of random items (item: the item
// and its object), and once the item first and its object, as
// TestFragmentIsObject says.
func assertPrintsAsObjects(t *testing.T, r *rand.Rand, item func() (any, map[string]any), first any, firstObject map[string]any) {
	t.Helper()
	for round := range 300 {
		var typed, objects []any
		for range 1 + r.IntN(6) {
			it, obj := item()
			typed = append(typed, it)
			objects = append(objects, obj)
		}
		if round == 0 {
			typed = append(typed, first)
			objects = append(objects, firstObject)
		}
		name := fmt.Sprintf("round %d", round)
		for _, format := range []string{YAML, JSON} {
			want, got := listBytes(t, objects, format), listBytes(t, typed, format)
			if want != got {
				t.Fatalf("%s, %s: the items print otherwise than their objects:\n--- objects\n%s\n--- items\n%s", name, format, want, got)
			}
			var whole, wholeObjects bytes.Buffer
			if err := Print(&whole, List(typed), format); err != nil {
				t.Fatal(err)
			}
			if err := Print(&wholeObjects, List(objects), format); err != nil {
				t.Fatal(err)
			}
			if whole.String() != wholeObjects.String() {
				t.Fatalf("%s, %s: Print of the items differs from their objects':\n--- objects\n%s\n--- items\n%s", name, format, wholeObjects.String(), whole.String())
			}
			if wholeObjects.String() != want {
				t.Fatalf("%s, %s: Print of the objects differs from the ListWriter's:\n--- ListWriter\n%s\n--- Print\n%s", name, format, want, wholeObjects.String())
			}
		}
		var goyaml bytes.Buffer
		if err := goYAML(&goyaml, List(objects)); err != nil {
			t.Fatal(err)
		}
		if got := listBytes(t, typed, YAML); goyaml.String() != got {
			t.Fatalf("%s: the items print otherwise than go-yaml writes their objects:\n--- go-yaml\n%s\n--- items\n%s", name, goyaml.String(), got)
		}
	}
}

// listBytes prints items as a List through a ListWriter, as `strata
// status` does.
func listBytes(t *testing.T, items []any, format string) string {
	t.Helper()
	var b bytes.Buffer
	lw, err := NewListWriter(&b, format)
	if err != nil {
		t.Fatal(err)
	}
	if err := lw.Items(len(items), func(i int) any { return items[i] }); err != nil {
		t.Fatal(err)
	}
	if err := lw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func randomFragment(r *rand.Rand) *status.Fragment {
	str := func() string {
		if r.IntN(3) == 0 {
			return ""
		}
		return randomString(r, 4)
	}
	times := []metav1.Time{{}, metav1.NewTime(time.Date(2026, 1, 1, 1, 23, 19, 0, time.UTC)), metav1.NewTime(time.Date(2026, 1, 1, 2, 23, 19, 0, time.FixedZone("x", 3600)))}
	base := metav1.Condition{Type: "Accepted", Status: metav1.ConditionTrue, Reason: "Accepted", Message: "accepted", ObservedGeneration: 1, LastTransitionTime: times[1]}
	recurring := []metav1.Condition{base, base, base}
	recurring[1].Message = "accepted; 24 more ancestors not listed (room for 16 in status.ancestors), 24 with problems"
	recurring[2].LastTransitionTime = times[2]
	for _, change := range []func(c *metav1.Condition){
		func(c *metav1.Condition) { c.Type = "Enforced" },
		func(c *metav1.Condition) { c.Status = metav1.ConditionFalse },
		func(c *metav1.Condition) { c.Reason = "Overridden" },
		func(c *metav1.Condition) { c.ObservedGeneration = 0 },
		func(c *metav1.Condition) { c.LastTransitionTime = times[0] },
	} {
		c := base
		change(&c)
		recurring = append(recurring, c)
	}
	conds := func() []metav1.Condition {
		if r.IntN(4) == 0 {
			return nil
		}
		var cs []metav1.Condition
		for range r.IntN(4) {
			// Half the conditions recur, here and in other items, in
			// the same places and in others (the emitter writes a
			// condition it wrote before in the same state again), and
			// some differ from another in one field alone.
			if r.IntN(2) == 0 {
				cs = append(cs, recurring[r.IntN(len(recurring))])
				continue
			}
			cs = append(cs, metav1.Condition{
				Type: str(), Status: metav1.ConditionStatus(str()), Reason: str(), Message: str(),
				ObservedGeneration: int64(r.IntN(3)) - 1, LastTransitionTime: times[r.IntN(len(times))],
			})
		}
		return cs
	}
	opt := func() *string {
		if r.IntN(2) == 0 {
			return nil
		}
		s := str()
		return &s
	}
	ref := func() gwv1.ParentReference {
		ref := gwv1.ParentReference{Name: gwv1.ObjectName(str())}
		if s := opt(); s != nil {
			ref.Group = (*gwv1.Group)(s)
		}
		if s := opt(); s != nil {
			ref.Kind = (*gwv1.Kind)(s)
		}
		if s := opt(); s != nil {
			ref.Namespace = (*gwv1.Namespace)(s)
		}
		if s := opt(); s != nil {
			ref.SectionName = (*gwv1.SectionName)(s)
		}
		if r.IntN(2) == 0 {
			port := gwv1.PortNumber(r.IntN(3) * 4000)
			ref.Port = &port
		}
		return ref
	}
	f := &status.Fragment{
		GVK:       schema.GroupVersionKind{Group: str(), Version: "v1", Kind: str()},
		Namespace: str(), Name: str(),
		Conditions: conds(),
	}
	if r.IntN(3) == 0 {
		for range r.IntN(3) {
			f.Listeners = append(f.Listeners, status.Listener{Name: str(), Conditions: conds()})
		}
	}
	if r.IntN(3) == 0 {
		for range r.IntN(3) {
			f.Parents = append(f.Parents, gwv1.RouteParentStatus{ParentRef: ref(), ControllerName: gwv1.GatewayController(str()), Conditions: conds()})
		}
	}
	if r.IntN(3) == 0 {
		f.Annotations = map[string]string{}
		for range r.IntN(3) {
			f.Annotations[randomString(r, 3)] = str()
		}
	}
	return f
}

func randomPolicyObject(r *rand.Rand) *status.PolicyObject {
	src := map[string]any{}
	if m, ok := randomValue(r, 1).(map[string]any); ok {
		src = m
	}
	src["apiVersion"], src["kind"] = "policies.example.com/v1", "ColorPolicy"
	switch r.IntN(4) {
	case 0: // no status
		delete(src, "status")
	case 1: // a status that is not an object
		src["status"] = randomString(r, 3)
	default: // a status with other members, an old ancestors list perhaps
		st := map[string]any{}
		for range r.IntN(3) {
			st[randomString(r, 3)] = randomValue(r, 3)
		}
		if r.IntN(2) == 0 {
			st["ancestors"] = []any{map[string]any{"controllerName": "old"}}
		}
		src["status"] = st
	}
	p := &status.PolicyObject{Source: src}
	for range r.IntN(3) {
		m, ok := randomValue(r, 3).(map[string]any)
		if !ok {
			m = map[string]any{}
		}
		m["controllerName"] = "other.example.com/" + randomString(r, 2)
		p.Theirs = append(p.Theirs, m)
	}
	f := randomFragment(r) // its parents' refs and conditions
	for _, pr := range f.Parents {
		p.Ours = append(p.Ours, gwv1.PolicyAncestorStatus{AncestorRef: pr.ParentRef, ControllerName: pr.ControllerName, Conditions: pr.Conditions})
	}
	return p
}
