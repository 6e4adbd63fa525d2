// Package query answers the discoverability questions of GEP-713 ("The
// discoverability problem") from one engine run: *that* a policy affects an
// object, *which* policies do, and *what* they set, field by field, with
// the policies each field beat; and, for the Policy Admin, how many places
// a policy reaches and what would change without it.
//
//	engine.Result ──Resolve("httproute/baker", ns)──> Subject
//	              ──Describe(subject)──────────────> Description        who affects it, what is in force
//	              ──Explain(subject, "/attempts")──> Explanation        the precedence chain of one field
//	              ──Policies(filter)───────────────> PolicyList         every policy, its status and reach
//	Impact(before, after) ─────────────────────────> Impact             what changes between two runs
//	              ──Map()──────────────────────────> Diagram            the topology with policies drawn
//	              ──Simulate(request)──────────────> Simulation         where a request goes (package routing),
//	                                                                    the policies on its way
//
// Like the engine it reads, the package is functional: plain data in, plain
// data out, no I/O, deterministic (every list is sorted). Its types carry
// JSON tags and are the machine schemas of `strata describe`, `explain`,
// `get policies`, `impact` and `simulate` (docs/cli.md); package printer
// renders them for people.
package query
