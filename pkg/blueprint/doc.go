// Package blueprint is the functional core of Strata's blueprint
// controller (../shared/spec 002), offline and in a cluster alike. It
// holds what ties its two stages together; the stages are packages of
// their own, and data flows one way:
//
//	World (files | cluster cache)
//	   -> Plan: GatewayClasses served, their blueprints (render.Check),
//	            every Gateway and attached HTTPRoute to render (Job)
//	   -> values.Merge: the values of 002's six levels, per parent
//	   -> render.Render: the blueprint's templates -> checked objects
//	   -> ValuesObject: the merged values as an EffectivePolicy
//
// It also holds what the controller (pkg/controller/blueprints) and
// `strata render` must agree on without one importing the other: the
// controller's defaults and the inventory annotation a parent carries
// (InventoryAnnotation). Plain data in, plain data out; nothing here
// links a client (deps_test.go): a render is told what the cluster knows
// of kinds (render.Kinds), so a render offline and in a cluster take the
// same path.
package blueprint
