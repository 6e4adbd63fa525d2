package policies

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/source/cluster"
)

// Access to what the controller reads. Policy kinds are data (labelled
// CRDs, PolicyKind objects), so a kind may appear without a ClusterRole for
// it, and an informer whose list is forbidden never syncs, stalling every
// read of the cache. So before reading or watching a kind the controller
// asks the API server (a SelfSubjectAccessReview, as `kubectl auth can-i`)
// whether it may list and watch it in every namespace. A kind it may not
// is left out, as if not served, and reported (log, gauge
// strata_kind_unreadable, Warning Event on its CRD); denied kinds are
// asked again every Options.AccessRecheck, since RBAC changes send no
// event. GEP-713 merges within a kind, so leaving one out does not change
// the other kinds' status.

// accessVerbs are what an informer needs: list for the initial sync and
// relists, watch for updates.
var accessVerbs = []string{"list", "watch"}

// access remembers the controller's answers: allowed kinds for good (an
// informer keeps serving what it has if a role is later revoked), denied
// kinds until a recheck allows them.
type access struct {
	mu      sync.Mutex
	allowed map[schema.GroupVersionKind]bool
	denied  map[schema.GroupVersionKind]string // why, as logged
}

// readable reports whether the controller may read gvk, asking the API
// server the first time. A kind the cluster does not serve is readable
// (nothing to ask; present decides whether it is read).
func (c *Controller) readable(ctx context.Context, gvk schema.GroupVersionKind) (bool, error) {
	c.access.mu.Lock()
	ok, known := c.access.allowed[gvk]
	_, denied := c.access.denied[gvk]
	c.access.mu.Unlock()
	switch {
	case known:
		return ok, nil
	case denied:
		return false, nil
	}
	allowed, served, why, err := c.review(ctx, gvk)
	switch {
	case err != nil:
		return false, err
	case !served:
		// Nothing to read now, and nothing to remember: its CRD may
		// come later without a role.
		return true, nil
	case allowed:
		c.access.mu.Lock()
		c.access.allowed[gvk] = true
		c.access.mu.Unlock()
		return true, nil
	}
	c.deny(ctx, gvk, why)
	return false, nil
}

// review asks the API server whether the controller may list and watch
// gvk in every namespace (served: the cluster serves the kind; when not,
// there is nothing to ask); why names what is missing.
func (c *Controller) review(ctx context.Context, gvk schema.GroupVersionKind) (allowed, served bool, why string, err error) {
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return false, false, "", nil
	}
	var missing []string
	for _, verb := range accessVerbs {
		r := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{
				Group: m.Resource.Group, Version: m.Resource.Version, Resource: m.Resource.Resource, Verb: verb,
			},
		}}
		if err := c.client.Create(ctx, r); err != nil {
			return false, true, "", fmt.Errorf("ask whether %s may be %s: %w", m.Resource.GroupResource(), verb+"ed", err)
		}
		if !r.Status.Allowed {
			missing = append(missing, verb)
		}
	}
	if len(missing) == 0 {
		return true, true, "", nil
	}
	return false, true, fmt.Sprintf("may not %s %s in every namespace; grant get, list, watch on it with a ClusterRole labelled %s (docs/install.md, \"Adding a policy kind\")",
		strings.Join(missing, " or "), m.Resource.GroupResource(), aggregateLabel), nil
}

// aggregateLabel selects the ClusterRoles aggregated into the
// controller's (config/rbac/role.yaml).
const aggregateLabel = `strata.dev/aggregate-to-controller: "true"`

// deny records a kind the controller may not read and reports it once.
func (c *Controller) deny(ctx context.Context, gvk schema.GroupVersionKind, why string) {
	c.access.mu.Lock()
	_, before := c.access.denied[gvk]
	c.access.denied[gvk] = why
	c.access.mu.Unlock()
	if before {
		return
	}
	c.metrics.unreadable.WithLabelValues(gvk.GroupKind().String()).Set(1)
	c.log.Info("not watching a kind: forbidden; it is left out until a role grants it", "kind", gvk.String(), "reason", why)
	c.eventOnCRD(ctx, gvk, why)
}

