// Package status renders an engine outcome onto objects: the policy
// status.ancestors entries Strata owns and the <Kind>Affected conditions or
// annotations of targets, keeping other controllers' entries and unchanged
// timestamps. See docs/status.md.
//
// One path serves the CLI and the controller: Ancestors and Fragments say
// what Strata would write, typed (Gateway API's PolicyAncestorStatus and
// RouteParentStatus, metav1.Condition); MergeAncestors and Merge put it
// into an object as stored, where other controllers' entries stay as
// they are; Retime is the one rule for lastTransitionTime.
package status
