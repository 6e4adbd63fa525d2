package blueprints

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/blueprint"
	"github.com/strata-dev/strata/pkg/blueprint/render"
	"github.com/strata-dev/strata/pkg/blueprint/values"
)

var gatewayGVK = schema.GroupVersionKind{Group: gwv1.GroupName, Version: "v1", Kind: "Gateway"}

// supportedKinds are the route kinds Strata renders for (the blueprint's
// httpRouteTemplate), and supportedProtocols the listener protocols those
// routes attach to.
var (
	supportedKinds     = []gwv1.RouteGroupKind{{Group: ptr.To(gwv1.Group(gwv1.GroupName)), Kind: "HTTPRoute"}}
	supportedProtocols = []gwv1.ProtocolType{gwv1.HTTPProtocolType, gwv1.HTTPSProtocolType}
)

// gatewayOutcome is what a Gateway's status should say.
type gatewayOutcome struct {
	accepted, programmed metav1.Condition
	// addresses replace status.addresses when set (a successful render).
	addresses    []gwv1.GatewayStatusAddress
	setAddresses bool
}

// reconcileGateway renders a Gateway of a class Strata serves and applies
// the result (children.go, sync), then writes its status:
//
//	class served by another      -> children deleted, status left to its controller
//	class gone, rendered before  -> Accepted False; nothing applied or pruned
//	class or blueprint invalid   -> Accepted False InvalidParameters; nothing applied or pruned
//	template or tenant-safety    -> Accepted False InvalidParameters (the message says what
//	error (render.Error)         was refused, and the value path and config behind it),
//	                                Programmed False Invalid; nothing applied or pruned; that
//	                                config's ancestor entry Accepted False Invalid (config.go)
//	dry run refused an object    -> Accepted True, Programmed False Invalid naming the object
//	applied                      -> Accepted True, Programmed True, addresses from the render
func (c *Controller) reconcileGateway(ctx context.Context, k key) (reconcile.Result, error) {
	gw := &gwv1.Gateway{}
	if err := c.cache.Get(ctx, k.nn(), gw); err != nil {
		if apierrors.IsNotFound(err) {
			c.forgetRenders(k, nil)
			return reconcile.Result{}, c.orphaned(ctx, k)
		}
		return reconcile.Result{}, err
	}
	p := parentObj{key: k, obj: gw, gvk: gatewayGVK}
	inv := c.inventory(gw)
	c.remembers(k, inv)
	class, err := c.class(ctx, string(gw.Spec.GatewayClassName))
	if err != nil {
		return reconcile.Result{}, err
	}
	switch {
	case class == nil && len(inv) == 0:
		return reconcile.Result{}, nil // not (yet) a Gateway of Strata's
	case class != nil && string(class.Spec.ControllerName) != c.opts.ControllerName:
		c.forgetRenders(k, nil)
		return reconcile.Result{}, c.release(ctx, p)
	}
	a, err := c.attach(ctx, gw)
	if err != nil {
		return reconcile.Result{}, err
	}
	if class == nil {
		// Rendered before, and its class is gone: a deleted GatewayClass
		// must not take the data planes of its Gateways with it. Nothing
		// is applied or pruned until the class is back (or the Gateway
		// goes).
		return reconcile.Result{}, c.writeGatewayStatus(ctx, gw, a,
			invalid(fmt.Sprintf("GatewayClass %s not found; objects rendered before are kept", gw.Spec.GatewayClassName)))
	}
	out, res, err := c.renderGateway(ctx, p, class, a, inv)
	if err != nil {
		return reconcile.Result{}, err
	}
	return res, c.writeGatewayStatus(ctx, gw, a, out)
}

// invalid is the outcome of a Gateway that is not accepted, for msg.
func invalid(msg string) gatewayOutcome {
	return gatewayOutcome{
		accepted:   condition(string(gwv1.GatewayConditionAccepted), false, string(gwv1.GatewayReasonInvalidParameters), msg),
		programmed: condition(string(gwv1.GatewayConditionProgrammed), false, string(gwv1.GatewayReasonInvalid), "not programmed: the Gateway is not accepted"),
	}
}

