// Package routing decides where Gateway API sends one HTTP request: which
// Gateway listener accepts it, which HTTPRoute or GRPCRoute rule and match
// win under Gateway API's precedence rules, and which backends receive
// it, with the reason for every listener, route and match it passed
// over. It answers the first half of GEP-713's question "What happens
// when a network request X comes in?" ("The discoverability problem");
// package query answers the second half, the effective policies along the
// chosen path.
//
//	Request ──Route(graph, request, gateway)──> Trace
//	          listeners: protocol, port, hostname (most specific wins)
//	          routes:    hostnames (intersected with the listener's)
//	          matches:   path, method, headers, query params (HTTPRoute);
//	                     service and method of POST /service/method,
//	                     headers (GRPCRoute)
//	          winner:    the precedence order of HTTPRouteRule.matches
//	                     and GRPCRouteRule.matches (match.go)
//
// It reads the engine's topology: the routes a listener holds are the
// ones the graph attached to it (parentRefs, allowedRoutes, hostname
// intersection), so the simulation and the effective policies agree on
// what is attached where. Plain data in, plain data out, deterministic.
package routing
