package render

import (
	"maps"
	"slices"

	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/engine/topology"
)

// Hostnames is what templates read as .Hostnames: the hosts a Gateway (or
// one HTTPRoute on it) is about, sorted and without duplicates.
type Hostnames struct {
	// Union is every listener hostname of the Gateway and every hostname
	// of the routes considered: what a certificate or a DNS record might
	// have to cover.
	Union []string `json:"Union"`
	// Intersection is the hostnames actually served: for every listener
	// and route attached to it, their Gateway API hostname intersection
	// (HTTPRoute spec.hostnames).
	Intersection []string `json:"Intersection"`
}

// hostnamesOf computes Hostnames for gw and routes (attached routes: all
// for a Gateway render, the one route for an HTTPRoute render).
func hostnamesOf(gw *gwv1.Gateway, routes []*gwv1.HTTPRoute) Hostnames {
	union := map[string]bool{}
	served := map[string]bool{}
	for _, l := range gw.Spec.Listeners {
		if l.Hostname != nil && *l.Hostname != "" {
			union[string(*l.Hostname)] = true
		}
	}
	for _, r := range routes {
		if r == nil {
			continue
		}
		for _, h := range r.Spec.Hostnames {
			if h != "" {
				union[string(h)] = true
			}
		}
		for _, l := range listenersOf(gw, r) {
			lh := string(ptr.Deref(l.Hostname, ""))
			if len(r.Spec.Hostnames) == 0 {
				if lh != "" {
					served[lh] = true
				}
				continue
			}
			for _, h := range r.Spec.Hostnames {
				if v, ok := intersectHostnames(lh, string(h)); ok {
					served[v] = true
				}
			}
		}
	}
	return Hostnames{Union: sortedSet(union), Intersection: sortedSet(served)}
}

// intersectHostnames is the hostname a listener hostname and a route
// hostname both match, the more specific of the two; "" is "any host".
func intersectHostnames(listener, route string) (string, bool) {
	switch {
	case listener == "" && route == "":
		return "", false
	case listener == "":
		return route, true
	case route == "":
		return listener, true
	case !topology.HostnamesIntersect(listener, route):
		return "", false
	}
	lw, rw := isWildcard(listener), isWildcard(route)
	switch {
	case lw && !rw:
		return route, true
	case rw && !lw:
		return listener, true
	case len(route) > len(listener):
		return route, true
	}
	return listener, true
}

func isWildcard(h string) bool { return len(h) > 1 && h[0] == '*' && h[1] == '.' }

// listenersOf returns the listeners of gw route r is on: those its
// parentRefs to gw select by sectionName and port, among the listeners
// accepting HTTPRoutes. A route none of whose parentRefs names gw (the
// caller said it is attached) is taken to be on every such listener.
func listenersOf(gw *gwv1.Gateway, r *gwv1.HTTPRoute) []gwv1.Listener {
	var refs []gwv1.ParentReference
	for _, p := range r.Spec.ParentRefs {
		if refersTo(p, r.Namespace, gw) {
			refs = append(refs, p)
		}
	}
	var out []gwv1.Listener
	for _, l := range gw.Spec.Listeners {
		if !acceptsHTTPRoute(l) {
			continue
		}
		if len(refs) == 0 || slices.ContainsFunc(refs, func(p gwv1.ParentReference) bool {
			return (p.SectionName == nil || *p.SectionName == l.Name) && (p.Port == nil || *p.Port == l.Port)
		}) {
			out = append(out, l)
		}
	}
	return out
}

// refersTo reports whether parentRef p of a route in namespace ns names
// gw (group and kind default to Gateway API's Gateway, namespace to the
// route's).
func refersTo(p gwv1.ParentReference, ns string, gw *gwv1.Gateway) bool {
	if p.Group != nil && *p.Group != gwv1.GroupName {
		return false
	}
	if p.Kind != nil && *p.Kind != "Gateway" {
		return false
	}
	if p.Namespace != nil && *p.Namespace != "" {
		ns = string(*p.Namespace)
	}
	return ns == gw.Namespace && string(p.Name) == gw.Name
}

// acceptsHTTPRoute reports whether a listener takes HTTPRoutes: those
// listed in allowedRoutes.kinds, or by default HTTP and HTTPS listeners
// (Gateway API Listener.allowedRoutes).
func acceptsHTTPRoute(l gwv1.Listener) bool {
	if l.AllowedRoutes != nil && len(l.AllowedRoutes.Kinds) > 0 {
		for _, k := range l.AllowedRoutes.Kinds {
			if (k.Group == nil || *k.Group == gwv1.GroupName) && k.Kind == "HTTPRoute" {
				return true
			}
		}
		return false
	}
	return l.Protocol == gwv1.HTTPProtocolType || l.Protocol == gwv1.HTTPSProtocolType
}

// sortedSet lists a set's members in order; never nil, so an empty list
// prints as [] in templates.
func sortedSet(m map[string]bool) []string {
	return append([]string{}, slices.Sorted(maps.Keys(m))...)
}
