// Package engine is Strata's functional core: one call from a snapshot of
// plain objects to topology, attachments, effective policies and outcome,
// with no clients, clocks or logging. The CLI and the controller call the
// same Run, so what strata prints offline is what the controller writes.
package engine
