// Package chart tests the Helm chart in charts/strata as Helm itself
// renders it (helm.sh/helm/v3 as a library, what `helm template` runs):
// the values schema, each value reaching the object it configures, the
// guards written with fail and required, the chart against the kustomize
// manifests in config/, and both applied to a real kube-apiserver
// (server-side apply, dry run).
//
// It is a module of its own so that Helm and its dependencies stay out of
// Strata's go.mod; it holds tests only:
//
//	go -C hack/chart test ./...
//
// The apply test needs kube-apiserver and etcd: KUBEBUILDER_ASSETS, which
// the README's test command (go run ./hack/test) sets, or bin/envtest at
// the repository root, where that command builds them.
package chart
