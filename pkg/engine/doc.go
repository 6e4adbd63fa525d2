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
// The Result holds each stage's output per kind. RunScoped computes only
// the effective policies a question needs (describe of one route);
// Recompute reuses a result when only some kinds' policies changed.
// Sinks turn a Result into status, EffectivePolicy objects or printed
// answers; package query answers the discoverability questions.
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
// PolicyKind per CRD and Run (see ExampleRun_inMemory); it then writes
// the status with its own client (package status merges Strata's part
// into an object without touching other controllers' entries).
//
// # Stability
//
// v1alpha1: Run, RunScoped, Options, Result and the packages under
// pkg/engine may change between minor releases while the API is alpha;
// changes are listed in the changelog. The semantics (stack order, fold,
// status conditions and reasons) follow GEP-713 and change only with it
// or to fix a divergence from it, with a test naming the spec text.
package engine
