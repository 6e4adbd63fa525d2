package render

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
	"github.com/strata-dev/strata/pkg/blueprint/values"
)

var updateGolden = flag.Bool("update", false, "rewrite golden files under testdata/")

// testScope knows the kinds the tests render.
func testScope(gk schema.GroupKind) (namespaced, known bool) {
	switch gk {
	case schema.GroupKind{Kind: "ConfigMap"}, schema.GroupKind{Kind: "Service"}, schema.GroupKind{Kind: "Secret"},
		schema.GroupKind{Group: "apps", Kind: "Deployment"},
		schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:
		return true, true
	case schema.GroupKind{Kind: "Namespace"}, schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"},
		schema.GroupKind{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}:
		return false, true
	}
	return false, false
}

// fixture is a render input read from a YAML file: the first blueprint,
// class, Gateway and Namespace, every HTTPRoute (sorted), and objects
// labelled with LabelTemplate as .Resources.
type fixture struct {
	bp        *bpv1.GatewayClassBlueprint
	class     *gwv1.GatewayClass
	gw        *gwv1.Gateway
	routes    []*gwv1.HTTPRoute
	ns        *corev1.Namespace
	resources map[string][]*unstructured.Unstructured
}

func loadFixture(t testing.TB, path string) fixture {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := fixture{resources: map[string][]*unstructured.Unstructured{}}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	for {
		doc, err := r.Read()
		if err != nil {
			break
		}
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(doc, &u.Object); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(u.Object) == 0 {
			continue
		}
		var into any
		switch u.GetKind() {
		case "GatewayClassBlueprint":
			f.bp = &bpv1.GatewayClassBlueprint{}
			into = f.bp
		case "GatewayClass":
			f.class = &gwv1.GatewayClass{}
			into = f.class
		case "Gateway":
			f.gw = &gwv1.Gateway{}
			into = f.gw
		case "HTTPRoute":
			r := &gwv1.HTTPRoute{}
			f.routes = append(f.routes, r)
			into = r
		case "Namespace":
			f.ns = &corev1.Namespace{}
			into = f.ns
		default:
			name := u.GetLabels()[LabelTemplate]
			f.resources[name] = append(f.resources[name], u)
			continue
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, into, true); err != nil {
			t.Fatalf("%s: %s: %v", path, u.GetKind(), err)
		}
	}
	sort.Slice(f.routes, func(i, j int) bool {
		return f.routes[i].Namespace+"/"+f.routes[i].Name < f.routes[j].Namespace+"/"+f.routes[j].Name
	})
	return f
}

// input is the Input of a Gateway render (route nil) or a route render,
// with the blueprint's own values merged.
func (f fixture) input(t *testing.T, route *gwv1.HTTPRoute) Input {
	t.Helper()
	p := values.Parent{Kind: "Gateway", Namespace: f.gw.Namespace, Name: f.gw.Name, Class: f.class.Name}
	if route != nil {
		p = values.Parent{Kind: "HTTPRoute", Namespace: route.Namespace, Name: route.Name, Class: f.class.Name}
	}
	v, err := values.Merge(f.bp, p, nil, "strata-system")
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Blueprint: f.bp, Class: f.class, Gateway: f.gw, Route: route, Routes: f.routes, Namespace: f.ns, Values: v.Values}
	if route == nil {
		in.Resources = f.resources
	}
	return in
}

// printOutput prints a render as the golden files hold it.
func printOutput(t *testing.T, w *bytes.Buffer, title string, out *Output) {
	t.Helper()
	fmt.Fprintf(w, "# %s\n", title)
	for i, o := range out.Objects {
		b, err := yaml.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(w, "---\n# template %s\n%s", out.Templates[i], b)
	}
	if out.Status != nil {
		b, err := yaml.Marshal(map[string]any{"status": out.Status, "addresses": out.Addresses})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(w, "---\n# status\n%s", b)
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./pkg/blueprint/render -update)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, d)
	}
}

