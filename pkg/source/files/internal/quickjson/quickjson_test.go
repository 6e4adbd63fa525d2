package quickjson_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/randfill"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/hierarchy/typed"
	"github.com/strata-dev/strata/pkg/source/files/internal/quickjson"
)

// kinds are the kinds of typed.Kinds in a fixed order.
func kinds() []schema.GroupKind {
	gks := make([]schema.GroupKind, 0, len(typed.Kinds))
	for gk := range typed.Kinds {
		gks = append(gks, gk)
	}
	slices.SortFunc(gks, func(a, b schema.GroupKind) int { return strings.Compare(a.String(), b.String()) })
	return gks
}

// same checks the promise of Typed on js, JSON within its contract:
// when Kubernetes' reading (util/json) fails, Typed fails too; when Typed
// reads js, it reads the object util/json reads. Typed may fail where
// util/json does not (the caller reads js again then).
func same(t *testing.T, gk schema.GroupKind, js []byte) {
	t.Helper()
	want := typed.Kinds[gk].New()
	wantErr := utiljson.Unmarshal(js, want)
	got := typed.Kinds[gk].New()
	gotErr := quickjson.Typed(js, got)
	switch {
	case wantErr != nil && gotErr == nil:
		t.Errorf("%s %s: read, where Kubernetes says %v", gk.Kind, js, wantErr)
	case gotErr == nil && !reflect.DeepEqual(got, want):
		t.Errorf("%s %s: read otherwise than Kubernetes reads it (-Kubernetes +quickjson):\n%s", gk.Kind, js, cmp.Diff(want, got))
	}
}

