package blueprint

import (
	"encoding/json"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
	"github.com/strata-dev/strata/pkg/effectivepolicy"
)

// ValuesKind is the policy kind an EffectivePolicy of merged blueprint
// values reports: the values are the effective "policy" of 002, made of
// two policy kinds and the blueprint.
const ValuesKind = "BlueprintValues"

// EffectivePolicyName is the name of the EffectivePolicy that holds a
// parent's merged values, next to the parent. The suffix keeps it apart
// from the policy controller's EffectivePolicy named after the target.
// (ValuesObject adds the Gateway to a route's: a route is rendered once
// per parent Gateway.)
func EffectivePolicyName(p Parent) string { return p.Name + ".blueprint-values" }

// EffectivePolicy reports a parent's merged values as an EffectivePolicy
// object (the GEP-713 "EffectivePolicy" of 001), so `kubectl get
// effectivepolicy` shows what the templates read and who set every
// value, without reading the configs one by one.
func EffectivePolicy(v *Values, controllerName string) *effectivepolicy.EffectivePolicy {
	ep := &effectivepolicy.EffectivePolicy{
		Target: effectivepolicy.Ref{Group: gatewayGroup, Kind: v.Parent.Kind, Namespace: v.Parent.Namespace, Name: v.Parent.Name},
	}
	ep.APIVersion = effectivepolicy.Group + "/" + effectivepolicy.Version
	ep.Kind = effectivepolicy.Kind
	ep.Namespace = v.Parent.Namespace
	ep.Name = EffectivePolicyName(v.Parent)
	ep.Labels = map[string]string{effectivepolicy.Group + "/target-kind": v.Parent.Kind}
	raw, err := json.Marshal(v.Values)
	if err != nil || v.Values == nil {
		raw = []byte("{}")
	}
	ctx := effectivepolicy.Context{
		Path: []effectivepolicy.Ref{
			{Group: gatewayGroup, Kind: "GatewayClass", Name: v.Parent.Class},
			ep.Target,
		},
		ResultantPolicy: &apiextensionsv1.JSON{Raw: raw},
		Sources:         []effectivepolicy.Source{},
		FieldSources:    map[string]string{},
	}
	for _, l := range v.Leaves {
		ctx.FieldSources[l.Pointer] = l.Source.String()
	}
	for _, a := range v.Applied {
		ctx.Sources = append(ctx.Sources, effectivepolicy.Source{Namespace: a.Config.Namespace, Name: a.Config.Kind + "/" + a.Config.Name, Result: a.Result()})
	}
	ep.Policies = []effectivepolicy.KindPolicies{{
		Group:          bpv1.Group,
		Kind:           ValuesKind,
		ControllerName: controllerName,
		Contexts:       []effectivepolicy.Context{ctx},
	}}
	return ep
}

// Chain is every source that set the leaf, the winner first, then the
// ones it beat: the answer to "why does this value win?".
func (l Leaf) Chain() []Source {
	return append([]Source{l.Source}, l.Beaten...)
}

// ValuesObject is the EffectivePolicy of a parent's merged values as an
// object to apply with the render's objects: in the parent's namespace,
// labelled like them (so the controller owns, watches and prunes it the
// same way) but with no template label, so templates never see it in
// .Resources.
func ValuesObject(in Input, v *Values, controllerName string) (*unstructured.Unstructured, error) {
	ep := EffectivePolicy(v, controllerName)
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ep)
	if err != nil {
		return nil, fmt.Errorf("EffectivePolicy %s/%s: %w", ep.Namespace, ep.Name, err)
	}
	u := &unstructured.Unstructured{Object: m}
	if in.Route != nil && in.Gateway != nil {
		// A route is rendered once per parent Gateway.
		u.SetName(in.Route.Name + "." + GatewayLabelValue(in.Gateway.Namespace, in.Gateway.Name) + ".blueprint-values")
	}
	labels := u.GetLabels()
	for k, val := range in.Labels() {
		labels[k] = val
	}
	u.SetLabels(labels)
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u, nil
}
