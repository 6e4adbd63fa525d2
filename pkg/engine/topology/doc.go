// Package topology holds the DAG of targetables that policies attach to:
// objects, their named sections and virtual objects, linked as Gateway API
// links them.
//
//	GatewayClass ─> Gateway ─> Gateway#listener ─> HTTPRoute ─> HTTPRoute#rule ─> Service ─> Service#port
//
// Each node is found by its locator (Ref.Key, "Kind.group:ns/name#section"),
// the same string a targetRef and its target produce. Building is linear in
// the number of objects; see docs/hierarchy.md.
package topology