// TestTypedIsAPIMachinery compares Typed with Kubernetes' reading
// on objects of every kind filled at random in every field (a field of
// the API types the generated code does not know fails it: regenerate
// with hack/generate.sh), and on the JSON where easyjson's and
// encoding/json's readings part: empty objects and arrays, nulls where a
// value is wanted, values of the wrong type, numbers out of range or not
// integers, escapes, unknown fields and fields in another case.
func TestTypedIsAPIMachinery(t *testing.T) {
	f := randfill.NewWithSeed(7).NilChance(0.2).NumElements(0, 3).Funcs(
		// FieldsV1 holds raw JSON, which randfill would fill with bytes.
		func(fv *metav1.FieldsV1, c randfill.Continue) { fv.SetRawBytes([]byte(`{"f:metadata":{}}`)) },
	)
	for _, gk := range kinds() {
		t.Run(gk.Kind, func(t *testing.T) {
			for i := range 200 {
				obj := typed.Kinds[gk].New()
				f.Fill(obj)
				js, err := json.Marshal(obj)
				if err != nil {
					t.Fatalf("object %d: %v", i, err)
				}
				got := typed.Kinds[gk].New()
				if err := quickjson.Typed(js, got); err != nil {
					t.Fatalf("object %d: %v\n%s", i, err, js)
				}
				same(t, gk, js)
			}
		})
	}

	route := schema.GroupKind{Group: hierarchy.GatewayGroup, Kind: "HTTPRoute"}
	service := schema.GroupKind{Kind: "Service"}
	gateway := schema.GroupKind{Group: hierarchy.GatewayGroup, Kind: "Gateway"}
	for gk, docs := range map[schema.GroupKind][]string{
		route: {
			`{}`, `null`, `[]`, `"x"`, `1`,
			`{"apiVersion":"gateway.networking.k8s.io/v1","kind":"HTTPRoute","metadata":{"name":"r","namespace":"ns"}}`,
			// empty objects are empty maps, null ones none
			`{"metadata":{"labels":{}}}`, `{"metadata":{"labels":{},"annotations":{}}}`,
			`{"metadata":{"labels":null}}`, `{"metadata":{"labels":{"a":null}}}`, `{"metadata":{"labels":{"a":1}}}`,
			`{"metadata":{"labels":[]}}`, `{"metadata":{"labels":"a"}}`,
			// empty and null arrays and elements
			`{"spec":{"hostnames":[]}}`, `{"spec":{"hostnames":null}}`, `{"spec":{"hostnames":[null]}}`,
			`{"spec":{"rules":[null]}}`, `{"spec":{"rules":[{}]}}`, `{"spec":{"rules":[{"backendRefs":[null,{}]}]}}`,
			`{"spec":{"parentRefs":[{"port":null,"sectionName":null}]}}`, `{"spec":{"parentRefs":{}}}`,
			// numbers
			`{"spec":{"rules":[{"backendRefs":[{"name":"s","port":8080}]}]}}`,
			`{"spec":{"rules":[{"backendRefs":[{"name":"s","port":-0}]}]}}`,
			`{"spec":{"rules":[{"backendRefs":[{"name":"s","port":80.5}]}]}}`,
			`{"spec":{"rules":[{"backendRefs":[{"name":"s","port":80.0}]}]}}`,
			`{"spec":{"rules":[{"backendRefs":[{"name":"s","port":1e2}]}]}}`,
			`{"spec":{"rules":[{"backendRefs":[{"name":"s","port":99999999999}]}]}}`,
			`{"spec":{"rules":[{"backendRefs":[{"name":"s","port":2147483648}]}]}}`,
			`{"spec":{"rules":[{"backendRefs":[{"name":"s","port":-2147483648}]}]}}`,
			`{"spec":{"rules":[{"backendRefs":[{"name":"s","port":"80"}]}]}}`,
			`{"spec":{"rules":[{"backendRefs":[{"name":"s","weight":true}]}]}}`,
			`{"metadata":{"generation":"1"}}`, `{"metadata":{"generation":9223372036854775808}}`,
			// strings and their escapes
			`{"metadata":{"name":"caf\u00e9"}}`, `{"metadata":{"name":"\ud800"}}`, `{"metadata":{"name":"\ud83d\ude00"}}`,
			`{"metadata":{"name":"a\/b\u0000\t"}}`, `{"metadata":{"name":"café"}}`, `{"metadata":{"name":1}}`,
			`{"metadata":{"n\u0061me":"r"}}`, `{"kind":true}`, `{"spec":"x"}`, `{"metadata":[]}`,
			// times
			`{"metadata":{"creationTimestamp":"2026-01-02T03:04:05Z"}}`, `{"metadata":{"creationTimestamp":"yesterday"}}`,
			`{"metadata":{"creationTimestamp":null}}`, `{"metadata":{"creationTimestamp":5}}`,
			`{"metadata":{"deletionTimestamp":"2026-01-02T03:04:05Z"}}`,
			// unknown fields and fields in another case
			`{"nosuch":{"a":[1,{"b":null}],"c":"d"},"spec":{"nosuch":1,"rules":[{"nosuch":[1]}]}}`,
			`{"Metadata":{"name":"r"},"spec":{"ParentRefs":[{"Name":"gw"}]}}`, `{"metadata":{"NAME":"r"}}`,
			`{"metadata":{"managedFields":[{"fieldsV1":{"f:spec":{}}}]}}`, `{"metadata":{"managedFields":[{"fieldsV1":null}]}}`,
			`{"metadata":{"ownerReferences":[{"uid":"u","controller":true}]}}`,
			`{"spec":{"rules":[{"matches":[{"path":{"type":"PathPrefix","value":"/"},"headers":[{"name":"h","value":"v"}]}],"filters":[{"type":"RequestHeaderModifier","requestHeaderModifier":{"set":[{"name":"a","value":"b"}]}}]}]}}`,
			`{"spec":{"rules":[{"timeouts":{"request":"10s"}}]}}`,
			`{"status":{"parents":[{"parentRef":{"name":"gw"},"controllerName":"c","conditions":[{"type":"Accepted","status":"True","lastTransitionTime":"2026-01-02T03:04:05Z"}]}]}}`,
		},
		service: {
			`{"spec":{"ports":[{"name":"http","port":8080,"targetPort":0}]},"status":{"loadBalancer":{}}}`,
			`{"spec":{"ports":[{"port":80,"targetPort":"http"}]}}`, `{"spec":{"ports":[{"port":80,"targetPort":null}]}}`,
			`{"spec":{"ports":[{"port":80,"targetPort":true}]}}`, `{"spec":{"ports":[{"port":80,"targetPort":{"x":1}}]}}`,
			`{"spec":{"ports":[{"port":80,"targetPort":1.5}]}}`,
			`{"spec":{"selector":{}}}`, `{"spec":{"selector":{"app":"a"}}}`, `{"spec":{"selector":null}}`,
			`{"spec":{"clusterIPs":[],"externalIPs":null}}`, `{"status":{"loadBalancer":{"ingress":[{"ip":"1.2.3.4","ports":[{"port":80,"protocol":"TCP"}]}]}}}`,
		},
		gateway: {
			`{"spec":{"gatewayClassName":"c","listeners":[{"name":"http","port":80,"protocol":"HTTP"}]}}`,
			`{"spec":{"infrastructure":{"labels":{},"annotations":{"a":"b"}}}}`,
			`{"spec":{"listeners":[{"name":"l","port":70000}]}}`, `{"spec":{"listeners":[{"allowedRoutes":{"namespaces":{"from":"Selector","selector":{"matchLabels":{}}}}}]}}`,
		},
	} {
		for _, js := range docs {
			same(t, gk, []byte(js))
		}
	}
}

