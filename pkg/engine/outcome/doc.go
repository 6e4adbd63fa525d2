// Package outcome derives the status every object should carry from the
// effective policies: per policy and ancestor Accepted and Enforced,
// PartiallyEnforced or Overridden (or Programmed); per target the
// <Kind>Affected facts. See docs/status.md.
package outcome
