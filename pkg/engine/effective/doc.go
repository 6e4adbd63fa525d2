// Package effective computes effective policies: for each effective target
// and each context path from a root of the DAG to it, the stack of policies
// along the path folded into one spec with per-field provenance (GEP-713
// "Abstract process for calculating Effective metaresources").
//
//	a1 ─> b1 ─> c1        m1 -.-> a1     c1 via b1: m1
//	a1 ─> b2 ─> c1, c2    m2 -.-> b2     c1 via b2: m1+m2; c2: m1+m2
//
// See docs/merging.md.
package effective