// renderGateway does the render and sync part of reconcileGateway.
func (c *Controller) renderGateway(ctx context.Context, p parentObj, class *gwv1.GatewayClass, a *attachment, inv blueprint.Inventory) (gatewayOutcome, reconcile.Result, error) {
	gw := a.gw
	cp, err := c.plan(ctx, class)
	if err != nil {
		return gatewayOutcome{}, reconcile.Result{}, err
	}
	if cp.Err != nil {
		c.rendered(p.key, "", nil)
		c.renders.WithLabelValues(kindGateway, "invalid").Inc()
		return invalid(fmt.Sprintf("GatewayClass %s is not accepted: %v", class.Name, cp.Err)), reconcile.Result{}, nil
	}
	bp := cp.Blueprint
	configs, err := c.configs(ctx)
	if err != nil {
		return gatewayOutcome{}, reconcile.Result{}, err
	}
	sr, err := c.renderScope(ctx, p, inv, "", configs, render.Input{
		Blueprint: bp, Class: class, Gateway: gw, Routes: a.routes, Namespace: a.namespaces[gw.Namespace],
	})
	if err != nil {
		return gatewayOutcome{}, reconcile.Result{}, err
	}
	if sr.failed != "" {
		return invalid(sr.failed), reconcile.Result{}, nil
	}
	accepted := condition(string(gwv1.GatewayConditionAccepted), true, string(gwv1.GatewayReasonAccepted), fmt.Sprintf("rendered from GatewayClassBlueprint %s", bp.Name))
	if sr.refused != "" {
		return gatewayOutcome{
			accepted:   accepted,
			programmed: condition(string(gwv1.GatewayConditionProgrammed), false, string(gwv1.GatewayReasonInvalid), "not programmed, nothing applied: "+sr.refused),
		}, reconcile.Result{RequeueAfter: refusalRetry}, nil
	}
	return gatewayOutcome{
		accepted:     accepted,
		programmed:   condition(string(gwv1.GatewayConditionProgrammed), true, string(gwv1.GatewayReasonProgrammed), fmt.Sprintf("%d objects applied", len(sr.out.Objects))),
		addresses:    sr.out.Addresses,
		setAddresses: true,
	}, reconcile.Result{}, nil
}

// scopeRender is the outcome of rendering one scope: failed says why
// nothing was applied ("" when it was), refused names the object the API
// server refused.
type scopeRender struct {
	inv             blueprint.Inventory
	out             *render.Output
	failed, refused string
}

// renderScope merges the values for p, renders in (for the Gateway's own
// children when scope is "", else for the route p rendered for Gateway
// scope) and syncs the objects.
func (c *Controller) renderScope(ctx context.Context, p parentObj, inv blueprint.Inventory, scope string, configs []*values.Config, in render.Input) (scopeRender, error) {
	kind := p.key.Kind
	fail := func(msg string, re *render.Error) (scopeRender, error) {
		c.rendered(p.key, scope, re)
		c.renders.WithLabelValues(kind, "invalid").Inc()
		return scopeRender{inv: inv, failed: msg}, nil
	}
	parent := values.Parent{Kind: kind, Namespace: p.key.Namespace, Name: p.key.Name, Class: in.Class.Name}
	vals, err := values.Merge(in.Blueprint, parent, configs, c.opts.Namespace)
	if err != nil {
		return fail(err.Error(), nil)
	}
	if in.Resources, err = c.resources(ctx, inv, scope); err != nil {
		return scopeRender{inv: inv}, err
	}
	in.ControllerName, in.Values, in.Sources = c.opts.ControllerName, vals.Values, vals.Leaves
	out, err := render.Render(in, c.kinds())
	if err != nil {
		var re *render.Error
		if !errors.As(err, &re) {
			what := fmt.Sprintf("Gateway %s/%s", p.key.Namespace, p.key.Name)
			if scope != "" {
				what = fmt.Sprintf("HTTPRoute %s/%s for Gateway %s", p.key.Namespace, p.key.Name, scope)
			}
			return scopeRender{inv: inv}, fmt.Errorf("render %s: %w", what, err)
		}
		return fail(renderMessage(re), re)
	}
	c.rendered(p.key, scope, nil)
	objs, err := c.withValues(in, vals, out.Objects)
	if err != nil {
		return scopeRender{inv: inv}, err
	}
	sr, err := c.sync(ctx, p, inv, scope, objs)
	if err != nil {
		return scopeRender{inv: sr.inv}, err
	}
	if sr.refused != "" {
		c.renders.WithLabelValues(kind, "refused").Inc()
		return scopeRender{inv: sr.inv, refused: sr.refused}, nil
	}
	c.renders.WithLabelValues(kind, "applied").Inc()
	return scopeRender{inv: sr.inv, out: out}, nil
}

// renderMessage is the condition message of a render error: a
// tenant-safety refusal says so.
func renderMessage(e *render.Error) string {
	if e.Reason == render.ReasonNotAllowed {
		return "rendering refused, nothing applied: " + e.Error()
	}
	return "rendering failed, nothing applied: " + e.Error()
}

