package printer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/strata-dev/strata/internal/enginetest"
	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/sink/status"
)

// roundTrip is what a JSON List printed for an item before jsonWriter:
// the item encoded, read back into an any, and encoded again with its
// maps sorted, indented at the List's items.
func roundTrip(item any) ([]byte, error) {
	ref := jsonItem(item)
	if f, ok := item.(*status.Fragment); ok && f != nil {
		ref = f.Object().Object // the writer writes its fields (jsonWriter.fragment)
	}
	js, err := json.Marshal(ref)
	if err != nil {
		return nil, fmt.Errorf("encode output: %w", err)
	}
	var generic any
	if err := json.Unmarshal(js, &generic); err != nil {
		return nil, err
	}
	return json.MarshalIndent(generic, jsonPrefix, "  ")
}

// marshalIndent is the reference of a document printed whole in JSON:
// v's JSON read back into an any and indented, and a line break.
func marshalIndent(w io.Writer, v any) error {
	js, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode output: %w", err)
	}
	var generic any
	if err := json.Unmarshal(js, &generic); err != nil {
		return err
	}
	out, err := json.MarshalIndent(generic, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

// TestPrintWholeJSONIsMarshalIndent: a document printed whole (Print of
// anything but a List) in JSON is the round trip's bytes, unindented,
// and a line break: the List cases, and random values.
func TestPrintWholeJSONIsMarshalIndent(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 31))
	values := []any{}
	for _, items := range listCases() {
		values = append(values, items, map[string]any{"items": items})
	}
	for range 500 {
		values = append(values, randomValue(r, 0), randomEffectivePolicy(r), struct {
			A any `json:"a"`
			B int `json:"b,omitempty"`
		}{randomValue(r, 0), r.IntN(2)})
	}
	for i, v := range values {
		var want, got bytes.Buffer
		if err := marshalIndent(&want, v); err != nil {
			t.Fatal(err)
		}
		if err := Print(&got, v, JSON); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("value %d: differs from the round trip:\n--- want\n%s\n--- got\n%s", i, want.String(), got.String())
		}
	}
}

// TestJSONWriterIsMarshalIndent checks that jsonWriter writes the bytes
// of the round trip through an any: for random values of every type the
// emitter's tests use (numbers beyond a float64's integers, strings with
// HTML characters, control characters, U+2028 and bytes that are not
// UTF-8, keys that become one another once those are replaced),
// EffectivePolicies, status Fragments and PolicyObjects, and resultant
// policies written by hand: repeated names, numbers in every notation,
// one out of a float64's range (an error both ways). One writer writes
// them all in turn, as a worker of ItemsBy does.
func TestJSONWriterIsMarshalIndent(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 23))
	w := newJSONWriter(jsonPrefix)
	check := func(name string, item any) {
		t.Helper()
		want, wantErr := roundTrip(item)
		got, gotErr := w.item(jsonItem(item), nil)
		if (wantErr != nil) != (gotErr != nil) {
			t.Fatalf("%s: error %v, want %v", name, gotErr, wantErr)
		}
		if wantErr == nil && !bytes.Equal(got, want) {
			t.Fatalf("%s: differs from the round trip:\n--- want\n%s\n--- got\n%s", name, want, got)
		}
	}
	for i := range 3000 {
		check(fmt.Sprintf("value %d", i), randomValue(r, 0))
		check(fmt.Sprintf("map %d", i), map[string]any{"a": randomValue(r, 0), randomString(r, 2): randomValue(r, 1)})
	}
	for i := range 1500 {
		check(fmt.Sprintf("effective policy %d", i), randomEffectivePolicy(r))
	}
	for i, ep := range enginetest.FilledEffectivePolicies(61, 500) {
		check(fmt.Sprintf("filled effective policy %d", i), ep)
	}
	for i := range 500 {
		check(fmt.Sprintf("fragment %d", i), randomFragment(r))
		check(fmt.Sprintf("policy object %d", i), randomPolicyObject(r))
	}
	for _, raw := range []string{
		`{"b":1,"a":2,"b":3}`, `{"x":{"k":"v","k":"w"},"y":[1.0,1e3,-0,0.000001,1e-7,12345678901234567,1E+2,-1.5e-10]}`,
		`{"n":1e400}`, `{"\u00e9":"<&>","\u2028":"\ud800"}`, `[]`, `{}`, `null`, `"s"`, `  { "a" : [ 1 , 2 ] }  `,
	} {
		ep := &strata.EffectivePolicy{Policies: []strata.KindPolicies{{Contexts: []strata.Context{
			{ResultantPolicy: &apiextensionsv1.JSON{Raw: []byte(raw)}},
		}}}}
		check(raw, ep)
	}
	check("nil effective policy", (*strata.EffectivePolicy)(nil))
	check("invalid keys", map[string]any{"a\xff": 1, "a\xfe": 2, "b": map[string]any{"\xff": "x"}})
	check("invalid label keys", &strata.EffectivePolicy{})
	ep := &strata.EffectivePolicy{}
	ep.Labels = map[string]string{"k\xff": "1", "k\xfe": "2", "j": "\xff<"}
	check("invalid label keys", ep)
	check("integers", map[string]any{"a": int64(1) << 53, "b": int64(1)<<53 + 1, "c": -(int64(1) << 62), "d": int32(-5), "e": json.Number("9007199254740993")})
}