// TestEveryKindHasADecoder: a kind added to typed.Kinds without its line
// in types.go would read every object of it on the careful path.
func TestEveryKindHasADecoder(t *testing.T) {
	for _, gk := range kinds() {
		if err := quickjson.Typed([]byte(`{}`), typed.Kinds[gk].New()); err != nil {
			t.Errorf("%s: %v", gk, err)
		}
	}
}

// FuzzTypedIsAPIMachinery checks same on arbitrary JSON within
// Typed's contract (valid, UTF-8, each key of an object once: what
// jsontext accepts by default), for each kind.
func FuzzTypedIsAPIMachinery(f *testing.F) {
	gks := kinds()
	for _, s := range []string{
		`{"metadata":{"name":"r","labels":{}},"spec":{"rules":[{"backendRefs":[{"name":"s","port":80}]}]}}`,
		`{"spec":{"ports":[{"port":80,"targetPort":"http"}],"selector":{}}}`,
		`{"spec":{"listeners":[{"name":"l","port":80,"hostname":"a.example"}]}}`,
	} {
		for i := range gks {
			f.Add(uint8(i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, k uint8, js []byte) {
		if !jsontext.Value(js).IsValid() {
			return
		}
		gk := gks[int(k)%len(gks)]
		same(t, gk, js)
	})
}

// sameGeneric is same for Generic.
func sameGeneric(t *testing.T, js []byte) {
	t.Helper()
	var want map[string]any
	wantErr := utiljson.Unmarshal(js, &want)
	got, gotErr := quickjson.Generic(js)
	switch {
	case wantErr != nil && gotErr == nil:
		t.Errorf("%s: read, where Kubernetes says %v", js, wantErr)
	case gotErr == nil && !reflect.DeepEqual(got, want):
		t.Errorf("%s: read otherwise than Kubernetes reads it (-Kubernetes +quickjson):\n%s", js, cmp.Diff(want, got))
	}
}

// TestGenericIsAPIMachinery compares Generic with Kubernetes' reading on
// random trees of every kind of value, and on numbers at util/json's
// boundaries between int64 and float64, escapes, empty objects and
// arrays, nulls, and what is not an object.
func TestGenericIsAPIMachinery(t *testing.T) {
	f := randfill.NewWithSeed(7).NilChance(0.2).NumElements(0, 4)
	type leaf struct {
		S string
		I int64
		F float64
		B bool
		N *string
	}
	for i := range 300 {
		var v map[string]struct {
			L  leaf
			A  []leaf
			M  map[string][]leaf
			MM map[string]map[string]string
		}
		f.Fill(&v)
		js, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("tree %d: %v", i, err)
		}
		if _, err := quickjson.Generic(js); err != nil && v != nil {
			t.Fatalf("tree %d: %v\n%s", i, err, js)
		}
		sameGeneric(t, js)
	}
	for _, js := range []string{
		`{}`, `{"a":{}}`, `{"a":[]}`, `{"a":null}`, `{"a":[null,{},[],"",0,false]}`,
		`{"n":0}`, `{"n":-0}`, `{"n":1.0}`, `{"n":1e2}`, `{"n":1E-2}`, `{"n":-1.5}`,
		`{"n":9223372036854775807}`, `{"n":9223372036854775808}`, `{"n":-9223372036854775808}`,
		`{"n":-9223372036854775809}`, `{"n":99999999999999999999999}`, `{"n":1e400}`, `{"n":-1e400}`,
		`{"s":"caf\u00e9 \ud83d\ude00 \ud800 \u0000 a\/b \"q\" \\ \n\t\r"}`, `{"s":"café"}`,
		`{"\u0061":1}`, `{"a":{"b":{"c":{"d":[[[1]]]}}}}`, `{"t":true,"f":false}`,
		`null`, `[]`, `[{}]`, `"x"`, `1`, `true`,
	} {
		sameGeneric(t, []byte(js))
	}
}

// FuzzGenericIsAPIMachinery checks sameGeneric on arbitrary JSON within
// Generic's contract.
func FuzzGenericIsAPIMachinery(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"p/v1","kind":"P","spec":{"a":[1,-2.5,"x",null,{"b":true}],"n":9223372036854775808}}`))
	f.Fuzz(func(t *testing.T, js []byte) {
		if !jsontext.Value(js).IsValid() {
			return
		}
		sameGeneric(t, js)
	})
}
