// Package spelling measures how far a mistyped name is from the name it
// was meant to be, for the "did you mean" hints of policy validation
// (pkg/engine/policykind) and of the CLI's questions (pkg/query).
package spelling
