// Package values merges the template values of a GatewayClassBlueprint
// and of the GatewayClassConfig and GatewayConfig policies that apply to
// a parent (a Gateway or an HTTPRoute) under 002's six-level precedence
// (Level): defaults from the blueprint up to the config on the object,
// overrides from the blueprint down, as a fold of the engine's
// (pkg/engine/effective), each level a rung of the value space
// blueprints.strata.dev/values. Every merged leaf names the config that
// set it (Leaf, Source).
package values
