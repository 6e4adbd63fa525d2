package blueprints_test

import (
	"fmt"
	"testing"

	"github.com/strata-dev/strata/pkg/blueprint"
	"github.com/strata-dev/strata/pkg/blueprint/render"
	"github.com/strata-dev/strata/pkg/controller/blueprints"
)

// TestTwoControllers: two blueprint controllers serving different
// GatewayClasses on one cluster (two Strata installs) never touch each
// other's rendered objects, inventories or Gateways, also while one of
// them is down.
func TestTwoControllers(t *testing.T) {
	t.Parallel()
	r := begin(t)
	ns, other := "twoctl"+r, "example.com/other-blueprints"+r
	namespace(t, ns)
	theirs := startControllerWith(t, shared, blueprints.Options{ControllerName: other, FieldManager: "other-blueprints" + r})
	apply(t, `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  name: twoctl_RUN_
spec:
  gatewayTemplate:
    resourceTemplates:
    - name: cm
      template: |
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: {{ .Gateway.metadata.name }}-cm
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: twoctl-other_RUN_
spec:
  controllerName: %s
  parametersRef: {group: blueprints.strata.dev, kind: GatewayClassBlueprint, name: twoctl_RUN_}
`, other)
	class(t, "twoctl-ours"+r, "twoctl"+r)
	gateway(t, ns, "theirs", "twoctl-other"+r)
	gateway(t, ns, "ours", "twoctl-ours"+r)
	eventually(t, "both rendered", func() error {
		for gw, ctrl := range map[string]string{"theirs": other, "ours": controllerName} {
			cm := get(t, "v1", "ConfigMap", ns, gw+"-cm")
			if cm == nil {
				return fmt.Errorf("ConfigMap %s-cm missing", gw)
			}
			if l := cm.GetLabels()[render.LabelController]; l != render.LabelValue(ctrl) {
				return fmt.Errorf("ConfigMap %s-cm labelled controller %q, want %q", gw, l, render.LabelValue(ctrl))
			}
		}
		return nil
	})
	ann := get(t, gatewayAPI, "Gateway", ns, "theirs").GetAnnotations()
	if ann[blueprint.InventoryAnnotationFor(other)] == "" || ann[blueprint.InventoryAnnotation] != "" {
		t.Fatalf("the other controller's inventory is not under its own key: %v", ann)
	}
	theirsCM := get(t, "v1", "ConfigMap", ns, "theirs-cm").GetResourceVersion()
	untouched := func() error {
		cm := get(t, "v1", "ConfigMap", ns, "theirs-cm")
		if cm == nil || cm.GetResourceVersion() != theirsCM {
			return fmt.Errorf("the other controller's ConfigMap was changed or deleted")
		}
		return nil
	}
	gateways := []object{{gatewayAPI, "GatewayClass", "", "twoctl-other" + r}, {gatewayAPI, "Gateway", ns, "theirs"}, {gatewayAPI, "Gateway", ns, "ours"}}
	idle(t, "both rendered", seen(gateways...), cached(k8s, theirs.cache, gateways...))
	if err := untouched(); err != nil {
		t.Fatalf("the shared controller does not leave the other's objects alone: %v", err)
	}

	// The other controller is down: its Gateway goes; its objects are
	// still not the shared controller's to delete.
	theirs.stop()
	del(t, gatewayAPI, "Gateway", ns, "theirs")
	idle(t, "their Gateway deleted", seen(object{gatewayAPI, "Gateway", ns, "theirs"}))
	if err := untouched(); err != nil {
		t.Fatalf("something of the other's was pruned while it is down: %v", err)
	}
	eventually(t, "ours still programmed", gatewayCond(t, ns, "ours", "Programmed", "True", "Programmed"))
}
