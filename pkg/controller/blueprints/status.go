package blueprints

import (
	"context"
	"slices"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// Status is written the way pkg/controller/policies writes it, so the two
// controllers share objects without fighting: only what the blueprint
// controller owns is computed (its condition types, Gateway addresses and
// listeners, route parent and config ancestor entries of its
// controllerName), everything else is copied as stored; the result is
// written only when it differs, as a merge patch with optimistic locking;
// lastTransitionTime changes only when a condition's status does.

// maxMessage bounds condition messages (the API allows 32768 bytes).
const maxMessage = 8192

func condition(typ string, ok bool, reason, msg string) metav1.Condition {
	s := metav1.ConditionFalse
	if ok {
		s = metav1.ConditionTrue
	}
	if len(msg) > maxMessage {
		msg = msg[:maxMessage-3] + "..."
	}
	return metav1.Condition{Type: typ, Status: s, Reason: reason, Message: msg}
}

// setConditions returns list with conds set (by type), other types kept,
// and the lastTransitionTime of a condition whose status did not change
// kept.
func (c *Controller) setConditions(list []metav1.Condition, generation int64, conds ...metav1.Condition) []metav1.Condition {
	out := slices.Clone(list)
	for _, cond := range conds {
		cond.ObservedGeneration = generation
		cond.LastTransitionTime = metav1.NewTime(c.now())
		meta.SetStatusCondition(&out, cond)
	}
	return out
}

// patchStatus writes next's status over cur's when they differ.
func (c *Controller) patchStatus(ctx context.Context, cur, next client.Object, kind string, differ bool) error {
	if !differ {
		return nil
	}
	if err := c.client.Status().Patch(ctx, next, client.MergeFromWithOptions(cur, client.MergeFromWithOptimisticLock{})); err != nil {
		if apierrors.IsNotFound(err) {
			return nil // deleted meanwhile; its delete event follows
		}
		return err
	}
	c.writes.WithLabelValues(kind, "status").Inc()
	return nil
}

// differ compares two statuses (nil and empty lists alike).
func differ(a, b any) bool { return !equality.Semantic.DeepEqual(a, b) }

// normalRef fills a ParentReference's defaults (group, kind and, for a
// namespaced kind, namespace) as the API server's defaulting and Gateway
// API's reading of it do, so references compare equal however they were
// written.
func normalRef(r gwv1.ParentReference, ns string) gwv1.ParentReference {
	r = *r.DeepCopy()
	if r.Group == nil {
		r.Group = ptr.To(gwv1.Group(gwv1.GroupName))
	}
	if r.Kind == nil {
		r.Kind = ptr.To(gwv1.Kind("Gateway"))
	}
	if r.Namespace == nil && ns != "" {
		r.Namespace = ptr.To(gwv1.Namespace(ns))
	}
	return r
}

func sameRef(a, b gwv1.ParentReference, ns string) bool {
	return equality.Semantic.DeepEqual(normalRef(a, ns), normalRef(b, ns))
}