// TestRenderGolden renders each testdata/render/*/input.yaml for its
// Gateway and each of its routes and compares with output.golden.
func TestRenderGolden(t *testing.T) {
	dirs, err := filepath.Glob("testdata/render/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			f := loadFixture(t, filepath.Join(dir, "input.yaml"))
			var w bytes.Buffer
			out, err := Render(f.input(t, nil), testKinds)
			if err != nil {
				t.Fatal(err)
			}
			printOutput(t, &w, "Gateway "+f.gw.Namespace+"/"+f.gw.Name, out)
			for _, r := range f.routes {
				out, err := Render(f.input(t, r), testKinds)
				if err != nil {
					t.Fatal(err)
				}
				printOutput(t, &w, "HTTPRoute "+r.Namespace+"/"+r.Name+" on Gateway "+f.gw.Name, out)
			}
			golden(t, filepath.Join(dir, "output.golden"), w.String())
		})
	}
}

// TestRenderDeterministic renders the same input many times: same bytes,
// and the caller's input is not changed even by a template that sets
// values.
func TestRenderDeterministic(t *testing.T) {
	f := loadFixture(t, "testdata/render/basic/input.yaml")
	f.bp.Spec.GatewayTemplate.ResourceTemplates = append(f.bp.Spec.GatewayTemplate.ResourceTemplates, bpv1.ResourceTemplate{
		Name: "mutator",
		Template: `{{ $_ := set .Values "injected" "yes" }}{{ $_ := set .Values.tags "team" "changed" }}
apiVersion: v1
kind: ConfigMap
metadata: {name: m}
data:
  keys: {{ keys .Values | join "," | quote }}
  values: {{ values .Values.tags | join "," | quote }}
  dict: {{ dict "b" 1 "a" 2 "c" 3 | toString | quote }}
  json: {{ .Values | toJson | quote }}`,
	})
	in := f.input(t, nil)
	before, err := yaml.Marshal(in.Values)
	if err != nil {
		t.Fatal(err)
	}
	var first []byte
	for i := 0; i < 20; i++ {
		out, err := Render(in, testKinds)
		if err != nil {
			t.Fatal(err)
		}
		var w bytes.Buffer
		printOutput(t, &w, "x", out)
		if i == 0 {
			first = w.Bytes()
			if !bytes.Contains(first, []byte(`keys: image,injected,replicas,tags`)) {
				t.Errorf("keys not sorted or set not seen by its own template:\n%s", first)
			}
			if bytes.Contains(first, []byte("changed")) && bytes.Count(first, []byte("team: web")) == 0 {
				t.Errorf("a template's set leaked into another template:\n%s", first)
			}
			continue
		}
		if !bytes.Equal(first, w.Bytes()) {
			t.Fatalf("render %d differs:\n%s", i, cmp.Diff(string(first), w.String()))
		}
	}
	after, _ := yaml.Marshal(in.Values)
	if !bytes.Equal(before, after) {
		t.Errorf("Render changed the input values:\n%s", cmp.Diff(string(before), string(after)))
	}
}

// bp builds a blueprint from gateway resource templates (name, text
// pairs) and a status template.
func testBlueprint(status string, nameText ...string) *bpv1.GatewayClassBlueprint {
	t := &bpv1.Template{Status: status}
	for i := 0; i+1 < len(nameText); i += 2 {
		t.ResourceTemplates = append(t.ResourceTemplates, bpv1.ResourceTemplate{Name: nameText[i], Template: nameText[i+1]})
	}
	return &bpv1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "bp"}, Spec: bpv1.BlueprintSpec{GatewayTemplate: t, HTTPRouteTemplate: t}}
}

func testGateway() *gwv1.Gateway {
	h := gwv1.Hostname("*.example.com")
	return &gwv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web"},
		Spec: gwv1.GatewaySpec{GatewayClassName: "internet", Listeners: []gwv1.Listener{
			{Name: "https", Port: 443, Protocol: gwv1.HTTPSProtocolType, Hostname: &h},
		}},
	}
}

func testRoute(ns, name string, hosts ...string) *gwv1.HTTPRoute {
	r := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	gwNS := gwv1.Namespace("team")
	r.Spec.ParentRefs = []gwv1.ParentReference{{Name: "web", Namespace: &gwNS}}
	for _, h := range hosts {
		r.Spec.Hostnames = append(r.Spec.Hostnames, gwv1.Hostname(h))
	}
	return r
}

const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n"

