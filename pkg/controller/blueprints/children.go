package blueprints

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/blueprint"
	"github.com/strata-dev/strata/pkg/blueprint/render"
	"github.com/strata-dev/strata/pkg/blueprint/values"
)

// inventory is this controller's inventory of a parent
// (blueprint.InventoryAnnotation says why there is one).
func (c *Controller) inventory(obj client.Object) blueprint.Inventory {
	return blueprint.ParseInventory(obj.GetAnnotations(), c.opts.ControllerName)
}

// idOf is the child an inventory entry names.
func idOf(e blueprint.InventoryEntry) childID {
	return childID{GVK: e.GVK(), NamespacedName: types.NamespacedName{Namespace: e.Namespace, Name: e.Name}}
}

// childID names a rendered object.
type childID struct {
	GVK schema.GroupVersionKind
	types.NamespacedName
}

// appliedState is what Strata last applied of a child: a hash of the
// rendered object, and the child's UID and Strata's managed fields as the
// apply returned them.
type appliedState struct {
	hash   string
	uid    types.UID
	fields string
}

// parentObj is a Gateway or an HTTPRoute whose children are synced.
type parentObj struct {
	key
	obj client.Object
	gvk schema.GroupVersionKind
}

// ownerRef makes a namespaced child owned by its parent: the garbage
// collector deletes it with the parent, and `kubectl tree` shows it.
// blockOwnerDeletion keeps a foreground deletion of the parent waiting
// for it.
func (p parentObj) ownerRef() metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: p.gvk.GroupVersion().String(), Kind: p.gvk.Kind,
		Name: p.obj.GetName(), UID: p.obj.GetUID(),
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
	}
}

// syncResult is the outcome of syncing one render.
type syncResult struct {
	inv blueprint.Inventory
	// refused names the object the API server refused on the dry run, and
	// why; nothing was applied.
	refused string
}

// sync makes the cluster hold exactly objs as the children of p for one
// render scope (gateway: "" for a Gateway's render, the Gateway's
// namespace/name for an HTTPRoute's): objects as last applied are skipped;
// if one exists and is not this parent's (theirs), or the API server
// refuses one on a dry run, nothing is applied; the inventory is extended
// ahead, the objects applied (forced, Options.FieldManager), and children
// no longer rendered deleted and dropped from the inventory.
func (c *Controller) sync(ctx context.Context, p parentObj, inv blueprint.Inventory, gateway string, objs []*unstructured.Unstructured) (syncResult, error) {
	want := make([]blueprint.InventoryEntry, 0, len(objs))
	var changed []*unstructured.Unstructured
	for _, o := range objs {
		o = o.DeepCopy()
		if o.GetNamespace() != "" {
			o.SetOwnerReferences([]metav1.OwnerReference{p.ownerRef()})
		}
		want = append(want, blueprint.EntryOf(gateway, o))
		if err := c.watchChildren(o.GroupVersionKind()); err != nil {
			return syncResult{inv: inv}, err
		}
		if !c.unchanged(ctx, o) {
			changed = append(changed, o)
		}
	}
	for _, o := range changed {
		why, err := c.theirs(ctx, p, o)
		if err != nil {
			return syncResult{inv: inv}, err
		}
		if why != "" {
			return syncResult{inv: inv, refused: why}, nil
		}
	}
	for _, o := range changed {
		err := c.client.Apply(ctx, client.ApplyConfigurationFromUnstructured(o.DeepCopy()),
			client.FieldOwner(c.opts.FieldManager), client.ForceOwnership, client.DryRunAll)
		if err != nil {
			if refusal(err) {
				return syncResult{inv: inv, refused: fmt.Sprintf("%s: the API server refused it (dry run, nothing applied): %v", blueprint.EntryOf("", o).Describe(), err)}, nil
			}
			return syncResult{inv: inv}, fmt.Errorf("dry-run apply %s: %w", blueprint.EntryOf("", o).Describe(), err)
		}
	}
	if next := inv.Union(want); !slices.Equal(next, inv) {
		if err := c.writeInventory(ctx, p, next); err != nil {
			return syncResult{inv: inv}, err
		}
		inv = next
	}
	for _, o := range changed {
		applied := o.DeepCopy()
		if err := c.client.Apply(ctx, client.ApplyConfigurationFromUnstructured(applied),
			client.FieldOwner(c.opts.FieldManager), client.ForceOwnership); err != nil {
			if refusal(err) { // accepted by the dry run: the next render retries
				return syncResult{inv: inv, refused: fmt.Sprintf("%s: the API server refused it: %v", blueprint.EntryOf("", o).Describe(), err)}, nil
			}
			return syncResult{inv: inv}, fmt.Errorf("apply %s: %w", blueprint.EntryOf("", o).Describe(), err)
		}
		c.writes.WithLabelValues(o.GetKind(), "apply").Inc()
		c.remember(o, applied)
	}
	var stale []blueprint.InventoryEntry
	for _, e := range inv.Of(gateway) {
		if !slices.Contains(want, e) {
			stale = append(stale, e)
		}
	}
	if err := c.prune(ctx, p.key, stale); err != nil {
		return syncResult{inv: inv}, err
	}
	if next := inv.Without(stale); !slices.Equal(next, inv) {
		if err := c.writeInventory(ctx, p, next); err != nil {
			return syncResult{inv: inv}, err
		}
		inv = next
	}
	return syncResult{inv: inv}, nil
}

