// Package promql checks, with Prometheus' own parser, the PromQL of the
// alert rules in config/prometheus/rules.yaml and the Grafana dashboard
// config/grafana/strata-dashboard.json: every expression must parse and
// select only metrics the controller exports. A module of its own, to
// keep Prometheus out of Strata's go.mod; tests only:
//
//	go -C hack/promql test ./...
package promql
