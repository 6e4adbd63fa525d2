// Package web is `strata serve`: a read-only web view of one engine
// result, a thin adapter over package query. GEP-713 "The discoverability
// problem" asks that a user can see which policies affect an object and
// what is in force; the web view draws the topology (GatewayClass >
// Gateway > listener > route > rule > Service) with the policies attached
// where they target, coloured by their standing, and shows an object's
// page (query.Describe), a policy's page (query.DescribePolicy and its
// blast radius, query.Without + query.Compare) and a search.
//
// The world can be large (1,000 Gateways, 20,000 routes: issue 11's
// workload), so nothing ever draws all of it: the server sends a focused
// neighbourhood (Neighbourhood), capped, with aggregate nodes standing for
// what is left out ("and 312 more HTTPRoutes"), and the start page is an
// overview (Summarize). Layout is layered by hierarchy level, computed
// here in Go so that it is deterministic and tested.
//
// The pages are hand-written HTML, CSS and vanilla JavaScript embedded in
// the binary (assets/): no build step, no Node, no CDN.
package web
