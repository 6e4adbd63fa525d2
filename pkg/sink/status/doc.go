// Package status renders an engine outcome onto objects: the policy
// status.ancestors entries Strata owns and the <Kind>Affected conditions or
// annotations of targets, keeping other controllers' entries and unchanged
// timestamps (docs/status.md). Ancestors and Fragments say what Strata
// would write, for the CLI and the controller; MergeAncestors and Merge
// put it into an object as stored.
package status
