package crdschema

import (
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// PatchMeta is strategicpatch's view of the objects at paths (from the
// object root; a field is looked up in the first that names it), for
// merge.StrategicMerge: a list of x-kubernetes-list-type map with one
// list-map key is merged by that key, one of type set as a set; other
// lists are replaced whole.
func (s *Schema) PatchMeta(paths ...[]string) strategicpatch.LookupPatchMeta {
	var at []*structuralschema.Structural
	for _, path := range paths {
		if st := schemaAt(s.structural, path); st != nil {
			at = append(at, st)
		}
	}
	return patchMeta(at)
}

// schemaAt is the schema of the object at path, or nil.
func schemaAt(st *structuralschema.Structural, path []string) *structuralschema.Structural {
	for _, p := range path {
		next, ok := st.Properties[p]
		if !ok {
			return nil
		}
		st = &next
	}
	return st
}

// patchMeta is the schemas of one place of an object, first match wins.
type patchMeta []*structuralschema.Structural

func (m patchMeta) field(key string) *structuralschema.Structural {
	for _, st := range m {
		if st == nil {
			continue
		}
		if p, ok := st.Properties[key]; ok {
			return &p
		}
		if ap := st.AdditionalProperties; ap != nil && ap.Structural != nil {
			return ap.Structural
		}
	}
	return nil
}

func (m patchMeta) LookupPatchMetadataForStruct(key string) (strategicpatch.LookupPatchMeta, strategicpatch.PatchMeta, error) {
	st := m.field(key)
	if st == nil {
		return patchMeta(nil), strategicpatch.PatchMeta{}, nil
	}
	return patchMeta{st}, strategicpatch.PatchMeta{}, nil
}

func (m patchMeta) LookupPatchMetadataForSlice(key string) (strategicpatch.LookupPatchMeta, strategicpatch.PatchMeta, error) {
	st := m.field(key)
	var pm strategicpatch.PatchMeta
	if st == nil {
		return patchMeta(nil), pm, nil
	}
	if lt := st.XListType; lt != nil {
		switch {
		case *lt == "map" && len(st.XListMapKeys) == 1:
			pm.SetPatchStrategies([]string{"merge"})
			pm.SetPatchMergeKey(st.XListMapKeys[0])
		case *lt == "set":
			pm.SetPatchStrategies([]string{"merge"})
		}
	}
	return patchMeta{st.Items}, pm, nil
}

func (m patchMeta) Name() string { return "CustomResourceDefinition schema" }
