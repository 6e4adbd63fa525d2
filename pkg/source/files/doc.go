// Package files reads snapshots from files: multi-document YAML or JSON,
// directories and stdin, List objects, every error naming the file and
// document. Objects read from a cluster are documents too: the CLI lays
// files over them (Overlay) and decodes them as it decodes files (Decode).
// Block-style YAML, what kubectl and sigs.k8s.io/yaml write, takes a fast
// path (transcode.go) that must read as sigs.k8s.io/yaml does; the rest
// takes sigs.k8s.io/yaml itself. Either way the JSON of an object is
// decoded into its typed object by encoding/json/v2 (go-json-experiment)
// with Kubernetes' semantics, or into the generic tree of unstructured
// objects. See docs/cli.md.
package files
