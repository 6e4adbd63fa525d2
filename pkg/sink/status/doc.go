// Package status renders an engine outcome onto objects: the policy
// status.ancestors entries Strata owns and the <Kind>Affected conditions or
// annotations of targets, keeping other controllers' entries and unchanged
// timestamps. See docs/status.md.
package status
