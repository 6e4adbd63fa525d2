// Package attach resolves the targetRefs of policies to nodes of the
// topology (by name, selector, section, across namespaces with a
// ReferenceGrant, virtual kinds) and records each refusal with its GEP-713
// reason. See docs/targeting.md.
package attach
