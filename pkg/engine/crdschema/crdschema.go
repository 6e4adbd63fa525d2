package crdschema

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// Schema is the schema of one version of a CRD, compiled once and then
// only read: it may be shared by goroutines.
type Schema struct {
	structural *structuralschema.Structural
	validator  validation.SchemaCreateValidator
	// rules are the schema's x-kubernetes-validations; nil when it has
	// none.
	rules *cel.Validator
}

// CRD holds the schemas of a CustomResourceDefinition by version name.
type CRD struct {
	Name string
	// Versions maps each version name to its schema; a version without
	// openAPIV3Schema has none (nil).
	Versions map[string]*Schema
	// Storage is the name of the storage version ("" when none is marked).
	Storage string
}

// FromCRD compiles the schemas of every version of crd. A schema that is
// not structural is an error: the API server refuses such a CRD
// (apiextensions.k8s.io/v1 "Specifying a structural schema").
func FromCRD(crd *unstructured.Unstructured) (*CRD, error) {
	var typed apiextensionsv1.CustomResourceDefinition
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(crd.Object, &typed); err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition %s: %w", crd.GetName(), err)
	}
	out := &CRD{Name: typed.Name, Versions: map[string]*Schema{}}
	for i, v := range typed.Spec.Versions {
		if v.Storage {
			out.Storage = v.Name
		}
		if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			out.Versions[v.Name] = nil
			continue
		}
		s, err := compile(v.Schema.OpenAPIV3Schema)
		if err != nil {
			return nil, fmt.Errorf("CustomResourceDefinition %s: spec.versions[%d].schema.openAPIV3Schema (version %s): %w", typed.Name, i, v.Name, err)
		}
		out.Versions[v.Name] = s
	}
	return out, nil
}

func compile(v1 *apiextensionsv1.JSONSchemaProps) (*Schema, error) {
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v1, &internal, nil); err != nil {
		return nil, err
	}
	ss, err := structuralschema.NewStructural(&internal)
	if err != nil {
		return nil, fmt.Errorf("not a structural schema: %w", err)
	}
	if errs := structuralschema.ValidateStructural(nil, ss); len(errs) > 0 {
		return nil, fmt.Errorf("not a structural schema: %w", errs.ToAggregate())
	}
	validator, _, err := validation.NewSchemaValidator(&internal)
	if err != nil {
		return nil, err
	}
	// The API server's limits: a rule that costs more is refused as it
	// would be there.
	return &Schema{structural: ss, validator: validator, rules: cel.NewValidator(ss, true, celconfig.PerCallLimit)}, nil
}

// VersionNames lists the versions of the CRD, sorted, for messages.
func (c *CRD) VersionNames() []string {
	return slices.Sorted(maps.Keys(c.Versions))
}

// Open reports whether the object at path (from the object root) keeps
// fields the schema does not name (x-kubernetes-preserve-unknown-fields,
// or no schema there).
func (s *Schema) Open(path ...string) bool {
	st := s.structural
	for _, p := range path {
		if st.XPreserveUnknownFields {
			return true
		}
		next, ok := st.Properties[p]
		if !ok {
			return true
		}
		st = &next
	}
	return st.XPreserveUnknownFields || len(st.Properties) == 0 && st.AdditionalProperties != nil
}

// Admission is what the API server would make of an object.
type Admission struct {
	// Object is a pruned copy of the object: what the server would store.
	Object *unstructured.Unstructured
	// Unknown are the fields pruned, as paths (spec.default), sorted:
	// what kubectl warns about as `unknown field "spec.default"`.
	Unknown []string
	// Errors are the schema violations, each naming its field: the
	// server would refuse the object.
	Errors []error
}

// Admit prunes a copy of u, applies the schema's defaults and validates
// it against s, CEL rules last, in the API server's order
// (apiextensions-apiserver), so that a file reads as the cluster would
// store it. u is not changed.
func (s *Schema) Admit(u *unstructured.Unstructured) (a Admission) {
	defer func() {
		// An object of types no JSON decoder makes is refused, not a crash.
		if r := recover(); r != nil {
			a = Admission{Object: u, Errors: []error{fmt.Errorf("cannot validate: %v", r)}}
		}
	}()
	obj := runtime.DeepCopyJSON(u.Object)
	unknown := pruning.PruneWithOptions(obj, s.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, s.structural)
	structuraldefaulting.Default(obj, s.structural)
	a = Admission{Object: &unstructured.Unstructured{Object: obj}, Unknown: unknown}
	errs := validation.ValidateCustomResource(nil, obj, s.validator)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, s.structural, obj)...)
	if s.rules != nil && len(errs) == 0 {
		// As the server, rules run on an object whose types are right.
		ruleErrs, _ := s.rules.Validate(context.Background(), nil, s.structural, obj, nil, celconfig.RuntimeCELCostBudget)
		errs = append(errs, ruleErrs...)
	}
	// The validator walks the schema's properties in map order: sort,
	// so that the same object always gives the same message.
	msgs := make([]string, 0, len(errs))
	for _, e := range errs {
		msgs = append(msgs, strings.TrimSpace(e.Error()))
	}
	sort.Strings(msgs)
	for _, m := range slices.Compact(msgs) {
		a.Errors = append(a.Errors, errors.New(m))
	}
	return a
}
