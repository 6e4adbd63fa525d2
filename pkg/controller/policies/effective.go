package policies

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/sink/effectivepolicy"
)

// ManagedByLabel marks the EffectivePolicy objects Strata writes, so that
// it only ever deletes its own.
const ManagedByLabel = "strata.dev/managed-by"

var effectivePolicyGVK = effectivepolicy.SchemeGroupVersion.WithKind(effectivepolicy.Kind)

// Records are the EffectivePolicy objects of a run: one per namespaced,
// non-virtual effective target of a managed kind (Strata must not speak
// for another implementation), in the target's namespace and owned by it,
// each kind published as its visibility allows (withhold) and bounded in
// size (bound). They tell a reader who may read the target but not the
// policies what affects it (GEP-713 "Discoverability"); tests and tools
// answer from them offline.
func Records(res *engine.Result) []*effectivepolicy.EffectivePolicy {
	visibility := map[schema.GroupKind]policykind.Visibility{} // of the managed kinds
	for _, k := range res.PolicyKinds() {
		if k.Managed {
			visibility[k.Key()] = k.Visibility
		}
	}
	var out []*effectivepolicy.EffectivePolicy
	at := attachmentsOf(res)
	for _, ep := range effectivepolicy.Build(res) {
		var kept []effectivepolicy.KindPolicies
		for _, kp := range ep.Policies {
			if _, managed := visibility[schema.GroupKind{Group: kp.Group, Kind: kp.Kind}]; managed {
				kept = append(kept, kp)
			}
		}
		if len(kept) == 0 || ep.Namespace == "" {
			continue
		}
		owner := res.Graph.Lookup(topology.FromAPI(ep.Target).Object())
		if owner < 0 {
			continue
		}
		obj, ok := res.Graph.Node(owner).Object.(client.Object)
		if !ok {
			continue // virtual targets have no object to own the policy
		}
		ep.Policies = kept
		at.fill(ep)
		for i, kp := range ep.Policies {
			ep.Policies[i] = withhold(kp, visibility[schema.GroupKind{Group: kp.Group, Kind: kp.Kind}])
		}
		ep.Policies = bound(ep.Policies)
		ep.Labels[ManagedByLabel] = "strata"
		gvk := res.Graph.Node(owner).Ref
		ep.OwnerReferences = []metav1.OwnerReference{{
			APIVersion: apiVersionOf(obj, gvk.Group),
			Kind:       gvk.Kind,
			Name:       obj.GetName(),
			UID:        obj.GetUID(),
		}}
		out = append(out, ep)
	}
	disambiguate(out)
	return out
}

// disambiguate renames objects whose targets of different kinds share a
// namespace and name to <name>.<kind, lower case>, so one target's record
// never overwrites another's.
func disambiguate(eps []*effectivepolicy.EffectivePolicy) {
	n := map[client.ObjectKey]int{}
	for _, ep := range eps {
		n[client.ObjectKeyFromObject(ep)]++
	}
	for _, ep := range eps {
		if n[client.ObjectKeyFromObject(ep)] > 1 {
			ep.Name += "." + strings.ToLower(ep.Target.Kind)
		}
	}
}

// writeEffectivePolicies creates, updates and deletes Strata's
// EffectivePolicy objects so that they equal the desired set, writing only
// those that differ.
func (c *Controller) writeEffectivePolicies(ctx context.Context, res *engine.Result) error {
	if !c.present(effectivePolicyGVK) {
		return nil
	}
	if !c.isWatched(effectivePolicyGVK) {
		if err := c.watch(ctx, effectivePolicyGVK); err != nil {
			return err
		}
		if !c.isWatched(effectivePolicyGVK) {
			return nil // forbidden: reported by access.go
		}
	}
	have := &effectivepolicy.EffectivePolicyList{}
	if err := c.cache.List(ctx, have, client.MatchingLabels{ManagedByLabel: "strata"}); err != nil {
		return fmt.Errorf("list EffectivePolicies: %w", err)
	}
	existing := map[client.ObjectKey]*effectivepolicy.EffectivePolicy{}
	for i := range have.Items {
		existing[client.ObjectKeyFromObject(&have.Items[i])] = &have.Items[i]
	}
	var errs []error
	for _, want := range noteOmissions(Records(res), c.omittedOf) {
		key := client.ObjectKeyFromObject(want)
		cur, ok := existing[key]
		delete(existing, key)
		switch {
		case !ok:
			if err := c.client.Create(ctx, want); err != nil && !apierrors.IsAlreadyExists(err) {
				errs = append(errs, err)
				continue
			}
		case equality.Semantic.DeepEqual(cur.Target, want.Target) && equality.Semantic.DeepEqual(cur.Policies, want.Policies) &&
			equality.Semantic.DeepEqual(cur.Labels, want.Labels) && equality.Semantic.DeepEqual(cur.OwnerReferences, want.OwnerReferences):
			continue
		default:
			next := cur.DeepCopy()
			next.Target, next.Policies, next.Labels, next.OwnerReferences = want.Target, want.Policies, want.Labels, want.OwnerReferences
			if err := c.client.Update(ctx, next); err != nil {
				if !apierrors.IsConflict(err) {
					errs = append(errs, err)
				}
				continue
			}
		}
		c.metrics.writes.WithLabelValues(effectivepolicy.Kind).Inc()
	}
	for _, stale := range existing {
		if err := c.client.Delete(ctx, stale); client.IgnoreNotFound(err) != nil {
			errs = append(errs, err)
			continue
		}
		c.metrics.writes.WithLabelValues(effectivepolicy.Kind).Inc()
	}
	return errors.Join(errs...)
}

// apiVersionOf is the apiVersion for an owner reference to obj.
func apiVersionOf(obj client.Object, group string) string {
	if gvk := obj.GetObjectKind().GroupVersionKind(); gvk.Version != "" {
		return gvk.GroupVersion().String()
	}
	return schema.GroupVersion{Group: group, Version: "v1"}.String()
}
