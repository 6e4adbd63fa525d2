// Package web is `strata serve`: a read-only web view of one engine
// result over package query, for GEP-713 "The discoverability problem":
// the topology with the policies attached, coloured by standing, an
// object's page, a policy's page with its blast radius, and a search.
// Nothing draws all of a large world: a capped neighbourhood with
// aggregate nodes, laid out here in Go by hierarchy level, and an
// overview. The pages are plain HTML, CSS and JavaScript (assets/).
package web
