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
	has := func(ns, name, ancestor, typ, reason string) func() error {
		return func() error {
			got := condition(c.get(colorAPI, "ColorPolicy", ns, name), ancestor, typ)
			if got == nil || got.Reason != reason {
				return fmt.Errorf("%s/%s: %s for %s is %v, want reason %s", ns, name, typ, ancestor, got, reason)
			}
			return nil
		}
	}
	for i, check := range []func() error{
		has("infra", "p-ls", "team-a", "Enforced", "Enforced"),
		has("infra", "p-gw", "gw", "PartiallyEnforced", "PartiallyEnforced"),
		c.converged,
	} {
		c.eventually(fmt.Sprintf("outcome %d", i+1), check)
	}
}
