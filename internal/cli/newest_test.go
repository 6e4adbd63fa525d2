package cli

import (
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// TestNewestOnCores checks that the newest creationTimestamp, read on
// every core a chunk of nodes at a time, is the newest of all, wherever
// it lies among the nodes (first, last, in a chunk a second worker
// takes) and whatever nodes hold no object.
func TestNewestOnCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	const n = 50_000 // several chunks of newest's
	for _, at := range []int{0, 1, 8191, 8192, 30_000, n - 1} {
		nodes := make([]*topology.Node, n)
		for i := range nodes {
			nodes[i] = &topology.Node{}
			if i%3 == 1 {
				continue // a section, an implicit namespace: no object
			}
			nodes[i].Object = &corev1.Service{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(base.Add(time.Duration(i%1000) * time.Second))}}
		}
		want := base.Add(time.Hour)
		nodes[at].Object = &corev1.Service{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.NewTime(want)}}
		res := &engine.Result{Graph: &topology.Graph{Nodes: nodes}}
		if got := newest(res); !got.Equal(want) {
			t.Errorf("newest with the newest at node %d = %v, want %v", at, got, want)
		}
	}
}
