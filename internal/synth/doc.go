// Package synth generates synthetic, deterministic snapshots of a large
// Gateway API world with GEP-713 policies, so that the engine's speed and
// memory can be measured on inputs of a known shape and size (see
// docs/performance.md, "What is measured") without shipping megabytes of YAML.
package synth
