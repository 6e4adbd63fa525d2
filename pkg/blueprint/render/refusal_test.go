package render

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
	"github.com/strata-dev/strata/pkg/blueprint/values"
)

// refusalTemplate renders a Deployment whose pod security comes from
// values, with labels from tags, as the example blueprint does.
const refusalTemplate = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Values.name }}
  labels:
    {{- range $k, $v := .Values.tags }}
    {{ $k }}: {{ $v | quote }}
    {{- end }}
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: x}}
  template:
    metadata:
      labels: {app: x}
    spec:
      securityContext: {runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}
      containers:
      - name: c
        image: nginx
        securityContext: {{ .Values.securityContext | toJson }}
`

// TestRefusals: what a tenant's GatewayConfig value can get refused for,
// each naming the config, the value path and the template line.
func TestRefusals(t *testing.T) {
	locked := map[string]any{"allowPrivilegeEscalation": false, "capabilities": map[string]any{"drop": []any{"ALL"}}, "runAsNonRoot": true}
	bp := blueprintWith(t, map[string]any{"name": "web", "replicas": 1, "tags": map[string]any{}},
		map[string]any{"securityContext": locked})
	bp.Spec.GatewayTemplate = &bpv1.Template{ResourceTemplates: []bpv1.ResourceTemplate{{Name: "d", Template: refusalTemplate}}}
	cases := []struct {
		name   string
		values map[string]any
		reason string
		path   string
		line   int
		msg    string
	}{{
		name:   "name too long",
		values: map[string]any{"name": strings.Repeat("a", 256)},
		reason: ReasonInvalidParameters, path: ".Values.name", line: 4,
		msg: "metadata.name: Invalid value",
	}, {
		name:   "name of 505 characters",
		values: map[string]any{"name": strings.Repeat("a", 505)},
		reason: ReasonInvalidParameters, path: ".Values.name", line: 4, msg: "must be no more than 253 characters",
	}, {
		name:   "name not DNS",
		values: map[string]any{"name": "Web_1"},
		reason: ReasonInvalidParameters, path: ".Values.name", line: 4, msg: "RFC 1123 subdomain",
	}, {
		name:   "tag key with structure",
		values: map[string]any{"tags": map[string]any{"x: \"1\"\n  finalizers:\n  - strata.dev/stuck\n  annotations:\n    y": "v"}},
		reason: ReasonInvalidParameters, path: `.Values.tags["x: \"1\"\n  finalizers:\n  - strata.dev/stuck\n  annotations:\n    y"]`, line: 7,
		msg: "metadata.labels: Invalid value",
	}, {
		name:   "tag value too long",
		values: map[string]any{"tags": map[string]any{"k": strings.Repeat("v", 64)}},
		reason: ReasonInvalidParameters, path: ".Values.tags.k", line: 7, msg: "must be no more than 63 bytes",
	}, {
		name:   "Strata's own label",
		values: map[string]any{"tags": map[string]any{LabelParentName: "someone-else"}},
		reason: ReasonNotAllowed, path: `.Values.tags["blueprints.strata.dev/parent-name"]`, line: 7, msg: "Strata's own",
	}, {
		name:   "capabilities added next to the locked settings",
		values: map[string]any{"securityContext": map[string]any{"capabilities": map[string]any{"add": []any{"SYS_ADMIN"}}}},
		reason: ReasonNotAllowed, path: ".Values.securityContext.capabilities.add", line: 20, msg: `violates PodSecurity "restricted:latest"`,
	}, {
		name:   "seccomp unconfined",
		values: map[string]any{"securityContext": map[string]any{"seccompProfile": map[string]any{"type": "Unconfined"}}},
		reason: ReasonNotAllowed, path: ".Values.securityContext.seccompProfile.type", line: 20, msg: "seccompProfile",
	}, {
		name:   "privileged",
		values: map[string]any{"securityContext": map[string]any{"privileged": true}},
		reason: ReasonNotAllowed, path: ".Values.securityContext.privileged", line: 20, msg: "privileged",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := atLevel(t, values.LevelConfigParent, "tenant", 1, c.values, nil)
			v, err := values.Merge(bp, gwPar, []*values.Config{cfg}, ctrlNS)
			if err != nil {
				t.Fatal(err)
			}
			out, err := Render(Input{Blueprint: bp, Gateway: testGateway(), Values: v.Values, Sources: v.Leaves}, testKinds)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, %v; want a refusal", out, err)
			}
			src := ""
			if e.Source != nil {
				src = e.Source.String()
			}
			if e.Reason != c.reason || e.Path != c.path || e.Line != c.line || src != "GatewayConfig team/tenant (default)" {
				t.Errorf("reason %s path %q line %d source %q, want %s %q %d GatewayConfig team/tenant (default)\n%v", e.Reason, e.Path, e.Line, src, c.reason, c.path, c.line, err)
			}
			if !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), "set by GatewayConfig team/tenant (default)") {
				t.Errorf("error %q does not contain %q and the config", err, c.msg)
			}
		})
	}
}

// TestTemplateRefusals: what a template (not a value) is refused for.
func TestTemplateRefusals(t *testing.T) {
	obj := "apiVersion: %s\nkind: %s\nmetadata:\n  name: x\n%s"
	cases := []struct{ name, apiVersion, kind, extra, reason, msg string }{
		{"List", "v1", "List", "items:\n- apiVersion: rbac.authorization.k8s.io/v1\n  kind: ClusterRoleBinding\n", ReasonNotAllowed, "is a list"},
		{"ConfigMapList", "v1", "ConfigMapList", "items: []\n", ReasonNotAllowed, "is a list"},
		{"finalizers", "v1", "ConfigMap", "  finalizers: [a/b]\n", ReasonNotAllowed, "metadata.finalizers: Forbidden"},
		{"managedFields", "v1", "ConfigMap", "  managedFields: [{manager: x}]\n", ReasonNotAllowed, "metadata.managedFields: Forbidden"},
		{"generateName", "v1", "ConfigMap", "  generateName: x-\n", ReasonNotAllowed, "metadata.generateName: Forbidden"},
		{"ownerReferences", "v1", "ConfigMap", "  ownerReferences: [{apiVersion: v1, kind: X, name: y, uid: z}]\n", ReasonNotAllowed, "metadata.ownerReferences: Forbidden"},
		{"Strata annotation", "v1", "ConfigMap", "  annotations: {blueprints.strata.dev/inventory: x}\n", ReasonNotAllowed, "Strata's own"},
		{"Service name", "v1", "Service", "", "", ""},
		{"Service name not DNS-1035", "v1", "Service", "", ReasonInvalidParameters, "DNS-1035"},
		{"label value", "v1", "ConfigMap", "  labels: {a: \"b c\"}\n", ReasonInvalidParameters, "metadata.labels: Invalid value"},
		{"annotation key", "v1", "ConfigMap", "  annotations: {\"a b\": c}\n", ReasonInvalidParameters, "metadata.annotations: Invalid value"},
		{"hostPID pod", "apps/v1", "Deployment", "spec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n      hostPID: true\n      containers: [{name: c, image: i}]\n", ReasonNotAllowed, "host namespaces"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := fmt.Sprintf(obj, c.apiVersion, c.kind, c.extra)
			if c.name == "Service name not DNS-1035" {
				text = strings.Replace(text, "name: x", "name: 1x", 1)
			}
			_, err := Render(Input{Blueprint: testBlueprint("", "t", text), Gateway: testGateway()}, testKinds)
			if c.reason == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Reason != c.reason || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("got %v, want %s containing %q", err, c.reason, c.msg)
			}
		})
	}
}
