// Package source reads snapshots from files: multi-document YAML or JSON,
// directories and stdin, List objects, every error naming the file and
// document. See docs/cli.md.
package source
