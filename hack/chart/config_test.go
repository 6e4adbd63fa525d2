package chart

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestChartCRDsAreGenerated: Helm installs CRDs from the chart's crds/
// folder, which hack/generate.sh copies from config/crd/bases.
func TestChartCRDsAreGenerated(t *testing.T) {
	want, err := filepath.Glob(filepath.Join(configDir, "crd", "bases", "*.yaml"))
	if err != nil || len(want) == 0 {
		t.Fatalf("no CRDs in config/crd/bases (%v)", err)
	}
	ch, err := loadChart()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]byte{}
	for _, f := range ch.CRDObjects() {
		got[filepath.Base(f.Filename)] = f.File.Data
	}
	var wantNames, gotNames []string
	for _, p := range want {
		wantNames = append(wantNames, filepath.Base(p))
	}
	for n := range got {
		gotNames = append(gotNames, n)
	}
	sort.Strings(gotNames)
	if d := cmp.Diff(wantNames, gotNames); d != "" {
		t.Fatalf("charts/strata/crds differs from config/crd/bases; run hack/generate.sh (-bases +chart):\n%s", d)
	}
	for _, p := range want {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, got[filepath.Base(p)]) {
			t.Errorf("charts/strata/crds/%s differs from config/crd/bases; run hack/generate.sh", filepath.Base(p))
		}
	}
}

// TestChartMatchesKustomize: the chart with its default values and
// config/default install the same pod, apart from names, labels, the pull
// policy and the chart's explicit --target-qps and --zap-log-level
// (config/ keeps the controller's defaults).
func TestChartMatchesKustomize(t *testing.T) {
	chart := mustRender(t, "").objs
	kust, err := kustomizeBuild("default")
	if err != nil {
		t.Fatal(err)
	}
	podSpec := func(objs []*unstructured.Unstructured) map[string]any {
		for _, o := range objs {
			if o.GetKind() == "Deployment" {
				spec, _, _ := unstructured.NestedMap(o.Object, "spec", "template", "spec")
				delete(spec, "serviceAccountName")
				containers := spec["containers"].([]any)
				c := containers[0].(map[string]any)
				delete(c, "imagePullPolicy")
				c["args"] = slices.DeleteFunc(c["args"].([]any), func(a any) bool {
					return strings.HasPrefix(a.(string), "--target-qps=") || strings.HasPrefix(a.(string), "--zap-log-level=")
				})
				return spec
			}
		}
		return nil
	}
	a, b := podSpec(kust), podSpec(chart)
	if a == nil || b == nil || !reflect.DeepEqual(a, b) {
		t.Errorf("pod specs differ (-kustomize +chart):\n%s", cmp.Diff(a, b))
	}
}

// TestChartRBACMatchesConfig: the chart grants what config/rbac grants,
// rule for rule, so config/rbac's comments (and config/rbac_test.go's
// check against the hierarchy table) hold for the chart too. Objects are
// paired by their role: the aggregated ClusterRole, its fixed rules, the
// leader election Role.
func TestChartRBACMatchesConfig(t *testing.T) {
	chart := mustRender(t, "").objs
	kust, err := kustomizeBuild("rbac")
	if err != nil {
		t.Fatal(err)
	}
	pairs := []struct{ kind, config, chart string }{
		{"ClusterRole", "strata-controller", "strata"},
		{"ClusterRole", "strata-controller-base", "strata-base"},
		{"Role", "strata-leader-election", "strata-leader-election"},
		{"ClusterRole", "strata-metrics-auth", "strata-metrics-auth"},
		{"ClusterRole", "strata-metrics-reader", "strata-metrics-reader"},
		{"ClusterRole", "strata-effectivepolicy-viewer", "strata-effectivepolicy-viewer"},
	}
	for _, p := range pairs {
		t.Run(p.config, func(t *testing.T) {
			want, got := roleOf(t, kust, p.kind, p.config), roleOf(t, chart, p.kind, p.chart)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s %s (config/rbac) and %s (chart) differ (-config +chart):\n%s", p.kind, p.config, p.chart, d)
			}
		})
	}
	// Both bind the aggregated role, not the base one.
	for _, o := range chart {
		if o.GetKind() == "ClusterRoleBinding" && o.GetName() != "strata-metrics-auth" {
			if name, _, _ := unstructured.NestedString(o.Object, "roleRef", "name"); name != "strata" {
				t.Errorf("ClusterRoleBinding %s binds %s, want the aggregated ClusterRole strata", o.GetName(), name)
			}
		}
	}
}

