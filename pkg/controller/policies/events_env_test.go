package policies_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/strata-dev/strata/pkg/controller/policies"
)

// recorded counts the Events a controller asks for, synchronously, and
// passes them on to the manager's recorder (which writes them to the API
// server asynchronously).
type recorded struct {
	mu    sync.Mutex
	inner events.EventRecorder
	calls map[string]int // "name action reason" -> calls
}

func (r *recorded) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	r.mu.Lock()
	if o, ok := regarding.(client.Object); ok {
		r.calls[o.GetName()+" "+action+" "+reason]++
	}
	inner := r.inner
	r.mu.Unlock()
	inner.Eventf(regarding, related, eventtype, reason, action, note, args...)
}

func (r *recorded) count(key string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[key]
}

// eventOn waits for an Event object about a policy with a reason.
func (c *cluster) eventOn(name, eventType, reason string) func() error {
	return func() error {
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion("events.k8s.io/v1")
		l.SetKind("EventList")
		if err := c.client.List(context.Background(), l, client.InNamespace("default")); err != nil {
			return err
		}
		for _, u := range l.Items {
			e := &eventsv1.Event{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, e); err != nil {
				return err
			}
			if e.Regarding.Name == name && e.Reason == reason && e.Type == eventType {
				return nil
			}
		}
		return fmt.Errorf("no %s event %s on %s among %d", eventType, reason, name, len(l.Items))
	}
}

// TestEvents: a policy's change of standing is an Event with the
// engine's message; a resync that changes nothing emits none.
func TestEvents(t *testing.T) {
	c := newCluster(t)
	rec := &recorded{calls: map[string]int{}}
	r := c.startWith(policies.Options{Recorder: rec})
	c.apply(objects(t, example(2)...)...)
	c.eventually("p3 enforced", c.policyHas("p3", "g2", "Enforced", "Enforced"))
	c.eventually("Event: p3 enforced", c.eventOn("p3", "Normal", "Enforced"))
	c.eventually("Event: b2 affected", c.eventOn("b2", "Normal", "Affected"))
	enforced := rec.count("p3 Enforced Enforced")
	if enforced != 1 {
		t.Fatalf("p3 Enforced events %d, want 1", enforced)
	}

	// A resync that changes nothing: a label on a Gateway is a full run.
	full := r.ctrl.Runs().WithLabelValues("full")
	before := testutil.ToFloat64(full)
	g1 := c.get("gateway.networking.k8s.io/v1", "Gateway", "default", "g1")
	g1.SetLabels(map[string]string{"touched": "yes"})
	if err := c.client.Update(context.Background(), g1); err != nil {
		t.Fatal(err)
	}
	c.eventually("a full run", func() error {
		if testutil.ToFloat64(full) == before {
			return fmt.Errorf("no run yet")
		}
		return nil
	})

	// Delete g2: p3's target is gone, a Warning. The world queue has one
	// worker, so the resync's writes are done by now.
	c.delete("gateway.networking.k8s.io/v1", "Gateway", "default", "g2")
	c.eventually("p3 target not found", c.policyHas("p3", "g2", "Accepted", "TargetNotFound"))
	c.eventually("Event: p3 TargetNotFound", c.eventOn("p3", "Warning", "TargetNotFound"))
	if n := rec.count("p3 Enforced Enforced"); n != enforced {
		t.Errorf("p3 Enforced events %d after a resync, want %d", n, enforced)
	}
	if n := rec.count("p3 Accepted TargetNotFound"); n != 1 {
		t.Errorf("p3 TargetNotFound events %d, want 1", n)
	}
}
