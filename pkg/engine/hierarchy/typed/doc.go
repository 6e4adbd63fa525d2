// Package typed is the decode column of hierarchy.Table: for each kind,
// its Go type and list type, where a snapshot.Snapshot holds its objects
// and, for a route kind, the rule that reads its links for the topology.
// It is a sibling of hierarchy so that hierarchy imports no API types.
package typed
