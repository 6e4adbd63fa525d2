// Package release holds the test of Strata's release recipe: it loads
// .goreleaser.yaml with goreleaser's configuration loader, which refuses
// unknown keys, and checks that the recipe builds what RELEASING.md
// promises. goreleaser itself needs the network to release; its loader
// does not, so the recipe is checked in every CI run.
package release
