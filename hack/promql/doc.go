// Package promql checks the PromQL expressions Strata ships, as
// Prometheus itself parses them (github.com/prometheus/prometheus/promql/parser):
// the alert rules in config/prometheus/rules.yaml and the queries of the
// Grafana dashboard config/grafana/strata-dashboard.json. Every
// expression must parse, and every metric it selects must be one the
// controller exports: Strata's own (pkg/controller/policies MetricNames)
// or controller-runtime's. A typo in a rule would otherwise only show in
// Prometheus' log once installed, and a renamed metric would silently
// blank a panel or never fire an alert.
//
// It is a module of its own so that Prometheus and its dependencies stay
// out of Strata's go.mod; it holds tests only:
//
//	go -C hack/promql test ./...
package promql
