// Package routing decides where Gateway API sends one HTTP request, or
// one TLS, TCP or UDP connection: which Gateway listener accepts it,
// which route rule and match win under Gateway API's precedence rules,
// what the rule's filters do to the request, and which backends receive
// it, with the reason for every listener, route and match it passed
// over. It answers the first half of GEP-713's question "What happens
// when a network request X comes in?" ("The discoverability problem");
// package query answers the second half, the effective policies along the
// chosen path.
//
//	Request ──Route(graph, request, gateway)──> Trace
//	          listeners: protocol (the URL's scheme), port, hostname
//	                     (the Host, or a TLS connection's SNI; most
//	                     specific wins)
//	          routes:    the scheme's kinds (HTTPRoute and GRPCRoute;
//	                     TLSRoute and TCPRoute; TCPRoute; UDPRoute),
//	                     hostnames (intersected with the listener's)
//	          matches:   path, method, headers, query params (HTTPRoute);
//	                     service and method of POST /service/method,
//	                     headers (GRPCRoute); any connection (the others)
//	          winner:    the precedence order of HTTPRouteRule.matches
//	                     and GRPCRouteRule.matches (match.go)
//	          filters:   the rule's, then each backendRef's, applied in
//	                     order (Apply, filters.go): the request forwarded,
//	                     or the Gateway's own answer, the mirrors, the
//	                     response's header changes
//
// Within follows a request through one route alone, for a reader who
// cannot see the listener.
//
// It reads the engine's topology: the routes a listener holds are the
// ones the graph attached to it (parentRefs, allowedRoutes, hostname
// intersection), so the simulation and the effective policies agree on
// what is attached where. Plain data in, plain data out, deterministic.
package routing
