// Package routing decides where Gateway API sends one HTTP request, or
// one TLS, TCP or UDP connection: which Gateway listener accepts it, which
// route rule and match win under Gateway API's precedence rules (match.go),
// what the rule's filters do (filters.go), and which backends receive it,
// with the reason for every listener, route and match passed over. It
// answers the first half of GEP-713's "What happens when a network request
// X comes in?" ("The discoverability problem"); package query answers the
// second, the effective policies along the chosen path. It reads the
// engine's topology, so the simulation and the effective policies agree on
// what is attached where.
package routing