func TestRenderErrors(t *testing.T) {
	vals := map[string]any{"replicas": 2, "nested": map[string]any{"a": nil, "s": "str"}}
	cases := []struct {
		name     string
		bp       *bpv1.GatewayClassBlueprint
		route    *gwv1.HTTPRoute
		template string // Error.Template
		line     int
		path     string
		reason   string
		contains string
		maxSteps int // budget.max; 0 for maxSteps
	}{{
		name:     "missing value",
		bp:       testBlueprint("", "cm", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.name }}\n"),
		template: "gatewayTemplate.resourceTemplates[cm]", line: 4, path: ".Values.name", reason: ReasonInvalidParameters,
		contains: `map has no entry for key "name"`,
	}, {
		name:     "missing value deep in a chain",
		bp:       testBlueprint("", "cm", "\n\n{{ .Values.nested.x.y.z }}"),
		template: "gatewayTemplate.resourceTemplates[cm]", line: 3, path: ".Values.nested.x", reason: ReasonInvalidParameters,
	}, {
		name:     "field of a null value",
		bp:       testBlueprint("", "cm", "{{ .Values.nested.a.b }}"),
		template: "gatewayTemplate.resourceTemplates[cm]", line: 1, path: ".Values.nested.a.b", reason: ReasonInvalidParameters,
	}, {
		name:     "missing value with $",
		bp:       testBlueprint("", "cm", "{{ range .Gateway.spec.listeners }}\n{{ $.Values.nope }}{{ end }}"),
		template: "gatewayTemplate.resourceTemplates[cm]", line: 2, path: "$.Values.nope", reason: ReasonInvalidParameters,
	}, {
		name:     "missing field inside with",
		bp:       testBlueprint("", "cm", "{{ with .Values.nested }}{{ .zz }}{{ end }}"),
		template: "gatewayTemplate.resourceTemplates[cm]", line: 1, path: ".zz", reason: ReasonInvalidParameters,
	}, {
		name:     "missing value in the status template",
		bp:       testBlueprint("a: 1\nb: {{ .Values.foo }}", "cm", fmt.Sprintf(cm, "x")),
		template: "gatewayTemplate.status", line: 2, path: ".Values.foo", reason: ReasonInvalidParameters,
	}, {
		name:     "missing value in a route template",
		bp:       testBlueprint("", "cm", "{{ .HTTPRoute.spec.nope }}"),
		route:    testRoute("team", "r"),
		template: "httpRouteTemplate.resourceTemplates[cm]", line: 1, path: ".HTTPRoute.spec.nope", reason: ReasonInvalidParameters,
	}, {
		name:     "missing value inside an include",
		bp:       testBlueprint("", "cm", "{{ define \"x\" }}\n\n{{ .Values.inner }}{{ end }}\n{{ include \"x\" . }}"),
		template: "gatewayTemplate.resourceTemplates[cm]", line: 3, path: ".Values.inner", reason: ReasonInvalidParameters,
		contains: `in template "x"`,
	}, {
		name:     "parse error",
		bp:       testBlueprint("", "cm", "a\nb\n{{ if }}"),
		template: "gatewayTemplate.resourceTemplates[cm]", line: 3, reason: ReasonInvalidParameters,
		contains: "missing value for if",
	}, {
		name:     "parse error in the status template",
		bp:       testBlueprint("{{ .x", "cm", fmt.Sprintf(cm, "x")),
		template: "gatewayTemplate.status", line: 1, reason: ReasonInvalidParameters,
	}, {
		name:     "removed function",
		bp:       testBlueprint("", "cm", "\n{{ env \"HOME\" }}"),
		template: "gatewayTemplate.resourceTemplates[cm]", line: 2, reason: ReasonInvalidParameters,
		contains: `function "env" not defined`,
	}, {
		name:     "function with the wrong types",
		bp:       testBlueprint("", "cm", "{{ len 3 }}"),
		template: "gatewayTemplate.resourceTemplates[cm]", line: 1, reason: ReasonInvalidParameters,
		contains: "at <len 3>: error calling len",
	}, {
		name:     "fail",
		bp:       testBlueprint("", "cm", `{{ fail "set .Values.tls" }}`),
		template: "gatewayTemplate.resourceTemplates[cm]", line: 1, reason: ReasonInvalidParameters,
		contains: "set .Values.tls",
	}, {
		name:     "required",
		bp:       testBlueprint("", "cm", `{{ required "values.host is required" (index .Values "host") }}`),
		template: "gatewayTemplate.resourceTemplates[cm]", line: 1, reason: ReasonInvalidParameters,
		contains: "values.host is required",
	}, {
		name:     "YAML error",
		bp:       testBlueprint("", "cm", fmt.Sprintf(cm, "a")+"---\n"+fmt.Sprintf(cm, "b")+"data:\n  x: : y\n"),
		template: "gatewayTemplate.resourceTemplates[cm]", reason: ReasonInvalidParameters,
		contains: `line 11 of the rendered output (document 2): yaml: mapping values are not allowed in this context: "  x: : y"`,
	}, {
		name:     "duplicate key",
		bp:       testBlueprint("", "cm", "kind: ConfigMap\nkind: Secret\n"),
		template: "gatewayTemplate.resourceTemplates[cm]", reason: ReasonInvalidParameters,
		contains: `line 2 of the rendered output (document 1): yaml: key "kind" already set in map`,
	}, {
		// sigs.k8s.io/yaml keeps either label 9, by map order: the same
		// inputs would render different objects from run to run.
		name:     "two keys that are one JSON key",
		bp:       testBlueprint("", "cm", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    09: a\n    0011: b\n"),
		template: "gatewayTemplate.resourceTemplates[cm]", reason: ReasonInvalidParameters,
		contains: `metadata.labels: the float 9 and the integer 9 are both the JSON key "9"`,
	}, {
		name:     "not an object",
		bp:       testBlueprint("", "cm", "\n---\n- a\n"),
		template: "gatewayTemplate.resourceTemplates[cm]", reason: ReasonInvalidParameters,
		contains: "rendered document 1 (line 2 of the rendered output): is a list, want an object",
	}, {
		name: "no kind", bp: testBlueprint("", "cm", "apiVersion: v1\nmetadata: {name: x}"),
		template: "gatewayTemplate.resourceTemplates[cm]", reason: ReasonInvalidParameters, contains: "kind is required",
	}, {
		name: "no name", bp: testBlueprint("", "cm", "apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: x}"),
		template: "gatewayTemplate.resourceTemplates[cm]", reason: ReasonInvalidParameters, contains: "metadata.name is required",
	}, {
		name: "bad apiVersion", bp: testBlueprint("", "cm", "apiVersion: a/b/c\nkind: ConfigMap\nmetadata: {name: x}"),
		template: "gatewayTemplate.resourceTemplates[cm]", reason: ReasonInvalidParameters, contains: "apiVersion",
	}, {
		name: "label not a string", bp: testBlueprint("", "cm", fmt.Sprintf(cm, "x")+"  labels: {version: 1}"),
		template: "gatewayTemplate.resourceTemplates[cm]", reason: ReasonInvalidParameters, contains: "metadata.labels[version]: Invalid value: 1: must be a string (quote it)",
	}, {
		name:     "another namespace",
		bp:       testBlueprint("", "ok", fmt.Sprintf(cm, "a"), "rb", "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: x\n  namespace: kube-system\n"),
		template: "gatewayTemplate.resourceTemplates[rb]", reason: ReasonNotAllowed,
		contains: `RoleBinding.rbac.authorization.k8s.io x: metadata.namespace "kube-system" is not the parent's namespace "team"`,
	}, {
		name:     "route render in the Gateway's namespace",
		bp:       testBlueprint("", "cm", fmt.Sprintf(cm, "x")+"  namespace: team\n"),
		route:    testRoute("shop", "r"),
		template: "httpRouteTemplate.resourceTemplates[cm]", reason: ReasonNotAllowed,
		contains: `not the parent's namespace "shop"`,
	}, {
		name:     "cluster-scoped kind not listed",
		bp:       testBlueprint("", "crb", "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: admin}\n"),
		template: "gatewayTemplate.resourceTemplates[crb]", reason: ReasonNotAllowed,
		contains: "cluster-scoped and not listed in spec.clusterScopedKinds",
	}, {
		name:     "unknown kind",
		bp:       testBlueprint("", "x", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\n"),
		template: "gatewayTemplate.resourceTemplates[x]", reason: ReasonNotAllowed,
		contains: "kind Widget.example.com is not known",
	}, {
		name:     "ownerReferences",
		bp:       testBlueprint("", "cm", fmt.Sprintf(cm, "x")+"  ownerReferences: [{apiVersion: v1, kind: Namespace, name: team, uid: u}]\n"),
		template: "gatewayTemplate.resourceTemplates[cm]", reason: ReasonNotAllowed,
		contains: "ownerReferences",
	}, {
		name:     "duplicate object across templates",
		bp:       testBlueprint("", "a", fmt.Sprintf(cm, "x"), "b", fmt.Sprintf(cm, "z")+"---\n"+fmt.Sprintf(cm, "x")),
		template: "gatewayTemplate.resourceTemplates[b]", reason: ReasonInvalidParameters,
		contains: "ConfigMap team/x is rendered twice, by gatewayTemplate.resourceTemplates[a] and by gatewayTemplate.resourceTemplates[b]",
	}, {
		name:     "duplicate template names",
		bp:       testBlueprint("", "a", fmt.Sprintf(cm, "x"), "a", fmt.Sprintf(cm, "y")),
		template: "gatewayTemplate.resourceTemplates[a]", reason: ReasonInvalidParameters,
		contains: "two resource templates",
	}, {
		name:     "status with bad addresses",
		bp:       testBlueprint("addresses:\n- type: IPAddress\n  valu: 1.2.3.4\n", "cm", fmt.Sprintf(cm, "x")),
		template: "gatewayTemplate.status", reason: ReasonInvalidParameters,
		contains: `addresses: want a list of {type, value}: json: unknown field "valu"`,
	}, {
		name:     "status address without value",
		bp:       testBlueprint("addresses:\n- type: IPAddress\n", "cm", fmt.Sprintf(cm, "x")),
		template: "gatewayTemplate.status", reason: ReasonInvalidParameters,
		contains: "addresses[0].value is required",
	}, {
		name:     "status addresses not a list",
		bp:       testBlueprint("addresses: 1.2.3.4\n", "cm", fmt.Sprintf(cm, "x")),
		template: "gatewayTemplate.status", reason: ReasonInvalidParameters,
		contains: "addresses: want a list",
	}, {
		name:     "status of two documents",
		bp:       testBlueprint("a: 1\n---\nb: 2\n", "cm", fmt.Sprintf(cm, "x")),
		template: "gatewayTemplate.status", reason: ReasonInvalidParameters,
		contains: "must render one object",
	}, {
		// YAML parsers read one document of it: b was dropped unsaid.
		name:     "a document after a document end marker",
		bp:       testBlueprint("", "cm", fmt.Sprintf(cm, "a")+"...\n"+fmt.Sprintf(cm, "b")),
		template: "gatewayTemplate.resourceTemplates[cm]", reason: ReasonInvalidParameters,
		contains: `line 5 of the rendered output (document 1): yaml: did not find expected <document start>: "..."`,
	}, {
		// A lone "\r" is a line break to YAML, not to the split at "---".
		name:     "a document after a marker that a carriage return starts",
		bp:       testBlueprint("", "cm", "apiVersion: v1\rkind: ConfigMap\rmetadata: {name: a}\r---\rapiVersion: v1\rkind: ConfigMap\rmetadata: {name: b}\r"),
		template: "gatewayTemplate.resourceTemplates[cm]", reason: ReasonInvalidParameters,
		contains: `a second YAML document begins here`,
	}, {
		name:     "endless loop",
		bp:       testBlueprint("", "cm", "{{ $l := until 10000 }}\n{{ range $l }}{{ range $l }}{{ end }}{{ end }}"),
		template: "gatewayTemplate.resourceTemplates[cm]", line: 2, reason: ReasonInvalidParameters,
		contains: "line 2: the render took more than 2097152 steps",
	}, {
		name: "steps count across templates",
		bp: testBlueprint("{{ range until 300 }}{{ end }}", "a", strings.Repeat("{{ range until 300 }}{{ end }}", 2),
			"b", "\n{{ range until 300 }}{{ end }}{{ range until 300 }}{{ end }}"),
		maxSteps: 1000,
		template: "gatewayTemplate.resourceTemplates[b]", line: 2, reason: ReasonInvalidParameters,
		contains: "more than 1000 steps",
	}, {
		name:     "output too large",
		bp:       testBlueprint("", "cm", `{{ range until 9000 }}{{ repeat 1000 "x" }}{{ end }}`),
		template: "gatewayTemplate.resourceTemplates[cm]", reason: ReasonInvalidParameters,
		contains: "rendered output exceeds",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := Input{Blueprint: c.bp, Gateway: testGateway(), Route: c.route, Values: vals}
			out, err := render(in, testKinds, &budget{max: c.maxSteps})
			if out != nil {
				t.Errorf("Render returned objects with an error: %v", out)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
			if e.Blueprint != "bp" || e.Template != c.template || e.Line != c.line || e.Path != c.path || e.Reason != c.reason {
				t.Errorf("got Template %q Line %d Path %q Reason %s, want %q %d %q %s\n%v",
					e.Template, e.Line, e.Path, e.Reason, c.template, c.line, c.path, c.reason, err)
			}
			if !strings.Contains(err.Error(), c.contains) {
				t.Errorf("error %q does not contain %q", err, c.contains)
			}
		})
	}
}

func TestRenderErrorMessage(t *testing.T) {
	bp := testBlueprint("", "deployment", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n  replicas: {{ .Values.replicas }}\n")
	_, err := Render(Input{Blueprint: bp, Gateway: testGateway()}, testKinds)
	want := `GatewayClassBlueprint bp: gatewayTemplate.resourceTemplates[deployment] line 6: map has no entry for key "replicas" (value path .Values.replicas)`
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
}

func TestRenderTenantSafety(t *testing.T) {
	rb := "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: %s}\n"
	bp := testBlueprint("", "crb", fmt.Sprintf(rb, "{{ .Gateway.metadata.name }}-reader"), "cm", fmt.Sprintf(cm, "plain")+"  ownerReferences: []\n")
	bp.Spec.ClusterScopedKinds = []bpv1.GroupKind{{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}}
	route := testRoute("shop", "r")
	out, err := Render(Input{Blueprint: bp, Gateway: testGateway(), Route: route}, testKinds)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Objects) != 2 {
		t.Fatalf("got %d objects", len(out.Objects))
	}
	crb, plain := out.Objects[0], out.Objects[1]
	if crb.GetNamespace() != "" {
		t.Errorf("cluster-scoped object got namespace %q", crb.GetNamespace())
	}
	if plain.GetNamespace() != "shop" {
		t.Errorf("route child namespace %q, want the route's, shop", plain.GetNamespace())
	}
	if _, ok := plain.Object["metadata"].(map[string]any)["ownerReferences"]; ok {
		t.Errorf("empty ownerReferences kept")
	}
	want := map[string]string{
		LabelParentKind: "HTTPRoute", LabelParentNamespace: "shop", LabelParentName: "r",
		LabelGateway: "team.web", LabelBlueprint: "bp", LabelTemplate: "cm",
	}
	if d := cmp.Diff(want, plain.GetLabels()); d != "" {
		t.Errorf("labels (-want +got):\n%s", d)
	}
	if !reflect.DeepEqual(out.Templates, []string{"crb", "cm"}) {
		t.Errorf("templates %v", out.Templates)
	}
}

func TestRenderNilScopeRefusesAll(t *testing.T) {
	_, err := Render(Input{Blueprint: testBlueprint("", "cm", fmt.Sprintf(cm, "x")), Gateway: testGateway()}, Kinds{})
	var e *Error
	if !errors.As(err, &e) || e.Reason != ReasonNotAllowed {
		t.Errorf("got %v", err)
	}
}

func TestRenderNothing(t *testing.T) {
	for _, c := range []struct {
		name  string
		bp    *bpv1.GatewayClassBlueprint
		route *gwv1.HTTPRoute
	}{
		{"no templates", &bpv1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "bp"}}, nil},
		{"no route template", &bpv1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "bp"}, Spec: bpv1.BlueprintSpec{GatewayTemplate: &bpv1.Template{}}}, testRoute("team", "r")},
		{"empty documents", testBlueprint("", "a", "", "b", "---\n# nothing\n---\n\n", "c", `{{ define "x" }}y{{ end }}`), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := Check(c.bp); err != nil {
				t.Fatal(err)
			}
			out, err := Render(Input{Blueprint: c.bp, Gateway: testGateway(), Route: c.route}, testKinds)
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Objects) != 0 || out.Status != nil || out.Addresses != nil {
				t.Errorf("got %+v", out)
			}
		})
	}
}

