package policies_test

import (
	"fmt"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// sample is a metric of reg with exactly these labels: a gauge's or
// counter's value, a histogram's sample count; -1 when absent.
func sample(reg *prometheus.Registry, name string, labels map[string]string) float64 {
	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			same := len(m.GetLabel()) == len(labels)
			for _, l := range m.GetLabel() {
				same = same && labels[l.GetName()] == l.GetValue()
			}
			if !same {
				continue
			}
			switch {
			case m.Gauge != nil:
				return m.GetGauge().GetValue()
			case m.Counter != nil:
				return m.GetCounter().GetValue()
			case m.Histogram != nil:
				return float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return -1
}

// TestMetrics scrapes the controller's registry after reconciles: the
// duration histograms have samples, and strata_policies follows the
// policies' standing.
func TestMetrics(t *testing.T) {
	c := newCluster(t)
	r := c.start()
	c.apply(objects(t, example(2)...)...)
	c.eventually("p3 enforced", c.policyHas("p3", "g2", "Enforced", "Enforced"))
	const kind = "ColorPolicy.policies.controller.io"
	policies := func(state string, want float64) func() error {
		return func() error {
			if got := sample(r.reg, "strata_policies", map[string]string{"kind": kind, "state": state}); got != want {
				return fmt.Errorf("strata_policies{state=%q} = %v, want %v", state, got, want)
			}
			return nil
		}
	}
	c.eventually("4 policies accepted", policies("Accepted", 4))
	c.eventually("none without a target", policies("TargetNotFound", 0))
	for _, m := range []struct {
		name   string
		labels map[string]string
	}{
		{"strata_engine_run_duration_seconds", map[string]string{"scope": "full"}},
		{"strata_reconcile_duration_seconds", map[string]string{"scope": "full"}},
		{"strata_status_write_duration_seconds", map[string]string{"kind": "ColorPolicy"}},
	} {
		// A duration is observed when its step returns, which may be
		// after what it wrote is visible: wait for the sample.
		c.eventually(fmt.Sprintf("a sample of %s%v", m.name, m.labels), func() error {
			if n := sample(r.reg, m.name, m.labels); n < 1 {
				return fmt.Errorf("%v samples, want some", n)
			}
			return nil
		})
	}

	// Delete g2: p3's target is gone.
	c.delete("gateway.networking.k8s.io/v1", "Gateway", "default", "g2")
	c.eventually("p3 counted TargetNotFound", policies("TargetNotFound", 1))
}
