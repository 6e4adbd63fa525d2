package blueprints

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/blueprint"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// attachment is how HTTPRoutes attach to one Gateway's listeners. It is
// computed by pkg/engine/topology, the same code that attaches routes for the
// policy engine and `strata render`: parentRef name, namespace,
// sectionName and port; allowedRoutes namespaces (Same, All, Selector on
// the Namespace's labels) and kinds; hostname intersection.
type attachment struct {
	gw    *gwv1.Gateway
	graph *topology.Graph
	gwID  topology.NodeID
	// routes are the HTTPRoutes attached to at least one listener, sorted
	// by namespace/name (render.Input.Routes).
	routes []*gwv1.HTTPRoute
	// listeners count the routes attached to each listener, in spec order.
	listeners []blueprint.ListenerRoutes
	// namespaces by name, of the Gateway and of the routes naming it.
	namespaces map[string]*corev1.Namespace
}

// attach reads the routes naming gw as a parent (index), their namespaces
// and builds their topology with the Gateway.
func (c *Controller) attach(ctx context.Context, gw *gwv1.Gateway) (*attachment, error) {
	rl := &gwv1.HTTPRouteList{}
	if err := c.cache.List(ctx, rl, client.MatchingFields{indexRouteParent: gw.Namespace + "/" + gw.Name}); err != nil {
		return nil, fmt.Errorf("list HTTPRoutes of Gateway %s/%s: %w", gw.Namespace, gw.Name, err)
	}
	a := &attachment{gw: gw, namespaces: map[string]*corev1.Namespace{}}
	s := &snapshot.Snapshot{Gateways: []*gwv1.Gateway{gw}}
	for _, ns := range append([]string{gw.Namespace}, routeNamespaces(rl.Items)...) {
		if _, seen := a.namespaces[ns]; seen {
			continue
		}
		n := &corev1.Namespace{}
		if err := c.cache.Get(ctx, client.ObjectKey{Name: ns}, n); err != nil {
			if !apierrors.IsNotFound(err) {
				return nil, err
			}
			n = nil
		}
		a.namespaces[ns] = n
		if n != nil {
			s.Namespaces = append(s.Namespaces, n)
		}
	}
	for i := range rl.Items {
		s.HTTPRoutes = append(s.HTTPRoutes, &rl.Items[i])
	}
	a.graph = topology.Build(s)
	a.gwID = a.graph.Lookup(gatewayRef(gw))
	a.routes, a.listeners = blueprint.Attached(a.graph, gw)
	return a, nil
}

func routeNamespaces(rs []gwv1.HTTPRoute) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Namespace)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func gatewayRef(gw *gwv1.Gateway) topology.Ref {
	return topology.Ref{Group: hierarchy.GatewayGroup, Kind: "Gateway", Namespace: gw.Namespace, Name: gw.Name}
}

// attached counts the routes attached to a listener (ListenerStatus
// attachedRoutes).
func (a *attachment) attached(listener gwv1.SectionName) int32 {
	for _, l := range a.listeners {
		if l.Name == string(listener) {
			return l.AttachedRoutes
		}
	}
	return 0
}

func (a *attachment) listenerChildren(listener gwv1.SectionName) []topology.NodeID {
	if a.gwID == topology.None {
		return nil
	}
	lid, ok := a.graph.Node(a.gwID).Sections.Get(string(listener))
	if !ok {
		return nil
	}
	return a.graph.Node(lid).Children
}

// listenersOf lists the listeners a route is attached to.
func (a *attachment) listenersOf(r *gwv1.HTTPRoute) []gwv1.SectionName {
	rid := a.graph.Lookup(topology.Ref{Group: hierarchy.GatewayGroup, Kind: "HTTPRoute", Namespace: r.Namespace, Name: r.Name})
	if rid == topology.None {
		return nil
	}
	var out []gwv1.SectionName
	for _, l := range a.gw.Spec.Listeners {
		if slices.Contains(a.listenerChildren(l.Name), rid) {
			out = append(out, l.Name)
		}
	}
	return out
}

// parentAccepted says whether one parentRef of a route (naming this
// Gateway) attaches it, and if not, the Gateway API reason: no listener
// matches the parentRef's sectionName and port (NoMatchingParent), or
// listeners match but none allows the route (NotAllowedByListeners; a
// hostname mismatch is reported as NoMatchingListenerHostname).
func (a *attachment) parentAccepted(r *gwv1.HTTPRoute, p gwv1.ParentReference) (bool, gwv1.RouteConditionReason, string) {
	attached := a.listenersOf(r)
	var matching []gwv1.Listener
	for _, l := range a.gw.Spec.Listeners {
		if p.SectionName != nil && *p.SectionName != l.Name || p.Port != nil && *p.Port != l.Port {
			continue
		}
		matching = append(matching, l)
		if slices.Contains(attached, l.Name) {
			return true, gwv1.RouteReasonAccepted, fmt.Sprintf("attached to Gateway %s/%s", a.gw.Namespace, a.gw.Name)
		}
	}
	if len(matching) == 0 {
		return false, gwv1.RouteReasonNoMatchingParent, fmt.Sprintf("Gateway %s/%s has no listener matching the parentRef's sectionName and port", a.gw.Namespace, a.gw.Name)
	}
	for _, l := range matching {
		if l.Hostname != nil && len(r.Spec.Hostnames) > 0 && a.allowedIgnoringHostname(r, l) {
			return false, gwv1.RouteReasonNoMatchingListenerHostname, fmt.Sprintf("no hostname of the route intersects the hostname %q of listener %s", *l.Hostname, l.Name)
		}
	}
	return false, gwv1.RouteReasonNotAllowedByListeners, fmt.Sprintf("no listener of Gateway %s/%s allows the route (allowedRoutes namespaces and kinds)", a.gw.Namespace, a.gw.Name)
}

// allowedIgnoringHostname re-runs attachment for one listener without its
// hostname, to tell a hostname mismatch from allowedRoutes.
func (a *attachment) allowedIgnoringHostname(r *gwv1.HTTPRoute, l gwv1.Listener) bool {
	gw := a.gw.DeepCopy()
	l.Hostname = nil
	gw.Spec.Listeners = []gwv1.Listener{l}
	s := &snapshot.Snapshot{Gateways: []*gwv1.Gateway{gw}, HTTPRoutes: []*gwv1.HTTPRoute{r}}
	for _, n := range a.namespaces {
		if n != nil {
			s.Namespaces = append(s.Namespaces, n)
		}
	}
	b := &attachment{gw: gw, graph: topology.Build(s)}
	b.gwID = b.graph.Lookup(gatewayRef(gw))
	return len(b.listenersOf(r)) > 0
}
