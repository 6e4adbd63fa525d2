package policies

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/outcome"
)

// Metric names, referenced by config/prometheus/rules.yaml and
// config/grafana/strata-dashboard.json (a test checks that every name
// they use is registered).
const (
	metricWrites          = "strata_status_writes_total"
	metricRuns            = "strata_engine_runs_total"
	metricEventsDropped   = "strata_events_dropped_total"
	metricEngineDuration  = "strata_engine_run_duration_seconds"
	metricReconcileTime   = "strata_reconcile_duration_seconds"
	metricReconcileErrors = "strata_reconcile_errors_total"
	metricWriteDuration   = "strata_status_write_duration_seconds"
	metricPolicies        = "strata_policies"
	metricUnreadable      = "strata_kind_unreadable"
	metricWritesRefused   = "strata_status_writes_refused_total"
)

// PolicyStates are the values of strata_policies' state label: the
// reasons of GEP-713's Accepted condition and of Strata's Enforced (or
// Programmed) condition.
var PolicyStates = []string{
	outcome.ReasonAccepted, outcome.ReasonConflicted, outcome.ReasonInvalid, outcome.ReasonTargetNotFound,
	outcome.ReasonEnforced, outcome.ReasonPartially, outcome.ReasonOverridden,
	outcome.ReasonProgrammed, outcome.ReasonPartiallyProgrammed,
}

// metrics are the controller's Prometheus collectors.
type metrics struct {
	writes          *prometheus.CounterVec   // kind
	runs            *prometheus.CounterVec   // scope
	eventsDropped   prometheus.Counter       //
	engineDuration  *prometheus.HistogramVec // scope
	reconcileTime   *prometheus.HistogramVec // scope
	reconcileErrors prometheus.Counter       //
	writeDuration   *prometheus.HistogramVec // kind
	policies        *prometheus.GaugeVec     // kind, state
	unreadable      *prometheus.GaugeVec     // kind
	writesRefused   *prometheus.CounterVec   // kind
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	durations := prometheus.ExponentialBuckets(0.001, 4, 9) // 1 ms .. 65 s
	m := &metrics{
		writes:          prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricWrites, Help: "Writes to the API server by Strata, by kind of the object written."}, []string{"kind"}),
		runs:            prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricRuns, Help: "Recomputations of the effective policies and status, by scope: full, or the policy kinds that changed."}, []string{"scope"}),
		eventsDropped:   prometheus.NewCounter(prometheus.CounterOpts{Name: metricEventsDropped, Help: "Events on policies and targets not emitted because they exceeded the event rate limit."}),
		engineDuration:  prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: metricEngineDuration, Help: "Duration of one engine run (topology, attachment, effective policies, outcome), by scope: full or kinds.", Buckets: durations}, []string{"scope"}),
		reconcileTime:   prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: metricReconcileTime, Help: "Duration of one recomputation: reading the cache, the engine run and the policy status writes, by scope.", Buckets: durations}, []string{"scope"}),
		reconcileErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: metricReconcileErrors, Help: "Recomputations that failed and were retried (write conflicts included), and writes the API server refused as invalid, which are not retried before the next change."}),
		writeDuration:   prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: metricWriteDuration, Help: "Latency of one status or annotation write to the API server, by kind of the object written.", Buckets: prometheus.ExponentialBuckets(0.001, 2, 14)}, []string{"kind"}), // 1 ms .. 8 s
		policies:        prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: metricPolicies, Help: "Policies of managed kinds by kind and state: a policy counts once in each state (condition reason) any of its ancestors reports, so Accepted and Conflicted can both count it."}, []string{"kind", "state"}),
		unreadable:      prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: metricUnreadable, Help: "Kinds Strata should watch but may not list and watch in every namespace (1), by kind (Kind.group): they are left out of every computation until a ClusterRole grants them (docs/install.md)."}, []string{"kind"}),
		writesRefused:   prometheus.NewCounterVec(prometheus.CounterOpts{Name: metricWritesRefused, Help: "Status and annotation writes the API server refused as invalid (422), by kind of the object: they cannot succeed as they are, so they are not retried before the next change (docs/status.md, \"Room\")."}, []string{"kind"}),
	}
	for _, col := range []prometheus.Collector{m.writes, m.runs, m.eventsDropped, m.engineDuration, m.reconcileTime, m.reconcileErrors, m.writeDuration, m.policies, m.unreadable, m.writesRefused} {
		if err := reg.Register(col); err != nil {
			return nil, fmt.Errorf("register metrics: %w", err)
		}
	}
	return m, nil
}

// setPolicies sets strata_policies from a result: every managed kind
// gets every state, zero included, so an alert's expression sees a
// series, and a kind no longer present loses its series.
func (m *metrics) setPolicies(res *engine.Result) {
	m.policies.Reset()
	for kind, states := range policyStates(res) {
		for _, s := range PolicyStates {
			m.policies.WithLabelValues(kind, s).Set(float64(states[s]))
		}
	}
}

// policyStates counts, per managed kind (Kind.group), the policies in
// each state: a policy counts once per reason any of its ancestors'
// conditions carries.
func policyStates(res *engine.Result) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, k := range res.PolicyKinds() {
		if k.Managed {
			out[k.Key().String()] = map[string]int{}
		}
	}
	for _, ps := range res.Outcome.Policies {
		k := ps.Policy.Kind
		if !k.Managed {
			continue
		}
		seen := map[string]bool{}
		for _, a := range ps.Ancestors {
			for _, c := range a.Conditions {
				seen[c.Reason] = true
			}
		}
		states := out[k.Key().String()]
		for r := range seen {
			states[r]++
		}
	}
	return out
}

// MetricNames are the names of the series the controller's collectors
// export, a histogram's _bucket, _sum and _count included: what alert
// rules and dashboards may query. hack/promql checks the expressions of
// config/prometheus and config/grafana against them, with Prometheus'
// own parser, which is kept out of this module.
func MetricNames() ([]string, error) {
	reg := prometheus.NewRegistry()
	m, err := newMetrics(reg)
	if err != nil {
		return nil, err
	}
	// Vectors without children are not gathered: give each one.
	m.writes.WithLabelValues("")
	m.runs.WithLabelValues("")
	m.engineDuration.WithLabelValues("")
	m.reconcileTime.WithLabelValues("")
	m.writeDuration.WithLabelValues("")
	m.policies.WithLabelValues("", "")
	m.unreadable.WithLabelValues("")
	m.writesRefused.WithLabelValues("")
	mfs, err := reg.Gather()
	if err != nil {
		return nil, fmt.Errorf("gather metrics: %w", err)
	}
	var names []string
	for _, mf := range mfs {
		names = append(names, mf.GetName())
		if mf.GetType() == dto.MetricType_HISTOGRAM {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				names = append(names, mf.GetName()+suffix)
			}
		}
	}
	return names, nil
}
