package blueprints

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1b1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
	"github.com/strata-dev/strata/pkg/blueprint"
	"github.com/strata-dev/strata/pkg/blueprint/render"
	"github.com/strata-dev/strata/pkg/controller/objchange"
)

// What an event re-renders (the keys it queues). Only the parents a change
// can affect are queued; nothing is re-rendered periodically.
//
//	event on                 queues
//	GatewayClass (ours)      the class; its Gateways and their routes; every config
//	GatewayClassBlueprint    the blueprint; the classes naming it, as above
//	config in namespace N    configs in N and global ones (all, if N is the controller namespace);
//	                         Gateways and HTTPRoutes in N; for a global config also
//	                         the Gateways of the classes it targets and their routes
//	Gateway                  the Gateway; routes naming it; configs in its and their
//	                         namespaces and global ones
//	HTTPRoute                the route; the Gateways it names (before and after);
//	                         configs in its namespace and global ones
//	Namespace (labels)       Gateways and routes in it; Gateways whose listeners select
//	                         namespaces by label; configs in it and global ones
//	ReferenceGrant           routes in the namespaces it grants from
//	rendered object          its parent (labels), whose status template may read it
//
// Updates that change only status, bookkeeping or the inventory
// annotation (Strata's own writes) queue nothing, so writing status cannot
// cause a render.

// Field indexes on the manager's cache.
const (
	indexRouteParent    = "blueprints.strata.dev/parent-gateway" // HTTPRoute: ns/name of each Gateway parentRef
	indexGatewayClass   = "blueprints.strata.dev/gateway-class"  // Gateway: spec.gatewayClassName
	indexClassBlueprint = "blueprints.strata.dev/blueprint"      // GatewayClass: parametersRef name, if a blueprint
)

func (c *Controller) index(ctx context.Context, mgr manager.Manager) error {
	ix := mgr.GetFieldIndexer()
	if err := ix.IndexField(ctx, &gwv1.HTTPRoute{}, indexRouteParent, func(o client.Object) []string {
		var out []string
		for _, g := range routeGateways(o.(*gwv1.HTTPRoute)) {
			out = append(out, g.String())
		}
		return out
	}); err != nil {
		return err
	}
	if err := ix.IndexField(ctx, &gwv1.Gateway{}, indexGatewayClass, func(o client.Object) []string {
		return []string{string(o.(*gwv1.Gateway).Spec.GatewayClassName)}
	}); err != nil {
		return err
	}
	return ix.IndexField(ctx, &gwv1.GatewayClass{}, indexClassBlueprint, func(o client.Object) []string {
		if ref := o.(*gwv1.GatewayClass).Spec.ParametersRef; ref != nil && string(ref.Group) == bpv1.Group && string(ref.Kind) == bpv1.BlueprintKind {
			return []string{ref.Name}
		}
		return nil
	})
}

// watch starts the fixed watches; rendered kinds are added as they are
// rendered (watchChildren).
func (c *Controller) watch() error {
	for _, k := range []struct {
		obj  client.Object
		keys handler.TypedMapFunc[client.Object, key]
	}{
		{&gwv1.GatewayClass{}, c.onClass},
		{&bpv1.GatewayClassBlueprint{}, c.onBlueprint},
		{&bpv1.GatewayClassConfig{}, c.onConfig},
		{&bpv1.GatewayConfig{}, c.onConfig},
		{&gwv1.Gateway{}, c.onGateway},
		{&gwv1.HTTPRoute{}, c.onRoute},
		{&corev1.Namespace{}, c.onNamespace},
		{&gwv1b1.ReferenceGrant{}, c.onGrant},
	} {
		if err := c.ctrl.Watch(watchOf(c.cache, k.obj, k.keys, specChanged)); err != nil {
			return err
		}
	}
	return nil
}

// watchChildren watches a rendered kind on the child cache, once.
func (c *Controller) watchChildren(gvk schema.GroupVersionKind) error {
	c.mu.Lock()
	if c.watched[gvk] {
		c.mu.Unlock()
		return nil
	}
	c.watched[gvk] = true
	c.mu.Unlock()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := c.ctrl.Watch(watchOf(c.children, u, c.onChild, changed)); err != nil {
		c.mu.Lock()
		delete(c.watched, gvk)
		c.mu.Unlock()
		return fmt.Errorf("watch %s: %w", gvk, err)
	}
	c.log.Info("watching rendered kind", "kind", gvk.String())
	return nil
}

