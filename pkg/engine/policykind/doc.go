// Package policykind holds policy kinds declared as data (PolicyKind
// objects, or CRDs labelled gateway.networking.k8s.io/policy) and reads
// policy objects through them: targets, blocks and strategies, with every
// problem named by field. See docs/policy-kinds.md.
package policykind
