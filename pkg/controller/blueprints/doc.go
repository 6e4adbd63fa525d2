// Package blueprints is the cluster side of GatewayClassBlueprints
// (../shared/spec 002): for every GatewayClass whose controllerName is
// Strata's blueprint controller and whose parametersRef names a
// GatewayClassBlueprint, it renders the blueprint (pkg/blueprint) for each
// Gateway of the class and each HTTPRoute attached to such a Gateway, and
// keeps the rendered objects in the cluster with server-side apply:
//
//	GatewayClass ─parametersRef─> GatewayClassBlueprint
//	     │                               │ templates
//	  Gateway ─────── render ────────────┼──> children (owned by the Gateway)
//	     │ listeners                     │
//	  HTTPRoute ───── render per Gateway ┴──> children (owned by the route)
//	     ^
//	GatewayClassConfig / GatewayConfig: values, merged under 002's precedence
//
// One reconcile is about one object (a key: kind, namespace, name), so an
// event re-renders only the parents it can affect (watch.go). A render
// either applies completely or not at all: template and tenant-safety
// errors apply nothing, and every changed object is applied with a
// server-side dry run before any is applied for real (children.go). What
// was applied is recorded on the parent (InventoryAnnotation), which is
// how objects dropped from a template are pruned. Status is written only
// where Strata owns it (its condition types, its listener and parent
// entries, its ancestor entries), and only when it changes (status.go).
package blueprints