// refusal tells an API server's "no" to an object (invalid, forbidden, a
// kind or namespace it does not serve) from a failure worth retrying.
func refusal(err error) bool {
	return apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) || apierrors.IsForbidden(err) ||
		apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err) || meta.IsNoMatchError(err) ||
		apierrors.IsRequestEntityTooLargeError(err)
}

// release deletes every child of a parent that Strata no longer renders
// (its GatewayClass is served by another controller) and drops the
// inventory.
func (c *Controller) release(ctx context.Context, p parentObj) error {
	inv := c.inventory(p.obj)
	if len(inv) == 0 {
		return nil
	}
	if err := c.prune(ctx, p.key, inv); err != nil {
		return err
	}
	return c.writeInventory(ctx, p, nil)
}

// orphaned cleans up after a parent that is gone: its last known
// inventory, and whatever the child cache holds labelled with it
// (cluster-scoped children are not garbage collected).
func (c *Controller) orphaned(ctx context.Context, k key) error {
	c.mu.Lock()
	inv, kinds := c.known[k], slices.Collect(maps.Keys(c.watched))
	c.mu.Unlock()
	for _, gvk := range kinds {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := c.children.List(ctx, l, client.MatchingLabels{
			render.LabelParentKind: k.Kind, render.LabelParentNamespace: render.LabelValue(k.Namespace), render.LabelParentName: render.LabelValue(k.Name),
			render.LabelController: render.LabelValue(c.opts.ControllerName),
		}); err != nil {
			return fmt.Errorf("list %s children of %s %s: %w", gvk.Kind, k.Kind, k.nn(), err)
		}
		for i := range l.Items {
			inv = append(inv, blueprint.EntryOf("", &l.Items[i]))
		}
	}
	if err := c.prune(ctx, k, inv); err != nil {
		return err
	}
	c.mu.Lock()
	delete(c.known, k)
	c.mu.Unlock()
	return nil
}

// remembers records a parent's inventory as last read, for orphaned.
func (c *Controller) remembers(k key, inv blueprint.Inventory) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(inv) == 0 {
		delete(c.known, k)
		return
	}
	c.known[k] = inv
}

