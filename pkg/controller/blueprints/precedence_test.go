package blueprints_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// valuesTemplate renders every top-level value into a ConfigMap, so a
// test reads the merged values off the rendered object.
const valuesTemplate = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Gateway.metadata.name }}-values
data:
  {{- range $k, $v := .Values }}
  {{ $k }}: {{ $v | toString | quote }}
  {{- end }}
`

// levels are 002's six levels, least specific first, as the objects of
// TestPrecedence set them.
var levels = []struct {
	name string
	// yaml applies the level's values (default and override blocks as
	// JSON), in namespace ns, for Gateway gw of class cls.
	yaml string
}{
	{"blueprint", `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayClassBlueprint
metadata:
  name: %[3]s
spec:
  values:
    default: %[4]s
    override: %[5]s
  gatewayTemplate:
    resourceTemplates:
    - name: values
      template: |
` + indent(8, valuesTemplate) + "\n"},
	{"global GatewayClassConfig", `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayClassConfig
metadata:
  name: %[3]s-global
  namespace: strata-system
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GatewayClass, name: %[3]s}]
  default: %[4]s
  override: %[5]s
`},
	{"GatewayClassConfig on the Namespace", `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayClassConfig
metadata:
  name: on-namespace
  namespace: %[1]s
spec:
  targetRefs: [{group: "", kind: Namespace, name: %[1]s}]
  default: %[4]s
  override: %[5]s
`},
	{"GatewayClassConfig on the GatewayClass", `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayClassConfig
metadata:
  name: on-class
  namespace: %[1]s
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: GatewayClass, name: %[3]s}]
  default: %[4]s
  override: %[5]s
`},
	{"GatewayConfig on the Namespace", `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayConfig
metadata:
  name: on-namespace
  namespace: %[1]s
spec:
  targetRefs: [{group: "", kind: Namespace, name: %[1]s}]
  default: %[4]s
  override: %[5]s
`},
	{"GatewayConfig on the Gateway", `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayConfig
metadata:
  name: on-gateway
  namespace: %[1]s
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: %[2]s}]
  default: %[4]s
  override: %[5]s
`},
}

// TestPrecedence is 002's precedence list on a rendered object. Level L
// (1 = blueprint ... 6 = GatewayConfig on the Gateway) sets, as defaults,
// dI = "L<L>" for every I >= L, and as overrides oI = "L<L>" for every
// I <= L. So dI is set by levels 1..I and the most specific, I, must win;
// oI is set by levels I..6 and the least specific, I, must win: every
// level is checked against every other in both blocks.
func TestPrecedence(t *testing.T) {
	t.Parallel()
	global(t)
	r := begin(t)
	ns, gw, cls := "precedence"+r, "gw", "precedence"+r
	namespace(t, ns)
	for i, l := range levels {
		level := i + 1
		def, ovr := map[string]string{}, map[string]string{}
		for j := 1; j <= 6; j++ {
			if j >= level {
				def[fmt.Sprintf("d%d", j)] = fmt.Sprintf("L%d", level)
			}
			if j <= level {
				ovr[fmt.Sprintf("o%d", j)] = fmt.Sprintf("L%d", level)
			}
		}
		apply(t, l.yaml, ns, gw, cls, jsonOf(t, def), jsonOf(t, ovr))
	}
	class(t, cls, cls)
	gateway(t, ns, gw, cls)

	want := map[string]string{}
	for i := 1; i <= 6; i++ {
		want[fmt.Sprintf("d%d", i)] = fmt.Sprintf("L%d", i)
		want[fmt.Sprintf("o%d", i)] = fmt.Sprintf("L%d", i)
	}
	eventually(t, "merged values on the rendered ConfigMap", dataIs(t, ns, gw+"-values", want))

	// Who lost what, on the configs' status (ancestor: the Gateway).
	eventually(t, "global config partially enforced", ancestorCond(t, "GatewayClassConfig", controllerNS, cls+"-global", ns, gw,
		"PartiallyEnforced", "True", "PartiallyEnforced",
		"/d3 (default) beaten by GatewayClassConfig precedence_RUN_/on-namespace (default)",
		"/o1 (override) beaten by GatewayClassBlueprint precedence_RUN_ (override)"))
	eventually(t, "GatewayConfig on the Gateway partially enforced", ancestorCond(t, "GatewayConfig", ns, "on-gateway", ns, gw,
		"PartiallyEnforced", "True", "PartiallyEnforced", "/o5 (override) beaten by GatewayConfig precedence_RUN_/on-namespace (override)"))
	eventually(t, "accepted at its level", ancestorCond(t, "GatewayClassConfig", ns, "on-class", ns, gw,
		"Accepted", "True", "Accepted", "Gateway precedence_RUN_/gw as the GatewayClassConfig on the GatewayClass"))

	t.Run("conflict at one level", func(t *testing.T) {
		// Two GatewayConfigs on one Gateway: GEP-713's conflict order,
		// the older wins, then namespace/name. Which of the two is older
		// depends on the second they were created in, so the winner is
		// computed from the stored timestamps.
		ns, gw := "precedence-conflict"+r, "gw"
		namespace(t, ns)
		for _, name := range []string{"z-first", "a-second"} {
			apply(t, `apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayConfig
