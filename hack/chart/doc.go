// Package chart tests the Helm chart in charts/strata as Helm renders it:
// the values schema, each value reaching its object, the guards, the chart
// against the kustomize manifests in config/, and both applied to a real
// kube-apiserver (KUBEBUILDER_ASSETS, or bin/envtest). A module of its
// own, to keep Helm out of Strata's go.mod; tests only:
//
//	go -C hack/chart test ./...
package chart
