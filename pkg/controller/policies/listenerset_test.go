package policies_test

import (
	"fmt"
	"path/filepath"
	"testing"
)

// The ListenerSet example (GEP-1713) on a real API server, with the
// standard channel's ListenerSet CRD: a policy on a ListenerSet reports
// against it and supersedes the Gateway's on its routes only, and the
// stored status equals what `strata status` computes offline.
func TestListenerSetExample(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "examples", "gep-713", "listenerset")
	c := newCluster(t)
	c.start()
	c.apply(objects(t, filepath.Join(dir, "kind.yaml"), filepath.Join(dir, "scenario.yaml"))...)
	has := c.policyIn
	for i, check := range []func() error{
		has("infra", "p-ls", "team-a", "Enforced", "Enforced"),
		has("infra", "p-gw", "gw", "PartiallyEnforced", "PartiallyEnforced"),
		c.converged,
	} {
		c.eventually(fmt.Sprintf("outcome %d", i+1), check)
	}
}
