package cli

import (
	"strings"
	"testing"
)

const bpExample = "../../examples/blueprints"

// The blueprint example's outputs are its documentation
// (examples/blueprints/README.md quotes them).
func TestRenderGolden(t *testing.T) {
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"render.golden", []string{"render", "-f", bpExample}},
		{"render.json.golden", []string{"render", "-f", bpExample, "-o", "json"}},
		{"render-shop.golden", []string{"render", "gateway/shop", "-n", "team-a", "-f", bpExample}},
		{"values.golden", []string{"render", "--values", "-f", bpExample}},
		{"values.json.golden", []string{"render", "--values", "-f", bpExample, "-o", "json"}},
		{"values-shop-tags.golden", []string{"render", "gateway/shop", "-n", "team-a", "--values", "--field", "/tags", "-f", bpExample}},
		{"explain-shop-exposure.golden", []string{"explain", "gateway/shop", "-n", "team-a", "--field", "/tags/exposure", "--kind", "BlueprintValues", "-f", bpExample}},
		{"values-shop.yaml.golden", []string{"render", "gateway/shop", "-n", "team-a", "--values", "-o", "yaml", "-f", bpExample}},
		{"describe-shop.golden", []string{"describe", "gateway/shop", "-n", "team-a", "-f", bpExample, "-f", "../../config/blueprints/policykinds.yaml"}},
	} {
		t.Run(c.golden, func(t *testing.T) {
			out, errOut, code := strata(t, "", c.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			discoverGolden(t, bpExample+"/"+c.golden, out)
		})
	}
}

const renderWorld = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: c}
spec:
  controllerName: strata.dev/blueprint-controller
  parametersRef: {group: blueprints.strata.dev, kind: GatewayClassBlueprint, name: bp}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: team}
spec:
  gatewayClassName: c
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: blueprints.strata.dev/v1alpha1
kind: GatewayConfig
metadata: {name: cfg, namespace: team}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  default: {ns: elsewhere}
`

func blueprintDoc(template string) string {
	var b strings.Builder
	b.WriteString("---\napiVersion: blueprints.strata.dev/v1alpha1\nkind: GatewayClassBlueprint\nmetadata: {name: bp}\nspec:\n  values:\n    default: {name: x}\n  gatewayTemplate:\n    resourceTemplates:\n    - name: main\n      template: |\n")
	for _, l := range strings.Split(template, "\n") {
		b.WriteString("        " + l + "\n")
	}
	return b.String()
}

// Bad input gets one line naming the object and the field (or template
// and line), a non-zero exit and nothing on stdout.
func TestRenderErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		input string
		args  []string
		want  string
	}{
		{"missing value", renderWorld + blueprintDoc("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.nope }}"), nil,
			`Gateway team/gw: GatewayClassBlueprint bp: gatewayTemplate.resourceTemplates[main] line 4`},
		{"values move the object to another namespace", renderWorld + blueprintDoc("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: {{ .Values.ns }}"), nil,
			`namespace`},
		{"cluster-scoped kind not allowed", renderWorld + blueprintDoc("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: x"), nil,
			`ClusterRole`},
		{"unknown kind", renderWorld + blueprintDoc("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: x"), nil,
			`Widget`},
		{"owner references", renderWorld + blueprintDoc("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  ownerReferences: [{apiVersion: v1, kind: Secret, name: s, uid: u}]"), nil,
			`ownerReferences`},
		{"template does not parse", renderWorld + blueprintDoc("{{ if }}"), nil,
			`GatewayClass c: GatewayClassBlueprint bp: gatewayTemplate.resourceTemplates[main]`},
		{"blueprint missing", renderWorld, nil,
			`GatewayClass c: spec.parametersRef: GatewayClassBlueprint "bp" not found`},
		{"malformed config", renderWorld + blueprintDoc("") + "---\napiVersion: blueprints.strata.dev/v1alpha1\nkind: GatewayConfig\nmetadata: {name: bad, namespace: team}\nspec: {targetRefs: 3}\n", nil,
			`-: document 5 (GatewayConfig team/bad): json: cannot unmarshal number into Go struct field ConfigSpec.spec.targetRefs`},
		{"blueprint given twice", renderWorld + blueprintDoc("") + "---\n" + blueprintDoc(""), nil,
			`-: document 6 (GatewayClassBlueprint bp): GatewayClassBlueprint bp is also defined at -: document 4 (GatewayClassBlueprint bp); give each object once`},
		{"a value is a List", renderWorld + blueprintDoc("apiVersion: v1\nkind: List\nitems: []\nmetadata:\n  name: x"), nil, `kind List is a list`},
		{"a tenant's List-shaped value stays one scalar", renderWorld + blueprintDoc("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    a: {{ .Values.l }}") +
			"---\napiVersion: blueprints.strata.dev/v1alpha1\nkind: GatewayConfig\nmetadata: {name: t, namespace: team}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]\n  default:\n    l: \"x\\n---\\napiVersion: v1\\nkind: List\\nitems: []\"\n", nil,
			`metadata.labels: Invalid value: "x\n---\napiVersion: v1\nkind: List\nitems: []"`},
		{"field without values", renderWorld, []string{"--field", "/x"}, "--field needs --values"},
		{"unknown parent", renderWorld + blueprintDoc(""), []string{"gateway/nope", "-n", "team"}, "Gateway team/nope: not found"},
		{"no value at field", renderWorld + blueprintDoc(""), []string{"--values", "--field", "/nope"}, "Gateway team/gw: no value at /nope"},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"render", "-f", "-"}, c.args...)
			out, errOut, code := strata(t, c.input, args...)
			if code == 0 || out != "" {
				t.Fatalf("exit %d, stdout %q", code, out)
			}
			if strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) {
				t.Fatalf("stderr %q, want one line containing %q", errOut, c.want)
			}
		})
	}
}

// A render reads .Resources from objects of an earlier render in the
// files: the status template (addresses) and templates reading another's
// state work offline too.
func TestRenderReadsResources(t *testing.T) {
	in := renderWorld + blueprintDoc("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: seen\ndata:\n  before: {{ index .Resources \"main\" | len | quote }}") + `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: seen
  namespace: team
  labels:
    blueprints.strata.dev/parent-kind: Gateway
    blueprints.strata.dev/parent-namespace: team
    blueprints.strata.dev/parent-name: gw
    blueprints.strata.dev/template: main
`
	out, errOut, code := strata(t, in, "render", "-f", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `before: "1"`) {
		t.Fatalf("the earlier render was not in .Resources:\n%s", out)
	}
}

// A CRD among the files that claims a built-in kind's scope is not
// trusted, and says so.
func TestRenderWarnsIgnoredCRD(t *testing.T) {
	crd := "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: clusterrolebindings.rbac.authorization.k8s.io}\nspec:\n  group: rbac.authorization.k8s.io\n  scope: Namespaced\n  names: {kind: ClusterRoleBinding, plural: clusterrolebindings}\n"
	bp := blueprintDoc("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: x\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}")
	_, errOut, code := strata(t, renderWorld+bp+crd, "render", "-f", "-")
	if code == 0 {
		t.Fatalf("a ClusterRoleBinding rendered into a namespace: exit 0")
	}
	if !strings.Contains(errOut, `warning: CustomResourceDefinition "clusterrolebindings.rbac.authorization.k8s.io": kind ClusterRoleBinding.rbac.authorization.k8s.io is built in (cluster-scoped); a CRD cannot change its scope`) ||
		!strings.Contains(errOut, "cluster-scoped and not listed in spec.clusterScopedKinds") {
		t.Fatalf("stderr %q", errOut)
	}
}