func TestRenderBadInput(t *testing.T) {
	for _, in := range []Input{{}, {Blueprint: testBlueprint("", "cm", fmt.Sprintf(cm, "x"))}} {
		_, err := Render(in, testKinds)
		var e *Error
		if !errors.As(err, &e) || e.Reason != ReasonInvalidParameters {
			t.Errorf("Render(%+v) = %v", in, err)
		}
	}
}

func TestCheck(t *testing.T) {
	good := fmt.Sprintf(cm, "{{ .Gateway.metadata.name }}")
	cases := []struct {
		name     string
		bp       *bpv1.GatewayClassBlueprint
		template string
		line     int
	}{
		{"valid", testBlueprint("a: {{ .Values.x }}", "cm", good), "", 0},
		{"nil", nil, "", 0},
		{"gateway resource", testBlueprint("", "cm", good, "bad", "\n{{ end }}"), "gatewayTemplate.resourceTemplates[bad]", 2},
		{"gateway status", testBlueprint("{{ nope }}", "cm", good), "gatewayTemplate.status", 1},
		{"route status", &bpv1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "bp"}, Spec: bpv1.BlueprintSpec{
			GatewayTemplate:   &bpv1.Template{Status: "ok"},
			HTTPRouteTemplate: &bpv1.Template{Status: "\n\n{{ range }}"},
		}}, "httpRouteTemplate.status", 3},
		{"route resource without name", &bpv1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "bp"}, Spec: bpv1.BlueprintSpec{
			HTTPRouteTemplate: &bpv1.Template{ResourceTemplates: []bpv1.ResourceTemplate{{Template: good}}},
		}}, "httpRouteTemplate.resourceTemplates[0]", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Check(c.bp)
			if c.name == "valid" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Reason != ReasonInvalidParameters {
				t.Fatalf("got %v", err)
			}
			if e.Template != c.template || e.Line != c.line {
				t.Errorf("got %q line %d, want %q line %d: %v", e.Template, e.Line, c.template, c.line, err)
			}
		})
	}
}

