package files

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/strata-dev/strata/internal/synth"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/strata-dev/strata/pkg/engine/hierarchy/typed"
	"github.com/strata-dev/strata/pkg/engine/policykind"
)

// TestTypedDecodeIsAPIMachinery: the typed decoders (go-json-experiment,
// under v2's semantics, then its v1 package's options) read what
// Kubernetes reads
// (k8s.io/apimachinery's util/json, encoding/json with names matched in
// their case), the same object or an error both ways, on the inputs where
// the libraries' defaults differ: names in another case, a name twice,
// unknown fields, nulls, numbers out of range, invalid UTF-8, times.
func TestTypedDecodeIsAPIMachinery(t *testing.T) {
	route := schema.GroupKind{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute"}
	for name, doc := range map[string]string{
		"plain":        `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"HTTPRoute","metadata":{"name":"r","namespace":"ns"},"spec":{"hostnames":["a.example"]}}`,
		"other case":   `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"HTTPRoute","Metadata":{"NAME":"r"},"spec":{"ParentRefs":[{"Name":"gw"}]}}`,
		"name twice":   `{"kind":"HTTPRoute","metadata":{"name":"a","name":"b"}}`,
		"unknown":      `{"kind":"HTTPRoute","metadata":{"name":"r"},"spec":{"nosuch":1,"rules":[{"nosuch":[1]}]}}`,
		"nulls":        `{"kind":"HTTPRoute","metadata":null,"spec":{"hostnames":null,"rules":[null]}}`,
		"port range":   `{"kind":"HTTPRoute","metadata":{"name":"r"},"spec":{"rules":[{"backendRefs":[{"name":"s","port":99999999999}]}]}}`,
		"port float":   `{"kind":"HTTPRoute","metadata":{"name":"r"},"spec":{"rules":[{"backendRefs":[{"name":"s","port":80.5}]}]}}`,
		"port string":  `{"kind":"HTTPRoute","metadata":{"name":"r"},"spec":{"rules":[{"backendRefs":[{"name":"s","port":"80"}]}]}}`,
		"bad utf-8":    "{\"kind\":\"HTTPRoute\",\"metadata\":{\"name\":\"r\xff\"}}",
		"time":         `{"kind":"HTTPRoute","metadata":{"name":"r","creationTimestamp":"2026-01-02T03:04:05Z"}}`,
		"bad time":     `{"kind":"HTTPRoute","metadata":{"name":"r","creationTimestamp":"yesterday"}}`,
		"labels":       `{"kind":"HTTPRoute","metadata":{"name":"r","labels":{"a":"1","a":"2"}}}`,
		"list for map": `{"kind":"HTTPRoute","metadata":{"name":"r","labels":["a"]}}`,
	} {
		t.Run(name, func(t *testing.T) {
			got, gotErr := decoders[route].decode([]byte(doc))
			want := typed.Kinds[route].New()
			wantErr := utiljson.Unmarshal([]byte(doc), want)
			if (gotErr != nil) != (wantErr != nil) {
				t.Fatalf("error %v, apimachinery's %v", gotErr, wantErr)
			}
			if gotErr == nil && !reflect.DeepEqual(got, want) {
				t.Errorf("decoded\n%+v\napimachinery\n%+v", got, want)
			}
		})
	}
}

// TestTypedDecodeIsUtilJSON: what the transcoder writes for a world of
// every kind decodes, typed (the kinds of decoders) or generic (policies
// and the rest), into the values k8s.io/apimachinery's util/json makes of
// it.
func TestTypedDecodeIsUtilJSON(t *testing.T) {
	var w bytes.Buffer
	if err := synth.WriteYAML(&w, synth.Generate(synth.Sizes{Namespaces: 4, Gateways: 8, Routes: 200, Services: 200, Policies: 100}, 1)); err != nil {
		t.Fatal(err)
	}
	var tr transcoder
	n := 0
	for raw := range yamlDocumentLines(w.Bytes()) {
		if !tr.transcode(raw) {
			continue
		}
		n++
		gk := groupKindOf(tr.hdr.apiVersion, tr.hdr.kind)
		if dec, ok := decoders[gk]; ok && gk.Kind != policykind.KindName {
			got, err := dec.decode(tr.out)
			want := typed.Kinds[gk].New()
			wantErr := utiljson.Unmarshal(tr.out, want)
			if err != nil || wantErr != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: decoded %+v (%v), util/json %+v (%v)", tr.out, got, err, want, wantErr)
			}
			continue
		}
		got, err := generic(tr.out)
		var want map[string]any
		wantErr := utiljson.Unmarshal(tr.out, &want)
		if err != nil || wantErr != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: decoded %v (%v), util/json %v (%v)", tr.out, got, err, want, wantErr)
		}
	}
	if n < 500 {
		t.Fatalf("only %d documents transcoded", n)
	}
}