// TestChartGatewayAPIViewerMatchesConfig: gatewayAPIViewer.enabled
// renders config/view's ClusterRole, rule for rule and with the same
// aggregation labels; off (the default), no role of the chart aggregates
// into view but the EffectivePolicy viewer, as config/default installs
// none either.
func TestChartGatewayAPIViewerMatchesConfig(t *testing.T) {
	kust, err := kustomizeBuild("view")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, values string
		want         bool
	}{
		{"default", "", false},
		{"off", "gatewayAPIViewer: {enabled: false}", false},
		{"on", "gatewayAPIViewer: {enabled: true}", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := mustRender(t, tc.values)
			var toView []string
			for _, o := range r.objs {
				if o.GetLabels()["rbac.authorization.k8s.io/aggregate-to-view"] == "true" {
					toView = append(toView, o.GetName())
				}
			}
			want := []string{"strata-effectivepolicy-viewer"}
			if tc.want {
				want = append(want, "strata-gateway-api-viewer")
			}
			slices.Sort(toView)
			if d := cmp.Diff(want, toView); d != "" {
				t.Errorf("roles aggregated into view (-want +got):\n%s", d)
			}
			if !tc.want {
				return
			}
			cfg, chart := roleOf(t, kust, "ClusterRole", "strata-gateway-api-viewer"), roleOf(t, r.objs, "ClusterRole", "strata-gateway-api-viewer")
			if d := cmp.Diff(cfg, chart); d != "" {
				t.Errorf("config/view and the chart's role differ (-config +chart):\n%s", d)
			}
			aggregation := func(objs []*unstructured.Unstructured) map[string]string {
				for _, o := range objs {
					if o.GetName() == "strata-gateway-api-viewer" {
						out := map[string]string{}
						for k, v := range o.GetLabels() {
							if strings.HasPrefix(k, "rbac.authorization.k8s.io/") {
								out[k] = v
							}
						}
						return out
					}
				}
				return nil
			}
			if d := cmp.Diff(aggregation(kust), aggregation(r.objs)); d != "" {
				t.Errorf("aggregation labels differ (-config +chart):\n%s", d)
			}
		})
	}
}

// role is what a Role or ClusterRole grants.
type role struct {
	Rules       []rbacv1.PolicyRule
	Aggregation *rbacv1.AggregationRule
	// Aggregated is whether the role is labelled to join the controller's
	// aggregated ClusterRole.
	Aggregated string
}

func roleOf(t *testing.T, objs []*unstructured.Unstructured, kind, name string) role {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() != kind || o.GetName() != name {
			continue
		}
		var r rbacv1.ClusterRole // a Role's fields are a subset
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &r); err != nil {
			t.Fatal(err)
		}
		return role{Rules: r.Rules, Aggregation: r.AggregationRule, Aggregated: o.GetLabels()["strata.dev/aggregate-to-controller"]}
	}
	t.Fatalf("no %s %s", kind, name)
	return role{}
}

// TestValuesDocumented: every value the schema allows has a row in the
// chart's README and in docs/install.md, so a new value cannot go
// undocumented. Values are the schema's leaves: closed objects are
// descended into, anything else (free-form maps and lists) is one row.
func TestValuesDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(chartDir, "values.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	keys := leaves("", schema)
	if len(keys) < 20 {
		t.Fatalf("only %d values found in the schema: %v", len(keys), keys)
	}
	for _, doc := range []string{filepath.Join(chartDir, "README.md"), "../../docs/install.md"} {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if !bytes.Contains(text, []byte("`"+k+"`")) {
				t.Errorf("%s: no row for the value `%s`", doc, k)
			}
		}
	}
}

// leaves lists the dotted names of a schema's values.
func leaves(prefix string, s map[string]any) []string {
	props, ok := s["properties"].(map[string]any)
	if !ok || s["type"] != "object" || s["additionalProperties"] != false {
		return []string{prefix}
	}
	var out []string
	for name, sub := range props {
		p := name
		if prefix != "" {
			p = prefix + "." + name
		}
		out = append(out, leaves(p, sub.(map[string]any))...)
	}
	sort.Strings(out)
	return out
}

// TestServiceMonitorMatchesConfig: the chart's ServiceMonitor (with
// metrics.secure, the default) scrapes as config/prometheus/monitor.yaml
// does: HTTPS, the ServiceAccount token, the same tlsConfig. Neither is
// applied to the API server (the Prometheus Operator's CRDs are not
// installed), so this is their check.
func TestServiceMonitorMatchesConfig(t *testing.T) {
	chart := mustRender(t, "serviceMonitor: {enabled: true}").find("ServiceMonitor", "strata")
	if chart == nil {
		t.Fatal("no ServiceMonitor strata")
	}
	b, err := os.ReadFile(filepath.Join(configDir, "prometheus", "monitor.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	objs, err := decodeYAML(b)
	if err != nil || len(objs) != 1 || objs[0].GetKind() != "ServiceMonitor" {
		t.Fatalf("config/prometheus/monitor.yaml: want one ServiceMonitor, got %d objects (%v)", len(objs), err)
	}
	want, _, _ := unstructured.NestedSlice(objs[0].Object, "spec", "endpoints")
	got, _, _ := unstructured.NestedSlice(chart.Object, "spec", "endpoints")
	if len(want) == 0 || !reflect.DeepEqual(want, got) {
		t.Errorf("endpoints differ (-config/prometheus +chart):\n%s", cmp.Diff(want, got))
	}
	// config's selects config/manager's Service.
	sel, _, _ := unstructured.NestedStringMap(objs[0].Object, "spec", "selector", "matchLabels")
	svc, err := kustomizeBuild("default")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range svc {
		if o.GetKind() == "Service" {
			for k, v := range sel {
				if o.GetLabels()[k] != v {
					t.Errorf("config/prometheus/monitor.yaml selects %s=%s; Service %s has %q", k, v, o.GetName(), o.GetLabels()[k])
				}
			}
			if ns := objs[0].GetNamespace(); ns != o.GetNamespace() {
				t.Errorf("ServiceMonitor in %s, Service in %s", ns, o.GetNamespace())
			}
		}
	}
}