// writeGatewayStatus writes Accepted, Programmed, addresses and
// listeners.
func (c *Controller) writeGatewayStatus(ctx context.Context, gw *gwv1.Gateway, a *attachment, o gatewayOutcome) error {
	next := gw.DeepCopy()
	listeners, allAccepted := c.listenerStatuses(gw, a, o.programmed)
	if !allAccepted && o.accepted.Status == metav1.ConditionTrue {
		o.accepted.Reason = string(gwv1.GatewayReasonListenersNotValid)
		o.accepted.Message += "; some listeners are not accepted (see status.listeners)"
	}
	next.Status.Conditions = c.setConditions(gw.Status.Conditions, gw.Generation, o.accepted, o.programmed)
	if o.setAddresses {
		next.Status.Addresses = o.addresses
		if len(next.Status.Addresses) > 16 {
			next.Status.Addresses = next.Status.Addresses[:16]
		}
	}
	next.Status.Listeners = listeners
	return c.patchStatus(ctx, gw, next, kindGateway, differ(gw.Status, next.Status))
}

// listenerStatuses computes status.listeners in spec order: supported
// kinds, attached routes, and Accepted, ResolvedRefs and Programmed;
// other conditions of an existing entry (another controller's) are kept.
func (c *Controller) listenerStatuses(gw *gwv1.Gateway, a *attachment, programmed metav1.Condition) ([]gwv1.ListenerStatus, bool) {
	var out []gwv1.ListenerStatus
	all := true
	for _, l := range gw.Spec.Listeners {
		var old []metav1.Condition
		for _, s := range gw.Status.Listeners {
			if s.Name == l.Name {
				old = s.Conditions
			}
		}
		kinds, invalidKinds := listenerKinds(l)
		accepted := condition(string(gwv1.ListenerConditionAccepted), true, string(gwv1.ListenerReasonAccepted), "accepted")
		resolved := condition(string(gwv1.ListenerConditionResolvedRefs), true, string(gwv1.ListenerReasonResolvedRefs), "resolved")
		prog := condition(string(gwv1.ListenerConditionProgrammed), true, string(gwv1.ListenerReasonProgrammed), "programmed")
		if !slices.Contains(supportedProtocols, l.Protocol) {
			all = false
			kinds = nil
			accepted = condition(string(gwv1.ListenerConditionAccepted), false, string(gwv1.ListenerReasonUnsupportedProtocol),
				fmt.Sprintf("protocol %s is not supported; use HTTP or HTTPS", l.Protocol))
		}
		if len(invalidKinds) > 0 {
			resolved = condition(string(gwv1.ListenerConditionResolvedRefs), false, string(gwv1.ListenerReasonInvalidRouteKinds),
				fmt.Sprintf("allowedRoutes.kinds: %s not supported; only HTTPRoute.gateway.networking.k8s.io is", strings.Join(invalidKinds, ", ")))
		}
		switch {
		case accepted.Status != metav1.ConditionTrue:
			prog = condition(string(gwv1.ListenerConditionProgrammed), false, string(gwv1.ListenerReasonInvalid), "the listener is not accepted")
		case programmed.Status != metav1.ConditionTrue:
			prog = condition(string(gwv1.ListenerConditionProgrammed), false, string(gwv1.ListenerReasonInvalid), "the Gateway is not programmed")
		}
		if kinds == nil {
			kinds = []gwv1.RouteGroupKind{}
		}
		out = append(out, gwv1.ListenerStatus{
			Name:           l.Name,
			SupportedKinds: kinds,
			AttachedRoutes: a.attached(l.Name),
			Conditions:     c.setConditions(old, gw.Generation, accepted, resolved, prog),
		})
	}
	return out, all
}

// listenerKinds are the supported kinds a listener allows, and the names
// of the kinds it allows that Strata does not support.
func listenerKinds(l gwv1.Listener) ([]gwv1.RouteGroupKind, []string) {
	if l.AllowedRoutes == nil || len(l.AllowedRoutes.Kinds) == 0 {
		return slices.Clone(supportedKinds), nil
	}
	var kinds []gwv1.RouteGroupKind
	var invalid []string
	for _, k := range l.AllowedRoutes.Kinds {
		group := string(ptr.Deref(k.Group, gwv1.GroupName))
		if group == gwv1.GroupName && k.Kind == "HTTPRoute" {
			kinds = append(kinds, gwv1.RouteGroupKind{Group: ptr.To(gwv1.Group(group)), Kind: k.Kind})
			continue
		}
		invalid = append(invalid, string(k.Kind)+"."+group)
	}
	return kinds, invalid
}