// watchOf watches obj's kind on ca, queuing keys(old) and keys(new) for
// an update that relevant says matters, keys(obj) for any other event.
func watchOf(ca cache.Cache, obj client.Object, keys handler.TypedMapFunc[client.Object, key], relevant func(old, new client.Object) bool) source.TypedSource[key] {
	return source.TypedKind(ca, obj, handler.TypedEnqueueRequestsFromMapFunc(keys), predicate.TypedFuncs[client.Object]{
		UpdateFunc: func(e event.TypedUpdateEvent[client.Object]) bool { return relevant(e.ObjectOld, e.ObjectNew) },
	})
}

// specChanged compares two versions of an object without status and
// server bookkeeping and without the inventory annotation, which only
// Strata writes.
func specChanged(o, n client.Object) bool {
	return objchange.Changed(o, n, func(a string) bool { return strings.HasPrefix(a, blueprint.InventoryAnnotation) })
}

// changed is any change of a rendered object, status included: a status
// template may read it.
func changed(o, n client.Object) bool { return o.GetResourceVersion() != n.GetResourceVersion() }

// onChild maps a rendered object to its parent: by its controller owner
// reference when it has one, else by the parent labels (a hashed long
// name cannot be mapped back; that parent is found through its own
// events).
func (c *Controller) onChild(_ context.Context, o client.Object) []key {
	for _, ref := range o.GetOwnerReferences() {
		if ref.Controller != nil && *ref.Controller && (ref.Kind == kindGateway || ref.Kind == kindRoute) &&
			schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind).Group == gwv1.GroupName {
			return []key{{Kind: ref.Kind, Namespace: o.GetNamespace(), Name: ref.Name}}
		}
	}
	l := o.GetLabels()
	switch kind := l[render.LabelParentKind]; kind {
	case kindGateway, kindRoute:
		return []key{{Kind: kind, Namespace: l[render.LabelParentNamespace], Name: l[render.LabelParentName]}}
	}
	return nil
}

func (c *Controller) onClass(ctx context.Context, o client.Object) []key {
	gc, ok := o.(*gwv1.GatewayClass)
	if !ok || string(gc.Spec.ControllerName) != c.opts.ControllerName {
		return nil
	}
	keys := append([]key{{Kind: kindClass, Name: gc.Name}}, c.classKeys(ctx, gc.Name)...)
	return append(keys, c.configKeys(ctx, "")...)
}

func (c *Controller) onBlueprint(ctx context.Context, o client.Object) []key {
	keys := []key{{Kind: kindBlueprint, Name: o.GetName()}}
	cl := &gwv1.GatewayClassList{}
	if err := c.cache.List(ctx, cl, client.MatchingFields{indexClassBlueprint: o.GetName()}); err != nil {
		c.log.Error(err, "list GatewayClasses of a blueprint", "blueprint", o.GetName())
	}
	for i := range cl.Items {
		keys = append(keys, c.onClass(ctx, &cl.Items[i])...)
	}
	return keys
}

func (c *Controller) onConfig(ctx context.Context, o client.Object) []key {
	ns := o.GetNamespace()
	// A config competes with the configs of its namespace and the global
	// ones (a more specific default beats a global one; a global override
	// beats it).
	keys := c.configKeysFor(ctx, ns)
	if ns == c.opts.Namespace {
		keys = c.configKeys(ctx, "")
		if gcc, ok := o.(*bpv1.GatewayClassConfig); ok {
			for _, t := range gcc.Spec.TargetRefs {
				if t.Kind == "GatewayClass" {
					keys = append(keys, c.classKeys(ctx, string(t.Name))...)
				}
			}
		}
	}
	return append(keys, c.parentsIn(ctx, ns)...)
}

func (c *Controller) onGateway(ctx context.Context, o client.Object) []key {
	keys := c.gatewayAndRoutes(ctx, o.(*gwv1.Gateway))
	// Configs of the routes' namespaces apply through this Gateway too.
	namespaces := map[string]bool{o.GetNamespace(): true}
	for _, k := range keys {
		namespaces[k.Namespace] = true
	}
	keys = append(keys, c.configKeys(ctx, c.opts.Namespace)...)
	for ns := range namespaces {
		if ns != c.opts.Namespace {
			keys = append(keys, c.configKeys(ctx, ns)...)
		}
	}
	return keys
}

func (c *Controller) onRoute(ctx context.Context, o client.Object) []key {
	r := o.(*gwv1.HTTPRoute)
	keys := []key{{Kind: kindRoute, Namespace: r.Namespace, Name: r.Name}}
	for _, g := range routeGateways(r) {
		keys = append(keys, key{Kind: kindGateway, Namespace: g.Namespace, Name: g.Name})
	}
	return append(keys, c.configKeysFor(ctx, r.Namespace)...)
}

