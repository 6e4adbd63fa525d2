// Package render turns a GatewayClassBlueprint's templates and a parent's
// merged values (pkg/blueprint/values) into Kubernetes objects, and
// refuses what a tenant's values must not produce (../shared/spec 002,
// docs/blueprints.md "Threat model"):
//
//	Input (blueprint, parent, values) ─ contextOf ─> template context (once)
//	   -> parse (funcs.go: sprig less removed funcs; steps.go, cost.go: budgets)
//	   -> execute, each value filling only its own YAML node (holes.go)
//	   -> admit every object (render.go): list kinds, scope (Kinds.Scope),
//	      metadata, strict types (Kinds.Types, typed.go), Pod Security
//	   -> Output: labelled objects, status
//
// A refusal is an *Error naming the template, the line, the value path
// and the config that set the value (blame.go). What the cluster knows of
// kinds is a parameter (Kinds). Render is deterministic and bounded.
package render
