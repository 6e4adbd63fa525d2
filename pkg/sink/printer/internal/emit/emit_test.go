package emit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	goyaml "go.yaml.in/yaml/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/internal/enginetest"
	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/sink/printer/internal/samples"
	"github.com/strata-dev/strata/pkg/sink/status"
)

// libraryYAML is the library YAMLEncoder stands for: v's JSON read back
// by encoding/json with go-yaml's number types (sigs.k8s.io/yaml's
// JSONToYAML reads the JSON with go-yaml itself, which refuses keys over
// 1024 characters), written by go-yaml v2.
func libraryYAML(v any) ([]byte, error) {
	js, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var g any
	if err := dec.Decode(&g); err != nil {
		return nil, err
	}
	return goyaml.Marshal(yamlNumbers(g))
}

// libraryJSON is the library JSONEncoder stands for: v's JSON read back
// into an any and written by json.MarshalIndent.
func libraryJSON(v any, prefix string) ([]byte, error) {
	js, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var g any
	if err := json.Unmarshal(js, &g); err != nil {
		return nil, err
	}
	return json.MarshalIndent(g, prefix, "  ")
}

// same checks that both encoders, reused from value to value as a
// printer's worker reuses them, write their library's bytes for v (or
// fail where it fails).
func same(t *testing.T, y *YAMLEncoder, j *JSONEncoder, name string, v any) {
	t.Helper()
	want, wantErr := libraryYAML(v)
	got, gotErr := y.Append(nil, v)
	if (wantErr != nil) != (gotErr != nil) {
		t.Fatalf("%s: YAML error %v, want %v", name, gotErr, wantErr)
	}
	if wantErr == nil && !bytes.Equal(got, want) {
		t.Fatalf("%s: YAML differs from go-yaml:\n--- go-yaml\n%s\n--- emit\n%s", name, want, got)
	}
	want, wantErr = libraryJSON(v, "    ")
	got, gotErr = j.Append(nil, v)
	if (wantErr != nil) != (gotErr != nil) {
		t.Fatalf("%s: JSON error %v, want %v", name, gotErr, wantErr)
	}
	if wantErr == nil && !bytes.Equal(got, want) {
		t.Fatalf("%s: JSON differs from MarshalIndent:\n--- MarshalIndent\n%s\n--- emit\n%s", name, want, got)
	}
}

// TestIsLibrary compares both encoders with their libraries on random
// values made of the samples.Pieces that change go-yaml's choices, at every
// depth, as generic values and inside typed ones (which go through their
// JSON); on EffectivePolicies with every field filled, resultant
// policies with repeated names and numbers in every notation; and on
// keys that become one another once made valid UTF-8.
func TestIsLibrary(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	y, j := NewYAMLEncoder(), NewJSONEncoder("    ")
	for i := range 3000 {
		v := samples.Value(r, 0)
		same(t, y, j, fmt.Sprintf("value %d", i), v)
		same(t, y, j, fmt.Sprintf("typed %d", i), struct {
			V any `json:"v"`
			B int `json:"b,omitempty"`
		}{v, r.IntN(2)})
		same(t, y, j, fmt.Sprintf("list %d", i), []any{v, map[string]any{"a": v, samples.String(r, 2): samples.Value(r, 1)}})
	}
	raws := []string{
		`{"b":1,"a":2,"b":3}`, `{"x":{"k":"v","k":"w"},"y":[1.0,1e3,-0,0.000001,1e-7,12345678901234567,1E+2,-1.5e-10]}`,
		`{"\u00e9":"<&>","\u2028":"\ud800"}`, `[]`, `{}`, `null`, `"s"`, `  { "a" : [ 1 , 2 ] }  `,
	}
	for i, ep := range enginetest.FilledEffectivePolicies(61, 500, raws...) {
		same(t, y, j, fmt.Sprintf("effective policy %d", i), ep)
	}
	// Impacts, narrow and wide.
	for i := range 1000 {
		im := samples.Impact(r)
		same(t, y, j, fmt.Sprintf("impact %d", i), im)
		same(t, y, j, fmt.Sprintf("impact value %d", i), *im)
	}
	for _, n := range []int{1, 63, 64, 197, 1000} {
		same(t, y, j, fmt.Sprintf("wide impact %d", n), samples.WideImpact(r, n))
		same(t, y, j, fmt.Sprintf("wide impacts %d", n), []any{samples.WideImpact(r, n), map[string]any{"x": samples.WideImpact(r, n)}})
	}
	same(t, y, j, "nil impact", (*query.Impact)(nil))
	for i := range 1000 {
		d := randomPolicyDescription(r)
		same(t, y, j, fmt.Sprintf("description %d", i), []any{d, *d, map[string]any{"x": d}})
	}
	for i := range 300 {
		l := &query.PolicyList{TypeMeta: query.TypeMeta{APIVersion: samples.String(r, 2), Kind: samples.String(r, 2)}}
		if r.IntN(5) != 0 {
			l.Items = []query.PolicySummary{}
			for range r.IntN(4) {
				l.Items = append(l.Items, randomPolicyDescription(r).Policy)
			}
		}
		same(t, y, j, fmt.Sprintf("policy list %d", i), []any{l, *l, map[string]any{"x": l}})
	}
	same(t, y, j, "nil description", []any{(*query.PolicyDescription)(nil), (*query.PolicyList)(nil), &query.PolicyList{}})
	same(t, y, j, "invalid keys", map[string]any{"a\xff": 1, "a\xfe": 2, "b": map[string]any{"\xff": "x"}})
	same(t, y, j, "integers", map[string]any{"a": int64(1) << 53, "b": int64(1)<<53 + 1, "c": -(int64(1) << 62), "d": int32(-5), "e": json.Number("9007199254740993")})
	same(t, y, j, "long key", map[string]any{strings.Repeat("/k", 600): 1})
	same(t, y, j, "not JSON", map[string]any{"f": math.Inf(1)})
}

