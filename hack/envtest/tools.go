//go:build tools

// Package envtest pins the kube-apiserver command in this module's go.mod.
package envtest

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
