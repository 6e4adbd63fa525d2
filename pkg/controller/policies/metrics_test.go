package policies

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/yaml"
)

// TestMetricsReferenced: every strata_* metric the alerts
// (config/prometheus/rules.yaml) and the dashboard
// (config/grafana/strata-dashboard.json) use is one the controller
// registers, so a renamed metric cannot silently blank a panel or an
// alert.
func TestMetricsReferenced(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := newMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	// Vectors without children are not gathered: give each one.
	m.writes.WithLabelValues("x")
	m.runs.WithLabelValues("x")
	m.engineDuration.WithLabelValues("x")
	m.reconcileTime.WithLabelValues("x")
	m.writeDuration.WithLabelValues("x")
	m.policies.WithLabelValues("x", "y")
	m.writesRefused.WithLabelValues("x")
	m.unreadable.WithLabelValues("x")
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	registered := map[string]bool{}
	for _, mf := range mfs {
		registered[mf.GetName()] = true
		if mf.GetType().String() == "HISTOGRAM" {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				registered[mf.GetName()+suffix] = true
			}
		}
	}

	root := filepath.Join("..", "..", "..", "config")
	var exprs []string
	// PrometheusRule: spec.groups[].rules[].expr
	var rule struct {
		Kind string
		Spec struct {
			Groups []struct {
				Rules []struct {
					Alert, Expr string
				}
			}
		}
	}
	readInto(t, filepath.Join(root, "prometheus", "rules.yaml"), func(b []byte, v any) error { return yaml.Unmarshal(b, v) }, &rule)
	if rule.Kind != "PrometheusRule" {
		t.Errorf("rules.yaml: kind %q", rule.Kind)
	}
	alerts := map[string]bool{}
	for _, g := range rule.Spec.Groups {
		for _, r := range g.Rules {
			exprs = append(exprs, r.Expr)
			alerts[r.Alert] = true
		}
	}
	for _, a := range []string{"StrataPolicyNotAccepted", "StrataReconcileErrors"} {
		if !alerts[a] {
			t.Errorf("rules.yaml: no alert %s", a)
		}
	}
	// Grafana dashboard: panels[].targets[].expr
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	readInto(t, filepath.Join(root, "grafana", "strata-dashboard.json"), json.Unmarshal, &dash)
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	metric := regexp.MustCompile(`\bstrata_[a-z_]+\b`)
	used := map[string]bool{}
	for _, e := range exprs {
		names := metric.FindAllString(e, -1)
		if len(names) == 0 {
			t.Errorf("expression uses no strata_ metric: %s", e)
		}
		for _, n := range names {
			used[n] = true
		}
	}
	var unknown []string
	for n := range used {
		if !registered[n] {
			unknown = append(unknown, n)
		}
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		t.Errorf("metrics referenced but not registered: %v", unknown)
	}
	if len(used) < 5 {
		t.Errorf("only %d metrics referenced: %v", len(used), used)
	}
}

func readInto(t *testing.T, path string, unmarshal func([]byte, any) error, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
