// Package blueprint is the functional core of Strata's blueprint
// controller (../shared/spec 002): it merges template values from a
// GatewayClassBlueprint and the GatewayClassConfig and GatewayConfig
// policies under 002's six-level precedence, renders the blueprint's
// templates for a Gateway or an HTTPRoute, and checks what they render
// against tenant-safety rules. Plain data in, plain data out: the
// controller (pkg/controller/blueprints) and `strata render` are adapters
// around it, so a render offline and in a cluster take the same path.
package blueprint
