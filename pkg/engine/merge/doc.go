// Package merge holds merge functions over specs that remember which
// policy set every field: Atomic, Patch (RFC 7386) and custom ones such as
// MergeByKey, selected by name from a Registry. See docs/merging.md.
package merge
