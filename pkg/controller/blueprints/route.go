package blueprints

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1b1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"github.com/strata-dev/strata/pkg/blueprint"
	"github.com/strata-dev/strata/pkg/blueprint/render"
	"github.com/strata-dev/strata/pkg/blueprint/values"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

var routeGVK = schema.GroupVersionKind{Group: gwv1.GroupName, Version: "v1", Kind: "HTTPRoute"}

// maxParents is RouteStatus.parents' MaxItems.
const maxParents = 32

// reconcileRoute renders an HTTPRoute once for every Gateway of a served
// class it attaches to, with the blueprint's httpRouteTemplate, and writes
// one status.parents entry per parentRef naming such a Gateway. Each
// Gateway is a render scope of its own: a failure for one does not hold
// back the others. Children of a Gateway the route no longer attaches to
// are deleted.
func (c *Controller) reconcileRoute(ctx context.Context, k key) (reconcile.Result, error) {
	r := &gwv1.HTTPRoute{}
	if err := c.cache.Get(ctx, k.nn(), r); err != nil {
		if apierrors.IsNotFound(err) {
			c.forgetRenders(k, nil)
			return reconcile.Result{}, c.orphaned(ctx, k)
		}
		return reconcile.Result{}, err
	}
	p := parentObj{key: k, obj: r, gvk: routeGVK}
	inv := c.inventory(r)
	c.remembers(k, inv)

	resolved, err := c.resolvedRefs(ctx, r)
	if err != nil {
		return reconcile.Result{}, err
	}
	var (
		res     reconcile.Result
		entries []gwv1.RouteParentStatus
		keep    = map[string]bool{}
		configs []*values.Config
		// renderedFor are the Gateways the route was rendered for now: the
		// refusals recorded for others are dropped (config.go).
		renderedFor = map[string]bool{}
	)
	for _, g := range routeGateways(r) {
		gw := &gwv1.Gateway{}
		if err := c.cache.Get(ctx, g, gw); err != nil {
			if apierrors.IsNotFound(err) {
				continue
			}
			return reconcile.Result{}, err
		}
		class, err := c.class(ctx, string(gw.Spec.GatewayClassName))
		if err != nil {
			return reconcile.Result{}, err
		}
		if class == nil {
			keep[g.String()] = true // as for the Gateway: kept until the class is back
			continue
		}
		if string(class.Spec.ControllerName) != c.opts.ControllerName {
			continue
		}
		a, err := c.attach(ctx, gw)
		if err != nil {
			return reconcile.Result{}, err
		}
		scope := g.String()
		attached := len(a.listenersOf(r)) > 0
		// failed replaces Accepted of the attached parentRefs when the
		// render for this Gateway did not apply.
		var failed *metav1.Condition
		if attached {
			cp, err := c.plan(ctx, class)
			if err != nil {
				return reconcile.Result{}, err
			}
			switch {
			case cp.Err != nil:
				keep[scope] = true
				failed = ptr.To(condition(string(gwv1.RouteConditionAccepted), false, string(gwv1.GatewayReasonInvalidParameters),
					fmt.Sprintf("GatewayClass %s is not accepted: %v", class.Name, cp.Err)))
			case cp.Blueprint.Spec.HTTPRouteTemplate != nil:
				keep[scope] = true
				if configs == nil {
					if configs, err = c.configs(ctx); err != nil {
						return reconcile.Result{}, err
					}
				}
				renderedFor[scope] = true
				rr, err := c.renderScope(ctx, p, inv, scope, configs, render.Input{
					Blueprint: cp.Blueprint, Class: class, Gateway: a.gw, Route: r, Routes: a.routes, Namespace: a.namespaces[r.Namespace],
				})
				inv = rr.inv
				if err != nil {
					return reconcile.Result{}, err
				}
				if rr.refused != "" {
					rr.failed = "nothing applied: " + rr.refused
					res.RequeueAfter = refusalRetry
				}
				if rr.failed != "" {
					failed = ptr.To(condition(string(gwv1.RouteConditionAccepted), false, string(gwv1.GatewayReasonInvalidParameters), rr.failed))
				}
			}
		}
		for _, ref := range r.Spec.ParentRefs {
			if !refersTo(ref, r.Namespace, g) {
				continue
			}
			ok, reason, msg := a.parentAccepted(r, ref)
			accepted := condition(string(gwv1.RouteConditionAccepted), ok, string(reason), msg)
			if ok && failed != nil {
				accepted = *failed
			}
			entries = append(entries, gwv1.RouteParentStatus{
				ParentRef:      normalRef(ref, ""), // as it reads back from status
				ControllerName: gwv1.GatewayController(c.opts.ControllerName),
				Conditions:     []metav1.Condition{accepted, resolved},
			})
		}
	}

	c.forgetRenders(k, func(gateway string) bool { return !renderedFor[gateway] })

	// Children rendered for Gateways the route no longer attaches to.
	var stale []blueprint.InventoryEntry
	for _, e := range inv {
		if !keep[e.Gateway] {
			stale = append(stale, e)
		}
	}
	if len(stale) > 0 {
		if err := c.prune(ctx, k, stale); err != nil {
			return reconcile.Result{}, err
		}
		if err := c.writeInventory(ctx, p, inv.Without(stale)); err != nil {
			return reconcile.Result{}, err
		}
	}
	return res, c.writeRouteStatus(ctx, r, entries)
}

