// Package topology holds the DAG of targetables that policies attach to:
// objects, their named sections and virtual objects, linked as Gateway API
// links them.
//
//	GatewayClass ─> Gateway ─> Gateway#listener ─> HTTPRoute ─> HTTPRoute#rule ─> Service ─> Service#port
//	                 Service (frontend) ───────────┘
//
// The second line is a mesh path (GEP-1426): a route whose parentRef is a
// Service hangs under that Service's frontend (Ref.Role). Each node is
// found by its locator (Ref.Key), the string a targetRef and its target
// both produce; see docs/hierarchy.md.
package topology
