package policies

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/outcome"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/sink/effectivepolicy"
	"github.com/strata-dev/strata/pkg/sink/status"
)

// noteOmissions sets, on each record, the lists of its target's status
// that lack a kind's <Kind>Affected condition for want of room
// (KindPolicies.ConditionOmittedFrom, docs/status.md "Room"), from what
// omitted says of the record's owner. It returns eps.
func noteOmissions(eps []*effectivepolicy.EffectivePolicy, omitted func(targetKey) []hierarchy.Omission) []*effectivepolicy.EffectivePolicy {
	for _, ep := range eps {
		if len(ep.OwnerReferences) == 0 {
			continue
		}
		owner := ep.OwnerReferences[0]
		gvk := schema.FromAPIVersionAndKind(owner.APIVersion, owner.Kind)
		om := omitted(targetKey{GVK: gvk, NamespacedName: types.NamespacedName{Namespace: ep.Namespace, Name: owner.Name}})
		if len(om) == 0 {
			continue
		}
		for i := range ep.Policies {
			kp := &ep.Policies[i]
			typ := outcome.ConditionType(&policykind.Kind{Spec: policykind.Spec{Kind: kp.Kind, ControllerName: kp.ControllerName}})
			kp.ConditionOmittedFrom = status.OmittedFrom(om, gvk.GroupKind(), ep.Target.SectionName, typ)
		}
	}
	return eps
}

// omittedOf is what the fragment of the object last compared for writing
// left out (status.Fragment.Omitted).
func (c *Controller) omittedOf(key targetKey) []hierarchy.Omission {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f := c.desired[key]; f != nil {
		return f.Omitted
	}
	return nil
}