// TestStatusIsObjects checks that a status.Fragment and a
// status.PolicyObject encode as the objects they render (Object), one
// after another by the same encoders, as a status List prints them:
// random fragments with and without each part, policies with a status
// or without, entries of other controllers and Strata's.
func TestStatusIsObjects(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 17))
	y, j := NewYAMLEncoder(), NewJSONEncoder("    ")
	check := func(name string, v any, object map[string]any) {
		t.Helper()
		for _, c := range []struct {
			format    string
			got, want func(any) ([]byte, error)
		}{
			{"YAML", func(v any) ([]byte, error) { return y.Append(nil, []any{v}) }, func(v any) ([]byte, error) { return libraryYAML([]any{v}) }},
			{"JSON", func(v any) ([]byte, error) { return j.Append(nil, v) }, func(v any) ([]byte, error) { return libraryJSON(v, "    ") }},
		} {
			got, err := c.got(v)
			if err != nil {
				t.Fatalf("%s %s: %v", name, c.format, err)
			}
			want, err := c.want(object)
			if err != nil {
				t.Fatalf("%s %s: library: %v", name, c.format, err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s %s: differs from the object's:\n--- object\n%s\n--- emit\n%s", name, c.format, want, got)
			}
		}
	}
	check("empty fragment", &status.Fragment{}, (&status.Fragment{}).Object().Object)
	empty := &status.PolicyObject{Source: map[string]any{}}
	check("empty policy", empty, empty.Object().Object)
	for i := range 1000 {
		f := randomFragment(r)
		check(fmt.Sprintf("fragment %d", i), f, f.Object().Object)
		p := randomPolicyObject(r)
		check(fmt.Sprintf("policy %d", i), p, p.Object().Object)
	}
}

// FuzzIsLibrary: a string as a value, as a key, in a list, at three
// depths (so at different columns), inside a typed value, encodes as the
// libraries encode it.
//
//	go test -fuzz FuzzIsLibrary ./pkg/sink/printer/internal/emit/
func FuzzIsLibrary(f *testing.F) {
	for _, p := range samples.Pieces {
		f.Add(p)
		f.Add("x" + p + "y")
		f.Add(p + strings.Repeat(" word", 20) + p)
	}
	y, j := NewYAMLEncoder(), NewJSONEncoder("    ")
	f.Fuzz(func(t *testing.T, s string) {
		same(t, y, j, fmt.Sprintf("%q", s), []any{
			s,
			map[string]any{"k": s, s: "v"},
			[]any{s, []any{s}},
			map[string]any{"a": map[string]any{"b": []any{map[string]any{"c": s, s: []any{}}}}},
			struct {
				S string         `json:"s"`
				M map[string]any `json:"m"`
			}{s, map[string]any{s: s}},
		})
	})
}

