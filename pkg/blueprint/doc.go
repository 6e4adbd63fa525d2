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
// It also holds what the controller and `strata render` must agree on:
// the controller's defaults and the inventory annotation. Nothing here
// links a client (deps_test.go), so a render offline and in a cluster
// take the same path.
package blueprint