// prune deletes children of parent k. An object is deleted only if it
// still carries k's parent labels: one a user took over by removing them
// is left alone.
func (c *Controller) prune(ctx context.Context, k key, entries []blueprint.InventoryEntry) error {
	var errs []error
	for _, e := range entries {
		cur := e.Object()
		err := c.children.Get(ctx, client.ObjectKeyFromObject(cur), cur)
		if apierrors.IsNotFound(err) {
			// Not in the child cache: gone, relabelled, or created so
			// recently that the cache has not seen it; ask the API server.
			err = c.reader.Get(ctx, client.ObjectKeyFromObject(cur), cur)
		}
		switch {
		case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
			c.forget(idOf(e))
			continue
		case err != nil:
			errs = append(errs, fmt.Errorf("read %s: %w", e.Describe(), err))
			continue
		}
		l := cur.GetLabels()
		if l[render.LabelController] != render.LabelValue(c.opts.ControllerName) {
			c.log.Info("not pruning an object another blueprint controller rendered", "object", e.Describe(), "controller", l[render.LabelController])
			c.forget(idOf(e))
			continue
		}
		if l[render.LabelParentKind] != k.Kind || l[render.LabelParentNamespace] != render.LabelValue(k.Namespace) || l[render.LabelParentName] != render.LabelValue(k.Name) {
			c.log.Info("not pruning an object that no longer carries its parent's labels", "object", e.Describe(), "parent", k.Kind+" "+k.nn().String())
			c.forget(idOf(e))
			continue
		}
		pre := metav1.Preconditions{UID: ptr.To(cur.GetUID())}
		err = c.client.Delete(ctx, cur, client.Preconditions(pre), client.PropagationPolicy(metav1.DeletePropagationBackground))
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			errs = append(errs, fmt.Errorf("delete %s: %w", e.Describe(), err))
			continue
		}
		if err == nil {
			c.writes.WithLabelValues(e.Kind, "delete").Inc()
		}
		c.forget(idOf(e))
	}
	return errors.Join(errs...)
}

// writeInventory sets (nil: removes) the inventory annotation with a JSON
// merge patch of that one key: no other field is sent, so no lock is
// needed.
func (c *Controller) writeInventory(ctx context.Context, p parentObj, inv blueprint.Inventory) error {
	key := blueprint.InventoryAnnotationFor(c.opts.ControllerName)
	cur, has := p.obj.GetAnnotations()[key]
	var v any // nil removes the key
	if len(inv) > 0 {
		if has && cur == inv.String() {
			return nil
		}
		v = inv.String()
	} else if !has {
		return nil
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{key: v}}})
	if err != nil {
		return err
	}
	obj := p.obj.DeepCopyObject().(client.Object)
	if err := c.client.Patch(ctx, obj, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("write inventory of %s %s: %w", p.Kind, p.nn(), err)
	}
	c.writes.WithLabelValues(p.Kind, "inventory").Inc()
	// Continue from the object the API server returned, for the status
	// write that follows.
	switch o := p.obj.(type) {
	case *gwv1.Gateway:
		obj.(*gwv1.Gateway).DeepCopyInto(o)
	case *gwv1.HTTPRoute:
		obj.(*gwv1.HTTPRoute).DeepCopyInto(o)
	default:
		p.obj.SetAnnotations(obj.GetAnnotations())
	}
	c.remembers(p.key, inv)
	return nil
}

// resources is what .Resources reads for one render scope: the current
// state of the children in the inventory, by template name.
func (c *Controller) resources(ctx context.Context, inv blueprint.Inventory, gateway string) (map[string][]*unstructured.Unstructured, error) {
	var found []*unstructured.Unstructured
	for _, e := range inv.Of(gateway) {
		if err := c.watchChildren(e.GVK()); err != nil {
			return nil, err
		}
		u := e.Object()
		if err := c.children.Get(ctx, client.ObjectKeyFromObject(u), u); err != nil {
			if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
				continue
			}
			return nil, fmt.Errorf("read %s: %w", e.Describe(), err)
		}
		found = append(found, u)
	}
	if found == nil {
		return nil, nil
	}
	return blueprint.ByTemplate(found), nil
}