// routeGateways lists the Gateways a route's parentRefs name, in order,
// once each.
func routeGateways(r *gwv1.HTTPRoute) []types.NamespacedName {
	var out []types.NamespacedName
	seen := map[types.NamespacedName]bool{}
	for _, ref := range r.Spec.ParentRefs {
		g, ok := gatewayOf(ref, r.Namespace)
		if ok && !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	return out
}

// gatewayOf is the Gateway a parentRef names, if it names one.
func gatewayOf(ref gwv1.ParentReference, ns string) (types.NamespacedName, bool) {
	if ref.Group != nil && string(*ref.Group) != gwv1.GroupName || ref.Kind != nil && *ref.Kind != "Gateway" {
		return types.NamespacedName{}, false
	}
	return types.NamespacedName{Namespace: string(ptr.Deref(ref.Namespace, gwv1.Namespace(ns))), Name: string(ref.Name)}, true
}

func refersTo(ref gwv1.ParentReference, ns string, g types.NamespacedName) bool {
	got, ok := gatewayOf(ref, ns)
	return ok && got == g
}

// resolvedRefs is the route's ResolvedRefs condition: every backendRef
// names a Service (InvalidKind otherwise), and one in another namespace is
// allowed by a ReferenceGrant there (RefNotPermitted otherwise). Whether
// the Service exists is the data plane's business.
func (c *Controller) resolvedRefs(ctx context.Context, r *gwv1.HTTPRoute) (metav1.Condition, error) {
	var graph *topology.Graph
	for i, rule := range r.Spec.Rules {
		for j, b := range rule.BackendRefs {
			field := fmt.Sprintf("spec.rules[%d].backendRefs[%d]", i, j)
			group, kind := string(ptr.Deref(b.Group, "")), string(ptr.Deref(b.Kind, "Service"))
			if group != "" || kind != "Service" {
				return condition(string(gwv1.RouteConditionResolvedRefs), false, string(gwv1.RouteReasonInvalidKind),
					fmt.Sprintf("%s: %s is not supported; only Service backends are", field, strings.TrimSuffix(kind+"."+group, "."))), nil
			}
			if b.Namespace == nil || string(*b.Namespace) == r.Namespace {
				continue
			}
			ns := string(*b.Namespace)
			if graph == nil {
				grants := &gwv1b1.ReferenceGrantList{}
				if err := c.cache.List(ctx, grants); err != nil {
					return metav1.Condition{}, fmt.Errorf("list ReferenceGrants: %w", err)
				}
				s := &snapshot.Snapshot{}
				for i := range grants.Items {
					s.ReferenceGrants = append(s.ReferenceGrants, &grants.Items[i])
				}
				graph = topology.Build(s)
			}
			to := topology.Ref{Group: hierarchy.CoreGroup, Kind: "Service", Namespace: ns, Name: string(b.Name)}
			if !graph.Granted(hierarchy.HTTPRouteKind, r.Namespace, to) {
				return condition(string(gwv1.RouteConditionResolvedRefs), false, string(gwv1.RouteReasonRefNotPermitted),
					fmt.Sprintf("%s: Service %s/%s is in another namespace and no ReferenceGrant there allows it", field, ns, b.Name)), nil
			}
		}
	}
	return condition(string(gwv1.RouteConditionResolvedRefs), true, string(gwv1.RouteReasonResolvedRefs), "backendRefs resolved"), nil
}

// writeRouteStatus replaces Strata's status.parents entries with entries
// (other controllers' entries first, kept as they are), keeping the
// lastTransitionTime of unchanged conditions.
func (c *Controller) writeRouteStatus(ctx context.Context, r *gwv1.HTTPRoute, entries []gwv1.RouteParentStatus) error {
	next := r.DeepCopy()
	var parents []gwv1.RouteParentStatus
	var ours []gwv1.RouteParentStatus
	for _, p := range r.Status.Parents {
		if string(p.ControllerName) == c.opts.ControllerName {
			ours = append(ours, p)
		} else {
			parents = append(parents, p)
		}
	}
	for _, e := range entries {
		if len(parents) >= maxParents {
			break
		}
		var old []metav1.Condition
		for _, o := range ours {
			if sameRef(o.ParentRef, e.ParentRef, r.Namespace) {
				old = o.Conditions
			}
		}
		e.Conditions = c.setConditions(old, r.Generation, e.Conditions...)
		parents = append(parents, e)
	}
	next.Status.Parents = parents
	return c.patchStatus(ctx, r, next, kindRoute, differ(r.Status, next.Status))
}
