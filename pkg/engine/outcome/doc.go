// Package outcome derives the status every object should carry from the
// effective policies: per policy and ancestor Accepted, Enforced,
// PartiallyEnforced or Overridden; per target the <Kind>Affected facts.
// It has no clock; sinks stamp times. See docs/status.md.
package outcome