// eventOnCRD records a Warning Event on the CRD that defines gvk, where
// whoever installed the kind looks (`kubectl describe crd`); core kinds
// have no CRD and get only the log line and the gauge.
func (c *Controller) eventOnCRD(ctx context.Context, gvk schema.GroupVersionKind, why string) {
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil || gvk.Group == "" {
		return
	}
	crd, err := c.newObject(cluster.CRDGVK)
	if err != nil {
		return
	}
	if err := c.cache.Get(ctx, client.ObjectKey{Name: m.Resource.Resource + "." + m.Resource.Group}, crd); err != nil {
		return
	}
	crd.GetObjectKind().SetGroupVersionKind(cluster.CRDGVK)
	if !c.eventLimiter.Allow() {
		c.metrics.eventsDropped.Inc()
		return
	}
	c.opts.Recorder.Eventf(crd, nil, "Warning", "Forbidden", "Watch", "Strata %s", why)
}

// deniedKinds are the kinds the controller may not read, with why.
func (c *Controller) deniedKinds() map[schema.GroupVersionKind]string {
	c.access.mu.Lock()
	defer c.access.mu.Unlock()
	return maps.Clone(c.access.denied)
}

// recheckAccess asks again, every interval, about the kinds denied so
// far; one that is now allowed is read from the next (full) run on.
func (c *Controller) recheckAccess(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		granted := false
		for _, gvk := range slices.SortedFunc(maps.Keys(c.deniedKinds()), func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) }) {
			ok, _, _, err := c.review(ctx, gvk)
			if err != nil || !ok {
				continue
			}
			c.access.mu.Lock()
			delete(c.access.denied, gvk)
			c.access.allowed[gvk] = true
			c.access.mu.Unlock()
			c.metrics.unreadable.DeleteLabelValues(gvk.GroupKind().String())
			c.log.Info("kind now readable; watching it", "kind", gvk.String())
			granted = true
		}
		if granted {
			c.mu.Lock()
			c.full = true
			c.mu.Unlock()
			c.trigger()
		}
	}
}

// writeWatched keeps each PolicyKind's Watched condition on what the
// controller reads: True for the kinds among read, False Forbidden for a
// kind it may not read, False NotServed for one no established CRD
// serves.
func (c *Controller) writeWatched(ctx context.Context, read []cluster.PolicyGVK) error {
	if !c.isWatched(cluster.PolicyKindGVK) {
		return nil
	}
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(cluster.PolicyKindGVK.GroupVersion().WithKind(cluster.PolicyKindGVK.Kind + "List"))
	if err := c.cache.List(ctx, l); err != nil {
		return fmt.Errorf("list PolicyKinds: %w", err)
	}
	reading := map[schema.GroupKind]bool{}
	for _, k := range read {
		reading[k.GroupKind()] = true
	}
	denied := map[schema.GroupKind]string{}
	for gvk, why := range c.deniedKinds() {
		denied[gvk.GroupKind()] = why
	}
	var errs []error
	for i := range l.Items {
		pk := &l.Items[i]
		group, _, _ := unstructured.NestedString(pk.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(pk.Object, "spec", "kind")
		gk := schema.GroupKind{Group: group, Kind: kind}
		want := metav1.Condition{Type: strata.ConditionWatched, ObservedGeneration: pk.GetGeneration()}
		switch why, forbidden := denied[gk]; {
		case forbidden:
			want.Status, want.Reason, want.Message = metav1.ConditionFalse, strata.ReasonForbidden, "Strata "+why
		case reading[gk]:
			want.Status, want.Reason, want.Message = metav1.ConditionTrue, strata.ReasonWatching, "Strata lists and watches "+gk.String()+" policies"
		default:
			want.Status, want.Reason, want.Message = metav1.ConditionFalse, strata.ReasonNotServed, "no established CustomResourceDefinition serves "+gk.String()
		}
		if err := c.setCondition(ctx, pk, want); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// setCondition patches one condition into a PolicyKind's
// status.conditions when it differs (meta.SetStatusCondition keeps
// lastTransitionTime while the status stays), with optimistic locking.
func (c *Controller) setCondition(ctx context.Context, obj *unstructured.Unstructured, want metav1.Condition) error {
	var st strata.PolicyKindStatus
	if m, ok := obj.Object["status"].(map[string]any); ok {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &st); err != nil {
			return fmt.Errorf("status of %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	want.LastTransitionTime = metav1.NewTime(c.opts.Now().UTC().Truncate(time.Second))
	if !meta.SetStatusCondition(&st.Conditions, want) {
		return nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&st)
	if err != nil {
		return err
	}
	next := obj.DeepCopy()
	next.Object["status"] = m
	if err := c.client.Status().Patch(ctx, next, client.MergeFromWithOptions(obj, client.MergeFromWithOptimisticLock{})); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("patch status of %s %s: %w", obj.GetKind(), obj.GetName(), err)
	}
	c.metrics.writes.WithLabelValues(obj.GetKind()).Inc()
	return nil
}
