package cli

import (
	"os"
	"testing"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// TestMain gives controller-runtime's global logger a sink before any
// test starts an API server (envtest logs through it): the controller
// command sets it only when it runs, and a test's manager has a logger
// of its own. Started with asStrata set, the test binary is the strata
// command instead (BenchmarkEveryProcess).
func TestMain(m *testing.M) {
	if os.Getenv(asStrata) != "" {
		os.Exit(Run())
	}
	ctrllog.SetLogger(logr.Discard())
	os.Exit(m.Run())
}
