// Package outcome derives the status every object should carry from the
// effective policies: per policy and ancestor Accepted, Enforced,
// PartiallyEnforced or Overridden (or, for a kind that chooses the
// Programmed vocabulary, Programmed); per target the <Kind>Affected facts.
// It has no clock; sinks stamp times. See docs/status.md.
package outcome
