// Package v1alpha1 holds the API types of Strata's own objects in group
// strata.dev: PolicyKind, which declares a policy CRD as a GEP-713 policy
// kind (docs/policy-kinds.md), and EffectivePolicy, the per-target record
// of the settings in force (001 "EffectivePolicy" objects). Types only: it
// imports apimachinery and API types, never the engine or a client, so
// another project can read and write these objects without linking Strata.
// The CRDs in config/crd/bases are generated from it (hack/generate.sh).
//
// +kubebuilder:object:generate=true
// +groupName=strata.dev
package v1alpha1
