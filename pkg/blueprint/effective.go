package blueprint

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/blueprint/render"
	"github.com/strata-dev/strata/pkg/blueprint/values"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
)

// ValuesKind is the policy kind an EffectivePolicy of merged blueprint
// values reports: the values are the effective "policy" of 002, made of
// two policy kinds and the blueprint.
const ValuesKind = "BlueprintValues"

// effectivePolicy reports a parent's merged values as an EffectivePolicy
// object (GEP-713), so `kubectl get effectivepolicy` shows what the
// templates read and who set every value.
func effectivePolicy(v *values.Values, name, controllerName string) *strata.EffectivePolicy {
	ep := &strata.EffectivePolicy{
		Target: strata.Ref{Group: hierarchy.GatewayGroup, Kind: v.Parent.Kind, Namespace: v.Parent.Namespace, Name: v.Parent.Name},
	}
	ep.APIVersion = strata.Group + "/" + strata.Version
	ep.Kind = strata.EffectivePolicyKind
	ep.Namespace = v.Parent.Namespace
	ep.Name = name
	ep.Labels = map[string]string{strata.TargetKindLabel: v.Parent.Kind}
	raw, err := json.Marshal(v.Values)
	if err != nil || v.Values == nil {
		raw = []byte("{}")
	}
	ctx := strata.Context{
		Path: []strata.Ref{
			{Group: hierarchy.GatewayGroup, Kind: "GatewayClass", Name: v.Parent.Class},
			ep.Target,
		},
		ResultantPolicy: &apiextensionsv1.JSON{Raw: raw},
		Sources:         []strata.Source{},
		FieldSources:    map[string]string{},
	}
	for _, l := range v.Leaves {
		ctx.FieldSources[l.Pointer] = l.Source.String()
	}
	for _, a := range v.Applied {
		ctx.Sources = append(ctx.Sources, strata.Source{Namespace: a.Config.Namespace, Name: a.Config.Kind + "/" + a.Config.Name, Result: a.Result()})
	}
	ep.Policies = []strata.KindPolicies{{
		Group:          bpv1.Group,
		Kind:           ValuesKind,
		ControllerName: controllerName,
		Contexts:       []strata.Context{ctx},
	}}
	return ep
}

// ValuesObject is the EffectivePolicy of a parent's merged values as an
// object to apply with the render's objects: in the parent's namespace,
// labelled like them but with no template label (templates never see it
// in .Resources), named `<parent>.blueprint-values` (a route's name also
// has the Gateway it is rendered for).
func ValuesObject(in render.Input, v *values.Values) (*unstructured.Unstructured, error) {
	name := v.Parent.Name + ".blueprint-values"
	if in.Route != nil && in.Gateway != nil {
		name = in.Route.Name + "." + render.GatewayLabelValue(in.Gateway.Namespace, in.Gateway.Name) + ".blueprint-values"
	}
	ep := effectivePolicy(v, objectName(name), in.ControllerName)
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ep)
	if err != nil {
		return nil, fmt.Errorf("EffectivePolicy %s/%s: %w", ep.Namespace, ep.Name, err)
	}
	u := &unstructured.Unstructured{Object: m}
	labels := u.GetLabels()
	maps.Copy(labels, in.Labels())
	u.SetLabels(labels)
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u, nil
}

// objectName returns name when it is a valid object name, else one that
// is: its first characters, a dash and 16 hex digits of its SHA-256,
// ending like it (".blueprint-values"), so two long names stay apart.
func objectName(name string) string {
	if len(validation.IsDNS1123Subdomain(name)) == 0 {
		return name
	}
	const suffix = ".blueprint-values"
	sum := sha256.Sum256([]byte(name))
	tail := "-" + hex.EncodeToString(sum[:])[:16] + suffix
	head := strings.ToLower(strings.TrimSuffix(name, suffix))
	keep := 253 - len(tail)
	var b strings.Builder
	for i := 0; i < len(head) && b.Len() < keep; i++ {
		c := head[i]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' {
			b.WriteByte(c)
		}
	}
	return strings.TrimRight(strings.TrimLeft(b.String(), "-."), "-.") + tail
}