func TestLabelValue(t *testing.T) {
	long := strings.Repeat("a", 70)
	cases := []struct{ in, want string }{
		{"web", "web"},
		{"", ""},
		{strings.Repeat("b", 63), strings.Repeat("b", 63)},
		{long, strings.Repeat("a", 40) + "-" + LabelValue(long)[41:]},
		{"team/web", "team-" + LabelValue("team/web")[5:]},
		{"/x", LabelValue("/x")},
	}
	for _, c := range cases {
		got := LabelValue(c.in)
		if got != c.want {
			t.Errorf("LabelValue(%q) = %q, want %q", c.in, got, c.want)
		}
		if len(got) > 63 || (got != "" && !isAlnum(got[0])) || (got != "" && !isAlnum(got[len(got)-1])) {
			t.Errorf("LabelValue(%q) = %q is not a valid label value", c.in, got)
		}
	}
	if LabelValue(long) == LabelValue(long+"a") {
		t.Error("two long values share a label value")
	}
	if len(LabelValue("/x")) != 16 {
		t.Errorf("LabelValue(/x) = %q, want 16 hex digits", LabelValue("/x"))
	}
}

// TestRenderLongNames: a name too long for a label value is labelled with
// LabelValue's stand-in, which Input.Labels gives too.
func TestRenderLongNames(t *testing.T) {
	gw := testGateway()
	gw.Name = strings.Repeat("g", 100)
	in := Input{Blueprint: testBlueprint("", "cm", fmt.Sprintf(cm, "x")), Gateway: gw}
	out, err := Render(in, testKinds)
	if err != nil {
		t.Fatal(err)
	}
	got := out.Objects[0].GetLabels()[LabelParentName]
	if got != in.Labels()[LabelParentName] || len(got) > 63 {
		t.Errorf("label %q, Labels() %q", got, in.Labels()[LabelParentName])
	}
}
