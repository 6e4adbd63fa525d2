package policies

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/strata-dev/strata/pkg/controller/objchange"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/source/cluster"
)

// present reports whether the cluster serves a kind now (the REST mapper
// reloads discovery on an unknown kind).
func (c *Controller) present(gvk schema.GroupVersionKind) bool {
	_, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	return err == nil
}

// ensureTopologyWatches watches every topology kind the cluster serves;
// Gateway API CRDs may be installed after Strata starts.
func (c *Controller) ensureTopologyWatches(ctx context.Context) error {
	for _, k := range cluster.TopologyKinds {
		if c.isWatched(k.GVK) || !c.present(k.GVK) {
			continue
		}
		if err := c.watch(ctx, k.GVK); err != nil {
			return err
		}
	}
	return nil
}

// ensurePolicyWatches starts watching policy kinds that appeared and stops
// watching those whose CRD or declaration went away, without a restart.
func (c *Controller) ensurePolicyWatches(ctx context.Context, kinds []cluster.PolicyGVK) error {
	want := map[schema.GroupVersionKind]bool{}
	for _, k := range kinds {
		want[k.GroupVersionKind] = true
		if !c.isWatched(k.GroupVersionKind) {
			if err := c.watch(ctx, k.GroupVersionKind); err != nil {
				return err
			}
		}
	}
	c.mu.Lock()
	var gone []schema.GroupVersionKind
	for gvk := range c.watched {
		if c.isPolicyWatch(gvk) && !want[gvk] {
			gone = append(gone, gvk)
		}
	}
	c.mu.Unlock()
	for _, gvk := range gone {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		if err := c.cache.RemoveInformer(ctx, u); err != nil {
			return fmt.Errorf("stop watching %s: %w", gvk, err)
		}
		c.mu.Lock()
		delete(c.watched, gvk)
		c.mu.Unlock()
		c.log.Info("stopped watching policy kind", "kind", gvk.String())
	}
	return nil
}

// isPolicyWatch tells dynamic policy watches from the fixed ones.
func (c *Controller) isPolicyWatch(gvk schema.GroupVersionKind) bool {
	return gvk != cluster.CRDGVK && gvk != cluster.PolicyKindGVK && gvk != effectivePolicyGVK &&
		!slices.ContainsFunc(cluster.TopologyKinds, func(k cluster.TopologyKind) bool { return k.GVK == gvk })
}

func (c *Controller) isWatched(gvk schema.GroupVersionKind) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.watched[gvk]
	return ok
}

// watch adds an event handler on the cache's informer for a kind; every
// event schedules a recomputation. Typed kinds use typed informers, the
// rest (PolicyKinds, policies) unstructured ones.
func (c *Controller) watch(ctx context.Context, gvk schema.GroupVersionKind) error {
	if ok, err := c.readable(ctx, gvk); err != nil || !ok {
		return err // a kind it may not read is left out (access.go)
	}
	var obj client.Object
	if o, err := c.client.Scheme().New(gvk); err == nil {
		obj = o.(client.Object)
	} else {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		obj = u
	}
	inf, err := c.cache.GetInformer(ctx, obj)
	if err != nil {
		return fmt.Errorf("watch %s: %w", gvk, err)
	}
	policy := c.isPolicyWatch(gvk) && gvk != effectivePolicyGVK
	reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.changed(gvk, policy, obj) },
		UpdateFunc: func(oldObj, newObj any) { c.onUpdate(gvk, policy, oldObj, newObj) },
		DeleteFunc: func(obj any) { c.changed(gvk, policy, obj) },
	})
	if err != nil {
		return fmt.Errorf("watch %s: %w", gvk, err)
	}
	c.mu.Lock()
	c.watched[gvk] = reg
	c.mu.Unlock()
	c.log.Info("watching", "kind", gvk.String())
	return nil
}

// onUpdate schedules a recomputation only when something the engine reads
// changed: status and annotation writes (Strata's own included) and
// resyncs are ignored, so a status write cannot cause a recomputation.
func (c *Controller) onUpdate(gvk schema.GroupVersionKind, policy bool, oldObj, newObj any) {
	o, ok1 := oldObj.(client.Object)
	n, ok2 := newObj.(client.Object)
	if ok1 && ok2 && !objchange.Changed(o, n, objchange.All) && parentEntries(gvk, o) == parentEntries(gvk, n) {
		return
	}
	c.changed(gvk, policy, newObj)
}

// parentEntries names the entries of a route's status.parents (parentRef
// and controllerName; "" for other kinds): Strata writes a route's
// <Kind>Affected condition into them, so an entry that appears or goes is
// a recomputation. Strata's own writes never change the entries.
func parentEntries(gvk schema.GroupVersionKind, obj client.Object) string {
	if hierarchy.Kinds[gvk.GroupKind()].Conditions != hierarchy.InRouteParents {
		return ""
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return ""
	}
	parents, _, _ := unstructured.NestedSlice(m, "status", "parents")
	var b strings.Builder
	for _, p := range parents {
		pm, _ := p.(map[string]any)
		ref, _ := json.Marshal(pm["parentRef"])
		fmt.Fprintf(&b, "%s %v\n", ref, pm["controllerName"])
	}
	return b.String()
}
