package promql

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/yaml"

	"github.com/strata-dev/strata/pkg/controller/policies"
)

// configDir is config/ from this folder (go test runs in the package's).
const configDir = "../../config"

// expression is one PromQL expression and where it is written.
type expression struct {
	where, expr string
}

// TestExpressions: every expression of the alert rules and the dashboard
// parses, as Prometheus parses it, and selects only metrics the
// controller exports.
func TestExpressions(t *testing.T) {
	exprs := append(ruleExpressions(t), dashboardExpressions(t)...)
	known := exported(t)
	used := map[string]bool{}
	for _, e := range exprs {
		t.Run(e.where, func(t *testing.T) {
			names, err := selected(e.expr)
			if err != nil {
				t.Fatalf("%s: %v", e.expr, err)
			}
			if len(names) == 0 {
				t.Errorf("%s selects no metric by name", e.expr)
			}
			for _, n := range names {
				used[n] = true
				if !known[n] {
					t.Errorf("%s selects %s, which neither Strata (pkg/controller/policies) nor controller-runtime exports", e.expr, n)
				}
			}
		})
	}
	// The files are read as they are laid out today: an empty result
	// means a path or a field moved, not that all is well.
	if len(exprs) < 10 || len(used) < 5 {
		t.Errorf("found %d expressions selecting %d metrics; did config/prometheus or config/grafana move?", len(exprs), len(used))
	}
}

// TestSelectedRefusesBadPromQL: the parser is really consulted.
func TestSelectedRefusesBadPromQL(t *testing.T) {
	for _, expr := range []string{
		`sum by (kind (strata_policies)`,
		`rate(strata_reconcile_errors_total)`, // rate needs a range
		`histogram_quantile(0.99, strata_reconcile_duration_seconds_bucket[5m]`,
		`strata_policies{state=~"("}`,
	} {
		if _, err := selected(expr); err == nil {
			t.Errorf("%s parsed, want an error", expr)
		}
	}
	names, err := selected(`sum(rate(strata_reconcile_errors_total[5m])) / on() group_left {__name__="strata_engine_runs_total"}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"strata_engine_runs_total", "strata_reconcile_errors_total"}; !slices.Equal(names, want) {
		t.Errorf("selected %v, want %v", names, want)
	}
}

// selected parses expr and returns the metric names its selectors name
// (by name or by an equality matcher on __name__), sorted.
func selected(expr string) ([]string, error) {
	// Grafana's interval variables are not PromQL; Grafana replaces them
	// by a duration before it sends the query.
	for _, v := range []string{"$__rate_interval", "$__interval", "$__range"} {
		expr = strings.ReplaceAll(expr, v, "5m")
	}
	// Without experimental features, as a Prometheus started without
	// feature flags parses.
	ast, err := parser.NewParser(parser.Options{}).ParseExpr(expr)
	if err != nil {
		return nil, err
	}
	var names []string
	parser.Inspect(ast, func(n parser.Node, _ []parser.Node) error {
		vs, ok := n.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		for _, m := range vs.LabelMatchers {
			if m.Name == model.MetricNameLabel && m.Type == labels.MatchEqual {
				names = append(names, m.Value)
			}
		}
		return nil
	})
	slices.Sort(names)
	return slices.Compact(names), nil
}

// ruleExpressions are the expr of every rule of the PrometheusRule.
func ruleExpressions(t *testing.T) []expression {
	t.Helper()
	var rule struct {
		Kind string
		Spec struct {
			Groups []struct {
				Name  string
				Rules []struct {
					Alert, Record, Expr, For string
				}
			}
		}
	}
	read(t, filepath.Join(configDir, "prometheus", "rules.yaml"), func(b []byte, v any) error { return yaml.Unmarshal(b, v) }, &rule)
	if rule.Kind != "PrometheusRule" {
		t.Fatalf("config/prometheus/rules.yaml: kind %q, want PrometheusRule", rule.Kind)
	}
	var out []expression
	for _, g := range rule.Spec.Groups {
		for _, r := range g.Rules {
			where := "rules.yaml/" + g.Name + "/" + r.Alert + r.Record
			if _, err := model.ParseDuration(r.For); r.For != "" && err != nil {
				t.Errorf("%s: for: %v", where, err)
			}
			out = append(out, expression{where, r.Expr})
		}
	}
	return out
}

// dashboardExpressions are the expr of every target of every panel of
// the dashboard, rows' nested panels included.
func dashboardExpressions(t *testing.T) []expression {
	t.Helper()
	var dash struct{ Panels []panel }
	read(t, filepath.Join(configDir, "grafana", "strata-dashboard.json"), json.Unmarshal, &dash)
	var out []expression
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			for i, tg := range p.Targets {
				if tg.Expr != "" {
					out = append(out, expression{"dashboard/" + p.Title + "/" + string(rune('A'+i)), tg.Expr})
				}
			}
			walk(p.Panels)
		}
	}
	walk(dash.Panels)
	return out
}

// panel is the part of a Grafana panel that holds queries.
type panel struct {
	Title   string
	Targets []struct{ Expr string }
	Panels  []panel
}

func read(t *testing.T, path string, unmarshal func([]byte, any) error, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// exported are the metric names the controller's process exports:
// Strata's (policies.MetricNames) and controller-runtime's, gathered from
// its registry once a controller has initialised its series (the
// reconcile and workqueue families get their children when a controller
// starts; a controller started with a cancelled context returns at once,
// without an API server). Series that appear only once observed (such as
// controller_runtime_reconcile_time_seconds, rest_client_*) are not
// listed: an expression using one fails here until this test observes
// it too.
func exported(t *testing.T) map[string]bool {
	t.Helper()
	names, err := policies.MetricNames()
	if err != nil {
		t.Fatal(err)
	}
	c, err := controller.NewUnmanaged("promql-test", controller.Options{
		Reconciler: reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }),
		// The same name again when the test runs again in one process.
		SkipNameValidation: ptr.To(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	mfs, err := crmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		names = append(names, mf.GetName())
		if mf.GetType().String() == "HISTOGRAM" {
			names = append(names, mf.GetName()+"_bucket", mf.GetName()+"_sum", mf.GetName()+"_count")
		}
	}
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	for _, want := range []string{"strata_policies", "controller_runtime_reconcile_total", "workqueue_adds_total"} {
		if !known[want] {
			t.Fatalf("%s is not among the exported metrics %v", want, names)
		}
	}
	return known
}
