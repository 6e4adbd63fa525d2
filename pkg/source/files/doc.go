// Package files reads snapshots from files: multi-document YAML or JSON,
// directories and stdin, List objects, every error naming the file and
// document. Objects read from a cluster are documents too: the CLI lays
// files over them (Overlay) and decodes them as it decodes files (Decode).
// Block-style YAML, what kubectl and sigs.k8s.io/yaml write, takes a fast
// path (transcode.go) that must read as sigs.k8s.io/yaml does; the rest
// takes sigs.k8s.io/yaml itself. JSON, and the items of a List (a
// `kubectl get -o json|yaml` dump), go straight to their typed objects
// (jsonlist.go, yamllist.go), or, when anything is not as that quick path
// assumes, the careful way, whose errors are the ones reported. See
// docs/cli.md.
package files
