package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
)

// nastyTemplates are templates that try to crash, hang or escape the
// renderer; each must come back as a result or an *Error.
var nastyTemplates = []string{
	"",
	"---",
	"---\n---\n---",
	"\x00\x01\xff\xfe",
	"{{",
	"}}{{",
	"{{ . }}",
	"{{ .Values }}{{ .Gateway }}{{ .Resources }}{{ .Hostnames }}",
	"{{ toYaml . }}",
	`{{ define "a" }}{{ template "a" . }}{{ end }}{{ template "a" . }}`,
	`{{ define "a" }}{{ include "a" . }}{{ end }}{{ include "a" . }}`,
	`{{ define "a" }}{{ template "a" . }}{{ template "a" . }}{{ end }}{{ template "a" . }}`,
	`{{ define "a" }}{{ include "a" . }}{{ include "a" . }}{{ end }}{{ include "a" . }}`,
	`{{ $l := until 65536 }}{{ range $l }}{{ range $l }}{{ range $l }}{{ end }}{{ end }}{{ end }}`,
	`{{ range 1000000000000 }}{{ end }}`,
	`{{ define "a" }}{{ range until 3 }}{{ template "a" . }}{{ end }}{{ end }}{{ template "a" . }}`,
	`{{ $d := dict }}{{ $_ := set $d "x" $d }}{{ $d }}`,
	`{{ $_ := set .Values "self" .Values }}{{ toYaml .Values }}`,
	`{{ $_ := merge .Values (dict "v" .Values) }}{{ .Values }}`,
	`{{ range until 100000000 }}x{{ end }}`,
	`{{ repeat 100000000000 "x" }}`,
	`{{ indent 100000000000 "x" }}`,
	`{{ printf "%*d" 100000000 1 }}`,
	`{{ untilStep 0 9223372036854775807 1 }}`,
	`{{ untilStep -9223372036854775808 9223372036854775807 9223372036854775807 }}`,
	`{{ seq -9223372036854775808 9223372036854775807 }}`,
	`{{ div 1 0 }}`,
	`{{ mod 1 0 }}`,
	`{{ index .Values 1 }}`,
	`{{ index .HTTPRoutes 99 }}`,
	`{{ slice .HTTPRoutes 2 1 }}`,
	`{{ .Gateway.spec.listeners.x }}`,
	`{{ abbrev 1 "hello" }}`,
	`{{ substr 5 1 "abc" }}`,
	`{{ chunk -1 (list 1) }}`,
	`{{ regexMatch "(" "x" }}`,
	`{{ semver "x" }}`,
	`{{ b64dec "%%" }}`,
	`{{ fromJson "{" }}`,
	`{{ deepCopy nil }}`,
	`{{ toDate "2006" "x" | date "2006" }}`,
	`{{ dateModify "x" (toDate "2006" "2020") }}`,
	`{{ decryptAES "k" "zzz" }}`,
	`{{ buildCustomCert "x" "y" }}`,
	`{{ urlParse "%" }}`,
	`{{ typeOf nil }}{{ kindOf nil }}`,
	`{{ first nil }}{{ last 3 }}{{ rest "x" }}`,
	`{{ dig "a" "b" 1 .Values }}`,
	`{{ pluck "a" nil }}`,
	"a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n",
	"apiVersion: v1\nkind: ConfigMap\nmetadata: null",
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [1]}",
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, labels: [a]}",
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: 5}",
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, ownerReferences: x}",
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, ownerReferences: null}",
	"apiVersion: 1\nkind: 2\nmetadata: {name: 3}",
	"apiVersion: v1\nkind: Namespace\nmetadata: {name: x, namespace: team}",
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: 1e999}",
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: .nan}",
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n--- !!str\n",
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n...\n",
	"[" + strings.Repeat("[", 100000),
	"a:\n" + strings.Repeat(" ", 100000) + "b: 1",
}

