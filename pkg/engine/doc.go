// Package engine is Strata's functional core: one call from a snapshot of
// plain objects to topology, attachments, effective policies and status,
// with no clients, clocks or logging. The CLI and the controller call the
// same Run, so what strata prints offline is what the controller writes.
//
// # The model (GEP-713, docs/merging.md)
//
// A snapshot (package snapshot) holds the Gateway API objects, Services
// and Namespaces, the policy kinds' declarations (PolicyKind objects, or
// CRDs labelled gateway.networking.k8s.io/policy) and the policies.
// Run then:
//
//  1. compiles each declaration into a kind (package policykind): its
//     targets, effective targets, strategies and where a policy keeps its
//     blocks; a declaration that does not compile is a DeclarationError;
//  2. builds the topology (package topology): a DAG of targetables from
//     Namespace and GatewayClass down to Service ports, one level per kind
//     of the hierarchy table (package hierarchy);
//  3. reads each policy through its kind, admitted against its CRD's
//     schema when the snapshot holds it (package crdschema), and attaches
//     it to the nodes its targetRefs (or references to it) name (package
//     attach); what cannot attach is a rejection with a reason;
//  4. for every effective target and every context (a path from a root to
//     it), stacks the attached policies' blocks from least to most
//     specific and folds them (package effective, with merge's functions):
//     the effective policy, with the policy that set each field; kinds
//     that share a value space fold as one;
//  5. derives every policy's status per ancestor and every target's
//     <Kind>Affected condition (package outcome), as plain data.
//
// Each stage is a function of the earlier stages' outputs, which it never
// changes; each package's Example shows it alone on a one-route world:
//
//	snapshot.Snapshot
//	  ├─ policykind.Compile    declaration ─> *policykind.Kind
//	  │    └─ Kind.Read        policy object ─> *policykind.Policy
//	  └─ topology.BuildWith    objects, policies' Extra ─> *topology.Graph (levels: hierarchy.Table)
//	        │
//	  attach.Resolve           graph, policies ─> *attach.Result (attachments, rejections)
//	        │
//	  effective.ComputeOnly    per target, per context: stack folded with merge.Func
//	        │                  ─> *effective.Result
//	  outcome.Compute          ─> *outcome.Outcome (per policy and ancestor; per target)
//	        │
//	  engine.Result            Graph, Kinds[i]{Kind, Policies, Attachments, Effective}, Outcome
//	        │
//	  sinks                    sink/status, sink/effectivepolicy, query, sink/printer
//
// # API
//
// What an embedder uses, all of it plain data in and out:
//
//   - Run(snapshot, Options): every stage on one snapshot; the Result.
//   - RunScoped(snapshot, Options, scope): Run for a question about a few
//     nodes; effective policies of those nodes only, no Outcome.
//   - Result.Recompute(policies, dirty): a new Result after a change to
//     the policies of some kinds only, reusing the others' results.
//   - Result.RecomputeScoped(policies, dirty, scope): Recompute for a
//     question about a few nodes (the admission webhook's).
//   - KindsWith: a snapshot's declarations compiled as Run's first step
//     compiles them, without the rest of the run.
//
// Options tune a run; the zero value is Strata's defaults:
//
//   - Registry: custom merge functions by name (nil: merge.DefaultRegistry).
//   - ControllerName: for kinds whose declaration names none.
//   - Lenient: a bad declaration goes to Result.Errors instead of failing.
//   - Catalogue: declarations of kinds the input does not declare
//     (builtin.Catalogue for Strata's own commands).
//   - Strict: a policy of an undeclared kind is an UndeclaredError.
//   - Workers: how many goroutines a run uses at once (0: GOMAXPROCS;
//     1: the caller's only); the answer is the same for every value.
//
// A Result holds each stage's output:
//
//   - Graph: the topology; Graph.Node(id).Ref names a node, Graph.Lookup
//     finds one by locator.
//   - Kinds: one KindResult per kind (its Kind, Policies, Attachments,
//     Effective); Of, KindOf, PolicyKinds and SharedWith find them.
//   - Policies and Outcome: every policy, and the status of each policy
//     and affected target (nil Outcome when Scope is set).
//   - Errors, Warnings: declarations skipped (Lenient) and input-wide
//     warnings; errors of single objects are in their status instead.
//   - Scope: the nodes a scoped result is about; nil when complete.
//
// The input and the kinds:
//
//   - snapshot.Snapshot: typed Gateway API and core objects, Declarations,
//     labelled PolicyCRDs, CRDs (schemas) and Policies (unstructured).
//   - policykind.Declaration: a strata.dev/v1alpha1 PolicyKind, a kind
//     declared as data (docs/policy-kinds.md); policykind.FromCRD derives
//     one from a labelled CRD; policykind.Compile checks it into a Kind.
//   - DeclarationError, UndeclaredError: the errors Run returns, naming
//     the object, so that an adapter can say where it was read.
//
// # Concurrency
//
// A Result is frozen once Run returns it (docs/layout.md, "Frozen once
// built"): the topology is complete when it is built, the policies'
// namespaces and the virtual objects they target included
// (topology.Extra), and no later stage adds a node; every standing
// (effective.Folded.Standing) is computed with the fold, not on first
// read. So any number of goroutines may read one Result without locks,
// sinks and package query included. Recompute does not change the result
// it derives from: the new one shares its graph when the changed policies
// need no new node, and otherwise gets an extended copy with the old
// nodes at the same ids (topology.Graph.Extend). A caller may therefore
// serve reads of the current result while the next one is computed
// (TestResultConcurrentReads runs it under the race detector).
//
// # Embedding
//
// Another Gateway API implementation can compute effective policies and
// status for its own policy CRDs with a snapshot built in memory, one
// PolicyKind per CRD and Run (see Example_embedding); it then writes the
// status with its own client (package status merges Strata's part into
// an object without touching other controllers' entries).
//
// # Stability
//
// v1alpha1: Run, RunScoped, Options, Result and the packages under
// pkg/engine may change between minor releases while the API is alpha;
// changes are listed in the changelog. The semantics (stack order, fold,
// status conditions and reasons) follow GEP-713 and change only with it
// or to fix a divergence from it, with a test naming the spec text.
package engine
