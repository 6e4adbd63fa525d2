package policies_test

import (
	"fmt"
	"path/filepath"
	"testing"
)

// The mesh example (GAMMA, GEP-1426; 001 "Policy Attachment for Mesh") on
// a real API server: routes whose parentRef is a Service, a producer's
// and a consumer's policy on that Service and a namespace's policy
// converge, each policy reporting against its target (the Service once,
// though it acts on the Service's frontend and on the Service), and the
// stored status equals what `strata status` computes offline.
func TestMeshExample(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "examples", "gep-713", "mesh")
	c := newCluster(t)
	c.start()
	c.apply(objects(t, filepath.Join(dir, "kind.yaml"), filepath.Join(dir, "scenario.yaml"))...)
	has := c.policyIn
	for i, check := range []func() error{
		has("producer", "p-producer", "foo", "Enforced", "Enforced"),
		has("consumer", "p-consumer", "foo", "Enforced", "Enforced"),
		has("consumer", "p-ns", "consumer", "Enforced", "Enforced"),
		c.converged,
	} {
		c.eventually(fmt.Sprintf("outcome %d", i+1), check)
	}
}