// randomPolicyDescription is a PolicyDescription with every member
// present or absent, nil and empty slices and maps, and strings made of
// the samples.Pieces that change go-yaml's choices.
//
// Conditions are drawn from a few half the time, so that descriptions
// repeat them, in one item and across the items of a List, as a world's
// descriptions do (the emitter writes a repeated one again, again.go).
func randomPolicyDescription(r *rand.Rand) *query.PolicyDescription {
	str := func() string {
		if r.IntN(3) == 0 {
			return ""
		}
		return samples.String(r, 4)
	}
	ref := func() strata.Ref {
		return strata.Ref{Group: str(), Kind: str(), Namespace: str(), Name: str(), SectionName: str(), Role: str()}
	}
	strs := func() []string {
		if r.IntN(4) == 0 {
			return nil
		}
		out := []string{}
		for range r.IntN(3) {
			out = append(out, str())
		}
		return out
	}
	d := &query.PolicyDescription{
		TypeMeta: query.TypeMeta{APIVersion: str(), Kind: str()},
		Policy: query.PolicySummary{
			PolicyRef: query.PolicyRef{Group: str(), Kind: str(), Namespace: str(), Name: str()},
			Class:     str(), Managed: r.IntN(2) == 0, Created: str(), Targets: strs(),
			Status:  query.StatusSummary{Accepted: str(), Reasons: strs(), Enforcement: str()},
			Affects: query.Count{Targets: r.IntN(1 << 20), Contexts: []int{0, 7, 1 << 53, -1}[r.IntN(4)]},
		},
	}
	if r.IntN(5) != 0 {
		d.Blocks = []query.Block{}
		for range r.IntN(3) {
			b := query.Block{Field: str(), Strategy: str()}
			if v, ok := samples.Value(r, 1).(map[string]any); ok || r.IntN(3) != 0 {
				if !ok {
					v = map[string]any{}
				}
				b.Values = v
			}
			d.Blocks = append(d.Blocks, b)
		}
	}
	if r.IntN(5) != 0 {
		d.AttachedTo = []strata.Ref{}
		for range r.IntN(3) {
			d.AttachedTo = append(d.AttachedTo, ref())
		}
	}
	if r.IntN(3) == 0 {
		d.Rejected = []query.Rejection{}
		for range r.IntN(3) {
			d.Rejected = append(d.Rejected, query.Rejection{Policy: query.PolicyRef{Group: str(), Kind: str(), Namespace: str(), Name: str()}, Field: str(), Reason: str(), Message: str()})
		}
	}
	if r.IntN(5) != 0 {
		d.Ancestors = []query.AncestorStatus{}
		for range r.IntN(3) {
			a := query.AncestorStatus{Ancestor: ref()}
			if r.IntN(4) != 0 {
				a.Conditions = []query.Condition{}
				for range r.IntN(3) {
					c := query.Condition{Type: str(), Status: str(), Reason: str(), Message: str()}
					if r.IntN(2) == 0 {
						c = sharedConditions[r.IntN(len(sharedConditions))]
					}
					a.Conditions = append(a.Conditions, c)
				}
			}
			d.Ancestors = append(d.Ancestors, a)
		}
	}
	if r.IntN(5) != 0 {
		d.Reaches = []query.Reach{}
		for range r.IntN(4) {
			re := query.Reach{Target: ref()}
			if r.IntN(4) != 0 {
				re.Results = map[string]int{}
				for range r.IntN(4) {
					re.Results[[]string{"Enforced", "Overridden", "PartiallyEnforced", "item10", "item9", str()}[r.IntN(6)]] = r.IntN(100)
				}
			}
			d.Reaches = append(d.Reaches, re)
		}
	}
	return d
}

// sharedConditions are the conditions descriptions share
// (randomPolicyDescription): the usual words, an empty one, and strings
// that change go-yaml's choices.
var sharedConditions = []query.Condition{
	{Type: "Accepted", Status: "True", Reason: "Accepted", Message: "accepted"},
	{Type: "Enforced", Status: "False", Reason: "NotApplicable", Message: "the policy is Overridden"},
	{Type: "Overridden", Status: "True", Reason: "Overridden", Message: "overridden by ns-0000/color-000100 in all 60 contexts"},
	{},
	{Type: "yes", Status: "123", Reason: "- x", Message: "a: b\nc"},
}

func randomFragment(r *rand.Rand) *status.Fragment {
	str := func() string {
		if r.IntN(3) == 0 {
			return ""
		}
		return samples.String(r, 4)
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
			f.Annotations[samples.String(r, 3)] = str()
		}
	}
	return f
}

func randomPolicyObject(r *rand.Rand) *status.PolicyObject {
	src := map[string]any{}
	if m, ok := samples.Value(r, 1).(map[string]any); ok {
		src = m
	}
	src["apiVersion"], src["kind"] = "policies.example.com/v1", "ColorPolicy"
	switch r.IntN(4) {
	case 0: // no status
		delete(src, "status")
	case 1: // a status that is not an object
		src["status"] = samples.String(r, 3)
	default: // a status with other members, an old ancestors list perhaps
		st := map[string]any{}
		for range r.IntN(3) {
			st[samples.String(r, 3)] = samples.Value(r, 3)
		}
		if r.IntN(2) == 0 {
			st["ancestors"] = []any{map[string]any{"controllerName": "old"}}
		}
		src["status"] = st
	}
	p := &status.PolicyObject{Source: src}
	for range r.IntN(3) {
		m, ok := samples.Value(r, 3).(map[string]any)
		if !ok {
			m = map[string]any{}
		}
		m["controllerName"] = "other.example.com/" + samples.String(r, 2)
		p.Theirs = append(p.Theirs, m)
	}
	f := randomFragment(r) // its parents' refs and conditions
	for _, pr := range f.Parents {
		p.Ours = append(p.Ours, gwv1.PolicyAncestorStatus{AncestorRef: pr.ParentRef, ControllerName: pr.ControllerName, Conditions: pr.Conditions})
	}
	return p
}
