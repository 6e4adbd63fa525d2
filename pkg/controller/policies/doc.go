// Package policies runs the engine inside a Kubernetes controller
// (controller-runtime): it watches the topology kinds, Strata's PolicyKind
// declarations, CRDs and every declared policy kind (started and stopped
// as CRDs come and go), recomputes the effective policies from the
// informer cache after each burst of events, and writes only what differs
// from what is stored:
//
//	events ─> world queue (debounced, one key) ─> engine.Run
//	            ├─> policy status.ancestors patches (optimistic lock)
//	            └─> target queue (rate limited) ─> <Kind>Affected patches
//
// See docs/controller.md.
package policies