// nastyInputs vary what the templates read.
func nastyInputs() []Input {
	gw := testGateway()
	empty := &gwv1.Gateway{}
	return []Input{
		{Gateway: gw, Values: map[string]any{"x": 1}},
		{Gateway: empty},
		{Gateway: gw, Route: &gwv1.HTTPRoute{}, Routes: []*gwv1.HTTPRoute{nil, {}}},
		{Gateway: gw, Values: map[string]any{"nan": math.NaN()}},
		{Gateway: gw, Values: map[string]any{"ch": make(chan int)}},
		{Gateway: gw, Values: map[string]any{"ints": []int{1, 2}, "m": map[string]int{"a": 1}, "p": &struct{ A int }{1}}},
		{Gateway: gw, Resources: map[string][]*unstructured.Unstructured{"a": {nil, {}, {Object: map[string]any{"x": nil}}}}},
	}
}

// checkRendered is what must hold of every render, whatever the input.
func checkRendered(t *testing.T, in Input, out *Output, err error) {
	t.Helper()
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error %v (%T) is not an *Error", err, err)
		}
		if out != nil {
			t.Fatalf("objects returned with an error")
		}
		if e.Reason != ReasonInvalidParameters && e.Reason != ReasonNotAllowed {
			t.Fatalf("reason %q", e.Reason)
		}
		_ = e.Error()
		return
	}
	ns := in.Gateway.Namespace
	if in.Route != nil {
		ns = in.Route.Namespace
	}
	if len(out.Objects) != len(out.Templates) {
		t.Fatalf("%d objects, %d templates", len(out.Objects), len(out.Templates))
	}
	for _, o := range out.Objects {
		if o.GetNamespace() != ns && o.GetNamespace() != "" {
			t.Fatalf("object %s in namespace %q, not %q", o.GetName(), o.GetNamespace(), ns)
		}
		if len(o.GetOwnerReferences()) > 0 {
			t.Fatalf("object %s has owners", o.GetName())
		}
		if o.GetLabels()[LabelTemplate] == "" {
			t.Fatalf("object %s has no template label", o.GetName())
		}
		if _, err := json.Marshal(o.Object); err != nil {
			t.Fatalf("object %s does not marshal: %v", o.GetName(), err)
		}
	}
}

func TestRenderNasty(t *testing.T) {
	for i, tmpl := range nastyTemplates {
		for j, in := range nastyInputs() {
			t.Run(fmt.Sprintf("%d/%d", i, j), func(t *testing.T) {
				in.Blueprint = testBlueprint(tmpl, "t", tmpl)
				in.Blueprint.Spec.ClusterScopedKinds = []bpv1.GroupKind{{Kind: "Namespace"}}
				_ = Check(in.Blueprint)
				out, err := render(in, testKinds, &budget{max: 1 << 16})
				checkRendered(t, in, out, err)
			})
		}
	}
}

// FuzzRender renders fuzzed templates over fuzzed values: no panic, no
// hang, and what comes back is an *Error or objects that obey the
// tenant-safety rules. `go test -fuzz FuzzRender ./pkg/blueprint/render`.
func FuzzRender(f *testing.F) {
	for _, s := range nastyTemplates {
		f.Add(s, `{"x": 1}`, false)
	}
	f.Add("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\n  namespace: {{ .Values.ns }}\n", `{"name": "a", "ns": "team"}`, false)
	f.Add("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\n  namespace: {{ .Values.ns }}\n", `{"name": "a", "ns": "kube-system"}`, true)
	f.Add("{{ toYaml .Values }}", `{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}`, true)
	f.Fuzz(func(t *testing.T, tmpl, values string, route bool) {
		var v map[string]any
		_ = json.Unmarshal([]byte(values), &v)
		in := Input{Blueprint: testBlueprint(tmpl, "t", tmpl), Gateway: testGateway(), Values: v}
		if route {
			in.Route = testRoute("shop", "r", "a.example.com")
			in.Routes = []*gwv1.HTTPRoute{in.Route}
		}
		checkErr := Check(in.Blueprint)
		out, err := render(in, testKinds, &budget{max: 1 << 16})
		checkRendered(t, in, out, err)
		if checkErr != nil && err == nil {
			t.Fatalf("Check failed (%v) but Render did not", checkErr)
		}
	})
}
