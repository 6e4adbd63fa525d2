// Package topology holds the DAG of targetables that policies attach to:
// objects, their named sections and virtual objects, linked as Gateway API
// links them.
//
//	GatewayClass ─> Gateway ─> Gateway#listener ─> HTTPRoute ─> HTTPRoute#rule ─> Service ─> Service#port
//	                 Service (frontend) ───────────┘
//
// The second line is a mesh context path (GAMMA, GEP-1426): a route whose
// parentRef is a Service hangs under that Service's frontend, a node of
// its own distinct from the Service as a backend (Ref.Role).
//
// Each node is found by its locator (Ref.Key, "Kind.group:ns/name#section"),
// the same string a targetRef and its target produce. Building is linear in
// the number of objects; see docs/hierarchy.md.
package topology
