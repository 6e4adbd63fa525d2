// Package e2e tests Strata as it is shipped: the strata binary, built as
// the container image builds it, installed with the manifests of config/
// on a real kube-apiserver and etcd with RBAC on, run as a process under
// its ServiceAccount's identity, and driven the way users drive it, with
// plain clients and the strata CLI.
//
// What a cluster would do around the binary and envtest does not, the
// tests do and say so: the clusterrole-aggregation controller (fill the
// aggregated ClusterRoles' rules), the kubelet (run the Deployment's
// container: its args and env, its ports moved to free ones on loopback,
// a read-only root filesystem unless a volume is mounted at /tmp, and a
// ServiceAccount token from the TokenRequest API) and kube-proxy (the
// webhook Service's ClusterIP, from a Service CIDR on loopback, forwarded
// to the container's port). Nothing is added to the binary's scheme,
// flags or RBAC: what the binary lacks, the tests lack.
//
// The tests are in the package's _test.go files; go test builds the
// binary once (TestMain). Each test has an API server and a controller of
// its own, so they run in parallel.
package e2e
