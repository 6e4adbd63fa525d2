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
// One reconcile is about one object, so an event re-renders only the
// parents it can affect (watch.go). A render applies completely or not at
// all, after a server-side dry run (children.go); what was applied is
// recorded on the parent (InventoryAnnotation) for pruning. Status is
// written only where Strata owns it, and only when it changes (status.go).
package blueprints
