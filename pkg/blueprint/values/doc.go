// Package values merges the template values of a GatewayClassBlueprint
// and of the GatewayClassConfig and GatewayConfig policies that apply to
// a parent (a Gateway or an HTTPRoute) under 002's six-level precedence
// (Level): defaults from the blueprint up to the config on the object,
// overrides from the blueprint down. The merge is a fold of the engine's
// (pkg/engine/effective, RFC 7386 per level), each level a rung of the
// value space blueprints.strata.dev/values (Rung, the ranks of
// config/blueprints/policykinds.yaml), so `strata render --values` and
// the engine order configs alike. Every merged leaf names the config
// that set it (Leaf, Source), which is how pkg/blueprint/render names the
// tenant behind a refused object.
package values
