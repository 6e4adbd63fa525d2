package topology_test

import (
	"testing"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// BenchmarkObjects builds the graph of the performance world's objects
// (topology.Objects): the part of every command that runs while the
// policies are read, and that the policies' effective computation
// waits for.
func BenchmarkObjects(b *testing.B) {
	s := synth.Snapshot(1, 1)
	b.ReportAllocs()
	for b.Loop() {
		topology.Objects(s)(topology.Extra{})
	}
}
