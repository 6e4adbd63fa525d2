// Package typed is the decode column of hierarchy.Table: for each kind of
// the table, the Go type its objects decode into (from
// sigs.k8s.io/gateway-api and k8s.io/api), its list type, where its
// objects are held in a snapshot.Snapshot and, for a route kind, the rule
// that reads its links (parentRefs, hostnames, rules and their
// backendRefs) for the topology.
//
// It is a sibling of hierarchy rather than a column of its rows because
// it imports the API types and the snapshot: hierarchy is imported by
// policykind and must stay apimachinery-only. Kinds is keyed by
// hierarchy.Table, and a test checks that every row has its entry.
package typed
