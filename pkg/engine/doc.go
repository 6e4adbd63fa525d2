// Package engine is Strata's functional core: one call from a snapshot of
// plain objects to topology, attachments, effective policies and status,
// with no clients, clocks or logging. The CLI and the controller call the
// same Run, so what strata prints offline is what the controller writes.
//
// Run (GEP-713, docs/merging.md) compiles each policy kind's declaration
// (package policykind), builds the topology (topology, one level per row
// of hierarchy.Table), reads each policy through its kind, admitted
// against its CRD's schema when known (crdschema), attaches it to the
// nodes its targetRefs name (attach), folds the stack of every context of
// every effective target (effective, with merge's functions) and derives
// every policy's and target's status (outcome):
//
//	snapshot.Snapshot ─> policykind.Compile, Kind.Read ─> topology.BuildWith
//	  ─> attach.Resolve ─> effective.ComputeOnly ─> outcome.Compute
//	  ─> engine.Result ─> sinks (sink/status, sink/effectivepolicy, query, sink/printer)
//
// # API
//
//   - Run(snapshot, Options): every stage on one snapshot; the Result.
//   - RunScoped(snapshot, Options, scope): effective policies of a few
//     nodes only, no Outcome.
//   - Result.Recompute(policies, dirty) and RecomputeScoped: a new Result
//     after a change to the policies of some kinds, reusing the others'.
//   - NewModel(snapshot, Options) and Model.Apply(changes...): the live
//     model, a Result that takes changes of any input and says what they
//     changed (Delta), at the cost of what a policy change, or a route
//     moved, reaches (docs/live-model.md).
//   - KindsWith: a snapshot's declarations compiled, without the run.
//   - Options: Registry (merge functions; nil: merge.DefaultRegistry),
//     ControllerName, Lenient (bad declarations to Result.Errors),
//     Catalogue (builtin.Catalogue), Strict (UndeclaredError), Workers
//     (goroutines; the answer is the same for every value).
//   - Result: Graph, Kinds (KindResult: Kind, Policies, Attachments,
//     Effective; Of, KindOf, PolicyKinds, SharedWith), Policies, Outcome,
//     Errors, Warnings, Scope.
//   - DeclarationError, UndeclaredError: the errors Run returns, naming
//     the object, so that an adapter can say where it was read.
//
// # Concurrency
//
// A Result is frozen once Run returns it (docs/layout.md, "Frozen once
// built"): no later stage adds a node or fills a cache, so any number of
// goroutines may read one Result without locks. Recompute and
// Model.Apply do not change the result they derive from (it shares its
// graph, or extends a copy with the old nodes at the same ids, or copies
// the nodes a route's new edges change), so a caller may serve reads of
// the current result while the next one is computed
// (TestResultConcurrentReads).
//
// # Stability
//
// v1alpha1: the API may change between minor releases, listed in the
// changelog. The semantics (stack order, fold, status conditions and
// reasons) follow GEP-713 and change only with it or to fix a divergence
// from it, with a test naming the spec text.
package engine
