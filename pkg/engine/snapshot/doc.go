// Package snapshot holds the plain objects the engine reads: Gateway API
// objects, Services, Namespaces, ReferenceGrants, policy kind declarations
// and policies. Sources (YAML files, a cluster cache) fill a Snapshot; the
// engine never reads the world itself.
package snapshot
