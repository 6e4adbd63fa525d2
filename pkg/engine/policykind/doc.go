// Package policykind holds policy kinds declared as data (PolicyKind
// objects, or CRDs labelled gateway.networking.k8s.io/policy) and reads
// policy objects through them: targets, blocks and strategies, with every
// problem named by field. See docs/policy-kinds.md.
//
// The PolicyKind API type (Declaration, strata.dev/v1alpha1) lives in
// pkg/apis/strata/v1alpha1; groupversion_info.go names it and its parts
// as the engine reads them.
package policykind