metadata:
  name: %[2]s
  namespace: %[1]s
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  default: {color: %[2]s, only-%[2]s: "yes"}
`, ns, name)
		}
		gateway(t, ns, gw, cls)
		z := get(t, blueprintAPI, "GatewayConfig", ns, "z-first")
		a := get(t, blueprintAPI, "GatewayConfig", ns, "a-second")
		winner, loser := "a-second", "z-first" // a tie: a-second < z-first
		if zt, at := z.GetCreationTimestamp(), a.GetCreationTimestamp(); zt.Before(&at) {
			winner, loser = "z-first", "a-second"
		}
		eventually(t, "the conflict winner's value rendered", dataIs(t, ns, gw+"-values",
			map[string]string{"color": winner, "only-z-first": "yes", "only-a-second": "yes", "d6": "L2", "o1": "L1"}))
		eventually(t, "the loser names the lost value and the winner", ancestorCond(t, "GatewayConfig", ns, loser, ns, gw,
			"PartiallyEnforced", "True", "PartiallyEnforced", "/color (default) beaten by GatewayConfig "+ns+"/"+winner+" (default)"))
		eventually(t, "the winner is enforced", ancestorCond(t, "GatewayConfig", ns, winner, ns, gw,
			"Enforced", "True", "Enforced"))
	})
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ancestorCond checks a condition of a config's status.ancestors entry
// (Strata's) for a Gateway.
func ancestorCond(t *testing.T, kind, ns, name, gwNS, gw, typ, status, reason string, msgs ...string) func() error {
	return func() error {
		c := ancestorOf(t, kind, ns, name, map[string]any{"group": "gateway.networking.k8s.io", "kind": "Gateway", "namespace": gwNS, "name": gw})
		if err := hasCond(c.cond(typ), typ, status, reason, runNames(t, msgs)...); err != nil {
			return fmt.Errorf("%s %s/%s: %w; ancestors:\n%s", kind, ns, name, err, describeAncestors(t, kind, ns, name))
		}
		return nil
	}
}

// ancestorEntry is one of Strata's status.ancestors entries (nil: none).
type ancestorEntry map[string]any

func (a ancestorEntry) cond(typ string) *metav1.Condition {
	if a == nil {
		return nil
	}
	list, _ := a["conditions"].([]any)
	return findCond(list, typ)
}

// ancestorOf finds Strata's entry for an ancestorRef whose fields include
// ref's.
func ancestorOf(t *testing.T, kind, ns, name string, ref map[string]any) ancestorEntry {
	o := get(t, blueprintAPI, kind, ns, name)
	if o == nil {
		return nil
	}
	list, _, _ := unstructured.NestedSlice(o.Object, "status", "ancestors")
	for _, e := range list {
		m := e.(map[string]any)
		if m["controllerName"] != controllerName {
			continue
		}
		r, _ := m["ancestorRef"].(map[string]any)
		match := true
		for k, v := range ref {
			if r[k] != v {
				match = false
			}
		}
		if match {
			return m
		}
	}
	return nil
}

// describeAncestors prints a config's ancestors, for failure messages.
func describeAncestors(t *testing.T, kind, ns, name string) string {
	o := get(t, blueprintAPI, kind, ns, name)
	if o == nil {
		return "(not found)"
	}
	list, _, _ := unstructured.NestedSlice(o.Object, "status", "ancestors")
	var b strings.Builder
	for _, e := range list {
		fmt.Fprintf(&b, "%v\n", e)
	}
	return b.String()
}
