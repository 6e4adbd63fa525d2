// Package source reads snapshots from files: multi-document YAML or JSON,
// directories and stdin, List objects, every error naming the file and
// document. Objects read from a cluster are documents too: the CLI lays
// files over them (Overlay) and decodes them as it decodes files (Decode).
// See docs/cli.md.
package source
