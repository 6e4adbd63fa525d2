package blueprints

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
	"github.com/strata-dev/strata/pkg/blueprint"
	"github.com/strata-dev/strata/pkg/blueprint/render"
	"github.com/strata-dev/strata/pkg/blueprint/values"
)

// ourClass returns the GatewayClass of that name if Strata serves it (its
// controllerName is Options.ControllerName), else nil.
func (c *Controller) ourClass(ctx context.Context, name string) (*gwv1.GatewayClass, error) {
	gc, err := c.class(ctx, name)
	if err != nil || gc == nil || string(gc.Spec.ControllerName) != c.opts.ControllerName {
		return nil, err
	}
	return gc, nil
}

// class reads a GatewayClass (nil when there is none).
func (c *Controller) class(ctx context.Context, name string) (*gwv1.GatewayClass, error) {
	gc := &gwv1.GatewayClass{}
	if err := c.cache.Get(ctx, client.ObjectKey{Name: name}, gc); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	return gc, nil
}

// plan resolves a class's parametersRef to its blueprint and checks it
// (blueprint.ResolveClass, the check `strata render` does too).
func (c *Controller) plan(ctx context.Context, gc *gwv1.GatewayClass) (blueprint.ClassPlan, error) {
	if string(gc.Spec.ControllerName) != c.opts.ControllerName {
		return blueprint.ClassPlan{Class: gc, Err: fmt.Errorf("spec.controllerName: not %s", c.opts.ControllerName)}, nil
	}
	bps := map[string]*bpv1.GatewayClassBlueprint{}
	if ref := gc.Spec.ParametersRef; ref != nil && string(ref.Group) == bpv1.Group && string(ref.Kind) == bpv1.BlueprintKind {
		bp := &bpv1.GatewayClassBlueprint{}
		switch err := c.cache.Get(ctx, client.ObjectKey{Name: ref.Name}, bp); {
		case err == nil:
			bps[bp.Name] = bp
		case !apierrors.IsNotFound(err):
			return blueprint.ClassPlan{}, err
		}
	}
	return blueprint.ResolveClass(gc, bps), nil
}

// configs reads every GatewayClassConfig and GatewayConfig from the cache:
// values.Merge picks those that apply to a parent.
func (c *Controller) configs(ctx context.Context) ([]*values.Config, error) {
	gccs := &bpv1.GatewayClassConfigList{}
	if err := c.cache.List(ctx, gccs); err != nil {
		return nil, fmt.Errorf("list GatewayClassConfigs: %w", err)
	}
	gcs := &bpv1.GatewayConfigList{}
	if err := c.cache.List(ctx, gcs); err != nil {
		return nil, fmt.Errorf("list GatewayConfigs: %w", err)
	}
	out := make([]*values.Config, 0, len(gccs.Items)+len(gcs.Items))
	for i := range gccs.Items {
		out = append(out, values.ClassConfig(&gccs.Items[i]))
	}
	for i := range gcs.Items {
		out = append(out, values.GatewayConfig(&gcs.Items[i]))
	}
	return out, nil
}

// reconcileClass writes a served GatewayClass's Accepted condition: True
// when its parametersRef names an existing GatewayClassBlueprint whose
// templates parse, else False InvalidParameters naming the field or the
// template error.
func (c *Controller) reconcileClass(ctx context.Context, name string) error {
	gc, err := c.ourClass(ctx, name)
	if err != nil || gc == nil {
		return err
	}
	cp, err := c.plan(ctx, gc)
	if err != nil {
		return err
	}
	var cond metav1.Condition
	if cp.Err != nil {
		cond = condition(string(gwv1.GatewayClassConditionStatusAccepted), false, string(gwv1.GatewayClassReasonInvalidParameters), cp.Err.Error())
	} else {
		cond = condition(string(gwv1.GatewayClassConditionStatusAccepted), true, string(gwv1.GatewayClassReasonAccepted),
			fmt.Sprintf("GatewayClassBlueprint %s accepted", cp.Blueprint.Name))
	}
	next := gc.DeepCopy()
	next.Status.Conditions = c.setConditions(gc.Status.Conditions, gc.Generation, cond)
	return c.patchStatus(ctx, gc, next, kindClass, differ(gc.Status, next.Status))
}

// reconcileBlueprint writes a blueprint's Accepted condition (its
// templates parse and its values are objects) and watches the
// cluster-scoped kinds it may render, so that such children of a Gateway
// deleted while Strata was down are found and deleted (watch.go).
func (c *Controller) reconcileBlueprint(ctx context.Context, name string) error {
	bp := &bpv1.GatewayClassBlueprint{}
	if err := c.cache.Get(ctx, client.ObjectKey{Name: name}, bp); err != nil {
		return client.IgnoreNotFound(err)
	}
	for _, gk := range bp.Spec.ClusterScopedKinds {
		m, err := c.mapper.RESTMapping(schema.GroupKind{Group: gk.Group, Kind: gk.Kind})
		if err != nil {
			continue // not served (yet); rendering refuses it
		}
		if err := c.watchChildren(m.GroupVersionKind); err != nil {
			return err
		}
	}
	cond := condition("Accepted", true, "Accepted", "templates parse")
	if err := render.Check(bp); err != nil {
		cond = condition("Accepted", false, "InvalidParameters", err.Error())
	}
	next := bp.DeepCopy()
	next.Status.Conditions = c.setConditions(bp.Status.Conditions, bp.Generation, cond)
	return c.patchStatus(ctx, bp, next, kindBlueprint, differ(bp.Status, next.Status))
}