func (c *Controller) onNamespace(ctx context.Context, o client.Object) []key {
	keys := c.parentsIn(ctx, o.GetName())
	gl := &gwv1.GatewayList{}
	if err := c.cache.List(ctx, gl); err != nil {
		c.log.Error(err, "list Gateways")
	}
	for i := range gl.Items {
		for _, l := range gl.Items[i].Spec.Listeners {
			if l.AllowedRoutes != nil && l.AllowedRoutes.Namespaces != nil && l.AllowedRoutes.Namespaces.From != nil &&
				*l.AllowedRoutes.Namespaces.From == gwv1.NamespacesFromSelector {
				keys = append(keys, key{Kind: kindGateway, Namespace: gl.Items[i].Namespace, Name: gl.Items[i].Name})
				break
			}
		}
	}
	return append(keys, c.configKeysFor(ctx, o.GetName())...)
}

func (c *Controller) onGrant(ctx context.Context, o client.Object) []key {
	var keys []key
	for _, f := range o.(*gwv1b1.ReferenceGrant).Spec.From {
		if string(f.Group) != gwv1.GroupName || f.Kind != "HTTPRoute" {
			continue
		}
		keys = append(keys, c.keysOf(ctx, kindRoute, &gwv1.HTTPRouteList{}, "list HTTPRoutes", []any{"namespace", f.Namespace}, client.InNamespace(string(f.Namespace)))...)
	}
	return keys
}

// classKeys are the keys of a class's Gateways and their routes.
func (c *Controller) classKeys(ctx context.Context, class string) []key {
	gl := &gwv1.GatewayList{}
	if err := c.cache.List(ctx, gl, client.MatchingFields{indexGatewayClass: class}); err != nil {
		c.log.Error(err, "list Gateways of a class", "class", class)
	}
	var keys []key
	for i := range gl.Items {
		keys = append(keys, c.gatewayAndRoutes(ctx, &gl.Items[i])...)
	}
	return keys
}

// gatewayAndRoutes is a Gateway's key and its routes' keys.
func (c *Controller) gatewayAndRoutes(ctx context.Context, gw *gwv1.Gateway) []key {
	name := gw.Namespace + "/" + gw.Name
	return append([]key{{Kind: kindGateway, Namespace: gw.Namespace, Name: gw.Name}},
		c.keysOf(ctx, kindRoute, &gwv1.HTTPRouteList{}, "list HTTPRoutes of a Gateway", []any{"gateway", name}, client.MatchingFields{indexRouteParent: name})...)
}

// parentsIn are the Gateways and HTTPRoutes of a namespace.
func (c *Controller) parentsIn(ctx context.Context, ns string) []key {
	kv, in := []any{"namespace", ns}, client.InNamespace(ns)
	return append(c.keysOf(ctx, kindGateway, &gwv1.GatewayList{}, "list Gateways", kv, in),
		c.keysOf(ctx, kindRoute, &gwv1.HTTPRouteList{}, "list HTTPRoutes", kv, in)...)
}

// keysOf lists list's kind with opts into keys of kind; a failed list is
// logged as msg with kv.
func (c *Controller) keysOf(ctx context.Context, kind string, list client.ObjectList, msg string, kv []any, opts ...client.ListOption) []key {
	if err := c.cache.List(ctx, list, opts...); err != nil {
		c.log.Error(err, msg, kv...)
	}
	var keys []key
	_ = apimeta.EachListItem(list, func(o runtime.Object) error {
		m := o.(client.Object)
		keys = append(keys, key{Kind: kind, Namespace: m.GetNamespace(), Name: m.GetName()})
		return nil
	})
	return keys
}

// configKeysFor are the configs whose status a change of a parent in ns
// can affect: those in ns and the global ones.
func (c *Controller) configKeysFor(ctx context.Context, ns string) []key {
	keys := c.configKeys(ctx, ns)
	if ns != c.opts.Namespace {
		keys = append(keys, c.configKeys(ctx, c.opts.Namespace)...)
	}
	return keys
}

// configKeys are the keys of both config kinds in ns ("" for all).
func (c *Controller) configKeys(ctx context.Context, ns string) []key {
	in := client.InNamespace(ns)
	return append(c.keysOf(ctx, kindClassConfig, &bpv1.GatewayClassConfigList{}, "list GatewayClassConfigs", nil, in),
		c.keysOf(ctx, kindConfig, &bpv1.GatewayConfigList{}, "list GatewayConfigs", nil, in)...)
}
