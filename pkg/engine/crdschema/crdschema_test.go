package crdschema_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/strata-dev/strata/pkg/engine/crdschema"
)

func object(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(y), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

const crd = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, maximum: 3}
              tags: {type: array, maxItems: 1, items: {type: string}, x-kubernetes-list-type: set}
              free: {type: object, x-kubernetes-preserve-unknown-fields: true}
              mode: {type: string, enum: [Patch, Atomic], default: Patch}
              limits:
                type: object
                default: {}
                properties:
                  burst: {type: integer, default: 5}
  - name: v2
    served: true
    storage: false
`

// FromCRD refuses what the API server refuses; Admit prunes and validates
// a copy, as the server's customresource handler does.
func TestAdmit(t *testing.T) {
	tests := []struct {
		name    string
		obj     string
		unknown []string
		errs    []string
	}{
		{"valid", "spec: {size: 2, tags: [a], free: {any: 1}}", nil, nil},
		{"unknown fields, also nested; preserved ones kept", "spec: {sise: 2, free: {any: 1}}\nextra: 1", []string{"extra", "spec.sise"}, nil},
		{"maximum", "spec: {size: 4}", nil, []string{"spec.size: Invalid value: 4: spec.size in body should be less than or equal to 3"}},
		{"maxItems and list type", "spec: {tags: [a, a]}", nil, []string{"spec.tags: Too many: 2: must have at most 1 item", `spec.tags[1]: Duplicate value: "a"`}},
		{"several, in one order", "spec: {size: 4, tags: a}", nil, []string{"spec.size: Invalid value: 4: spec.size in body should be less than or equal to 3", `spec.tags: Invalid value: "string": spec.tags in body must be of type array: "string"`}},
		{"type", "spec: {tags: a}", nil, []string{`spec.tags: Invalid value: "string": spec.tags in body must be of type array: "string"`}},
	}
	c, err := crdschema.FromCRD(object(t, crd))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.VersionNames(); !reflect.DeepEqual(got, []string{"v1", "v2"}) || c.Versions["v2"] != nil {
		t.Fatalf("versions %v, v2 %v", got, c.Versions["v2"])
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := object(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: ns}\n"+tc.obj)
			before := in.DeepCopy()
			a := c.Versions["v1"].Admit(in)
			for range 20 { // same object, same answer
				if again := c.Versions["v1"].Admit(in); !reflect.DeepEqual(again, a) {
					t.Fatalf("Admit answers %v, then %v", a, again)
				}
			}
			if !reflect.DeepEqual(in, before) {
				t.Errorf("Admit changed its input")
			}
			if !reflect.DeepEqual(a.Unknown, tc.unknown) {
				t.Errorf("unknown %q, want %q", a.Unknown, tc.unknown)
			}
			var errs []string
			for _, e := range a.Errors {
				errs = append(errs, e.Error())
			}
			if !reflect.DeepEqual(errs, tc.errs) {
				t.Errorf("errors %q, want %q", errs, tc.errs)
			}
			for _, f := range tc.unknown {
				if _, found, _ := unstructured.NestedFieldNoCopy(a.Object.Object, strings.Split(f, ".")...); found {
					t.Errorf("%s not pruned", f)
				}
			}
		})
	}
}

// The API server applies a schema's defaults when it decodes an object,
// before validation (apiextensions-apiserver's unstructuredDefaulter):
// offline, a policy that leaves out a defaulted field reads as the
// cluster would store it, and a null in a field that is not nullable is
// dropped first so the default fills it.
func TestAdmitDefaults(t *testing.T) {
	tests := []struct {
		name string
		obj  string
		want string
	}{
		{"absent fields get their defaults, nested too", "spec: {size: 1}", `{"limits":{"burst":5},"mode":"Patch","size":1}`},
		{"written fields are kept", "spec: {mode: Atomic, limits: {burst: 1}}", `{"limits":{"burst":1},"mode":"Atomic"}`},
		{"a null that is not nullable is defaulted", "spec: {mode: null}", `{"limits":{"burst":5},"mode":"Patch"}`},
		{"no spec, no defaults below it", "", `null`},
	}
	c, err := crdschema.FromCRD(object(t, crd))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := object(t, "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: ns}\n"+tc.obj)
			before := in.DeepCopy()
			a := c.Versions["v1"].Admit(in)
			if len(a.Errors) > 0 {
				t.Fatalf("errors %v", a.Errors)
			}
			if !reflect.DeepEqual(in, before) {
				t.Errorf("Admit changed its input")
			}
			got, err := json.Marshal(a.Object.Object["spec"])
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("spec %s, want %s", got, tc.want)
			}
		})
	}
}

func TestFromCRDNotStructural(t *testing.T) {
	bad := strings.Replace(crd, "size: {type: integer, maximum: 3}", "size: {maximum: 3}", 1)
	_, err := crdschema.FromCRD(object(t, bad))
	if err == nil || !strings.Contains(err.Error(), "CustomResourceDefinition widgets.example.com: spec.versions[0].schema.openAPIV3Schema (version v1): not a structural schema") || !strings.Contains(err.Error(), "properties[spec].properties[size].type: Required value") {
		t.Errorf("error %v", err)
	}
}

// Open says whether a schema names the fields of an object at all.
func TestOpen(t *testing.T) {
	c, err := crdschema.FromCRD(object(t, crd))
	if err != nil {
		t.Fatal(err)
	}
	s := c.Versions["v1"]
	for _, tc := range []struct {
		path []string
		want bool
	}{
		{[]string{"spec"}, false},
		{[]string{"spec", "free"}, true},
		{[]string{"spec", "free", "deeper"}, true},
		{[]string{"status"}, true}, // no schema there
	} {
		if got := s.Open(tc.path...); got != tc.want {
			t.Errorf("Open(%v) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

// A CRD the API server would refuse is an error naming it, never a
// panic.
func TestFromCRDMalformed(t *testing.T) {
	for _, tc := range []struct{ name, crd, want string }{
		{"versions not a list", "metadata: {name: w.example.com}\nspec: {versions: 3}", "CustomResourceDefinition w.example.com: "},
		{"type not a string", "metadata: {name: w.example.com}\nspec:\n  versions:\n  - name: v1\n    schema: {openAPIV3Schema: {type: 5}}", "CustomResourceDefinition w.example.com: "},
		{"no type at the root", "metadata: {name: w.example.com}\nspec:\n  versions:\n  - name: v1\n    schema: {openAPIV3Schema: {properties: {spec: {type: object}}}}", "not a structural schema"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := crdschema.FromCRD(object(t, "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"+tc.crd))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// An object with values no JSON decoder makes is refused, not a panic.
func TestAdmitNotJSON(t *testing.T) {
	c, err := crdschema.FromCRD(object(t, crd))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "spec": map[string]any{"size": 2}}}
	a := c.Versions["v1"].Admit(u)
	if len(a.Errors) != 1 || !strings.Contains(a.Errors[0].Error(), "cannot validate") || a.Object != u {
		t.Errorf("Admit = %+v", a)
	}
}
