// Package release tests Strata's release recipe: .goreleaser.yaml, loaded
// by goreleaser's strict loader, builds what RELEASING.md promises.
package release