// unchanged reports whether applying o would change nothing: it renders
// as last applied, and the child in the cache is the one Strata applied
// with Strata's managed fields unchanged (anyone changing a field Strata
// set takes it over, which changes them).
func (c *Controller) unchanged(ctx context.Context, o *unstructured.Unstructured) bool {
	id := childID{GVK: o.GroupVersionKind(), NamespacedName: client.ObjectKeyFromObject(o)}
	c.mu.Lock()
	st, ok := c.applied[id]
	c.mu.Unlock()
	if !ok || st.hash != hash(o) {
		return false
	}
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(o.GroupVersionKind())
	if err := c.children.Get(ctx, id.NamespacedName, cur); err != nil {
		return false
	}
	return cur.GetUID() == st.uid && c.managedFields(cur) == st.fields
}

// remember records what was applied (o) and what the API server returned
// (applied).
func (c *Controller) remember(o, applied *unstructured.Unstructured) {
	id := childID{GVK: o.GroupVersionKind(), NamespacedName: client.ObjectKeyFromObject(o)}
	c.mu.Lock()
	c.applied[id] = appliedState{hash: hash(o), uid: applied.GetUID(), fields: c.managedFields(applied)}
	c.mu.Unlock()
}

func (c *Controller) forget(id childID) {
	c.mu.Lock()
	delete(c.applied, id)
	c.mu.Unlock()
}

// managedFields is Strata's apply entry of an object's managedFields.
func (c *Controller) managedFields(o *unstructured.Unstructured) string {
	for _, f := range o.GetManagedFields() {
		if f.Manager == c.opts.FieldManager && f.Operation == metav1.ManagedFieldsOperationApply && f.Subresource == "" && f.FieldsV1 != nil {
			return f.FieldsV1.GetRawString()
		}
	}
	return ""
}

// hash of an object's JSON (encoding/json sorts map keys).
func hash(o *unstructured.Unstructured) string {
	b, _ := json.Marshal(o.Object)
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// refusalRetry is when a render the API server refused is tried again
// without an event: what made it refuse (RBAC, a webhook, a quota) is not
// watched.
const refusalRetry = time.Minute

// withValues adds the parent's values object to a render's objects,
// unless turned off.
func (c *Controller) withValues(in render.Input, v *values.Values, objs []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	if c.opts.NoValuesObjects {
		return objs, nil
	}
	ep, err := blueprint.ValuesObject(in, v)
	if err != nil {
		return nil, err
	}
	return append(slices.Clip(objs), ep), nil
}

// theirs says why o must not be applied, or "": an object of that name
// exists and is not this parent's child. Forced apply would take it over,
// so a tenant could overwrite a neighbour's object by choosing names (002
// tenant safety). The API server is asked: the cache holds rendered
// objects only.
func (c *Controller) theirs(ctx context.Context, p parentObj, o *unstructured.Unstructured) (string, error) {
	cur := &metav1.PartialObjectMetadata{}
	cur.SetGroupVersionKind(o.GroupVersionKind())
	if err := c.reader.Get(ctx, client.ObjectKeyFromObject(o), cur); err != nil {
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			return "", nil // a kind not served: the dry run says so
		}
		return "", fmt.Errorf("read %s: %w", blueprint.EntryOf("", o).Describe(), err)
	}
	what := blueprint.EntryOf("", o).Describe()
	want, have := o.GetLabels(), cur.GetLabels()
	for _, k := range []string{render.LabelController, render.LabelParentKind, render.LabelParentNamespace, render.LabelParentName, render.LabelGateway} {
		if want[k] != have[k] {
			return fmt.Sprintf("%s already exists and was not rendered for %s %s/%s; refusing to take it over (nothing applied): rename it in the template or delete it", what, p.gvk.Kind, p.obj.GetNamespace(), p.obj.GetName()), nil
		}
	}
	if ref := metav1.GetControllerOf(cur); ref != nil && ref.UID != p.obj.GetUID() {
		return fmt.Sprintf("%s already exists and is controlled by %s %s; refusing to take it over (nothing applied)", what, ref.Kind, ref.Name), nil
	}
	return "", nil
}
