package render

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
	"github.com/strata-dev/strata/pkg/blueprint/values"
)

// injectionTemplate (two custom kinds, whose fields no built-in schema
// checks) puts value v (and map m) in every YAML context a
// template can give a value: plain, double and single quoted, a key, flow
// collections, a block scalar (through nindent, and through an include),
// a comment, and a subtree through toYaml and toJson. Each context's place
// is named by its key, so a test can find what landed there.
const injectionTemplate = `{{- define "conf" -}}
listen 80;
name {{ .Values.v }};
{{- end -}}
apiVersion: example.com/v1
kind: Widget
metadata:
  name: inj
  # {{ .Values.v }}
  annotations:
    double: "{{ .Values.v }}"
    single: '{{ .Values.v }}'
    quoted: {{ .Values.v | quote }}
    squoted: {{ .Values.v | squote }}
data:
  {{ .Values.v }}: key
  plain: {{ .Values.v }}
  prefixed: pre-{{ .Values.v }}
  flow: {{ printf "[a, %s]" "b" }}
  flowseq: [a, {{ .Values.v }}, "{{ .Values.v }}"]
  block: |
    {{- .Values.v | nindent 4 }}
  include: |
    {{- include "conf" . | nindent 4 }}
  json: {{ .Values.v | toJson }}
---
apiVersion: example.com/v1
kind: Gadget
metadata:
  name: inj
stringData:
  {{- range $k, $v := .Values.m }}
  {{ $k }}: {{ $v | quote }}
  {{- end }}
extra:
  {{- toYaml .Values.m | nindent 2 }}
json: {{ .Values.m | toJson }}
`

// hostile are values that each try to leave their place.
var hostile = []string{
	"1\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: evil\nspec:\n  template:\n    spec:\n      hostPID: true",
	"x\nmetadata:\n  finalizers: [strata.dev/stuck]",
	"a: b", "a: b\nc: d", "x #c", "# c", "{a: b}", "[a, b]", "{", "[", "&a x", "*a", "!!binary aGk=", "!x y",
	"|", "|\n  a\nkind: Secret", ">", "- a", "- a\n- b", "? k", "%TAG ! x", "@", "`", "'", "\"", "\\", "\\\"",
	"  lead", "trail  ", "\ttab", "x\x00y", "\xff\xfe", "\r\n---\r\nkind: Pod", "---", "...", "a\n...\n---\nkind: Pod",
	"\n", "", "null", "~", "true", "0x1F", "1e3", "<<: *a", "x\n  indented: y", "\n    deeper: y",
}

// leaves lists the JSON paths of an object's leaves.
func leaves(prefix string, v any, into map[string]any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			leaves(prefix+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"), x, into)
		}
	case []any:
		for i, x := range v {
			leaves(fmt.Sprintf("%s/%d", prefix, i), x, into)
		}
	default:
		into[prefix] = v
	}
}

func shape(t *testing.T, out *Output) (objects []string, paths map[string]map[string]any) {
	t.Helper()
	paths = map[string]map[string]any{}
	for _, o := range out.Objects {
		id := o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
		objects = append(objects, id)
		p := map[string]any{}
		leaves("", o.Object, p)
		paths[id] = p
	}
	sort.Strings(objects)
	return objects, paths
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestInjection renders injectionTemplate with every hostile value, set
// by a GatewayConfig and by a GatewayClassConfig, for a Gateway and for a
// route: the objects, kinds, names, namespaces and paths are those of a
// harmless value, and every scalar context holds the value as text.
func TestInjection(t *testing.T) {
	tmpl := &bpv1.Template{ResourceTemplates: []bpv1.ResourceTemplate{{Name: "inj", Template: injectionTemplate}}}
	bp := blueprintWith(t, map[string]any{}, map[string]any{})
	bp.Spec.GatewayTemplate, bp.Spec.HTTPRouteTemplate = tmpl, tmpl
	render := func(t *testing.T, level values.Level, route bool, v string) (*Output, error) {
		t.Helper()
		vals := map[string]any{"v": v, "m": map[string]any{"k": v, v: "x", "n": map[string]any{"deep": v}}}
		cfg := atLevel(t, level, "tenant", 1, vals, nil)
		merged, err := values.Merge(bp, gwPar, []*values.Config{cfg}, ctrlNS)
		if err != nil {
			t.Fatal(err)
		}
		in := Input{Blueprint: bp, Gateway: testGateway(), Values: merged.Values}
		if route {
			in.Route = testRoute("team", "r")
		}
		return Render(in, kindsOf(injectionScope))
	}
	for _, level := range []values.Level{values.LevelConfigParent, values.LevelClassConfigClass} {
		for _, route := range []bool{false, true} {
			name := fmt.Sprintf("%v/route=%v", level, route)
			t.Run(name, func(t *testing.T) {
				base, err := render(t, level, route, "harmless")
				if err != nil {
					t.Fatal(err)
				}
				wantObjects, wantPaths := shape(t, base)
				for _, v := range hostile {
					t.Run(fmt.Sprintf("%q", v), func(t *testing.T) {
						out, err := render(t, level, route, v)
						if err != nil {
							t.Fatalf("render: %v", err)
						}
						objects, paths := shape(t, out)
						if !reflect.DeepEqual(objects, wantObjects) {
							t.Fatalf("objects %v, want %v", objects, wantObjects)
						}
						// Values reach templates through JSON.
						j, _ := json.Marshal(v)
						var text string
						_ = json.Unmarshal(j, &text)
						for _, id := range objects {
							got, want := keys(paths[id]), keys(wantPaths[id])
							// The value's own key: a tenant key is one key,
							// whatever its text.
							norm := func(ps []string) []string {
								var out []string
								for _, p := range ps {
									p = strings.Replace(p, "/data/harmless", "/data/<v>", 1)
									p = strings.Replace(p, "/stringData/harmless", "/stringData/<v>", 1)
									p = strings.Replace(p, "/extra/harmless", "/extra/<v>", 1)
									p = strings.Replace(p, "/json/harmless", "/json/<v>", 1)
									out = append(out, p)
								}
								sort.Strings(out)
								return out
							}
							esc := strings.ReplaceAll(strings.ReplaceAll(text, "~", "~0"), "/", "~1")
							var gotN []string
							for _, p := range got {
								for _, pre := range []string{"/data/", "/stringData/", "/extra/", "/json/"} {
									if p == pre+esc {
										p = pre + "<v>"
									}
								}
								gotN = append(gotN, p)
							}
							sort.Strings(gotN)
							if !reflect.DeepEqual(gotN, norm(want)) {
								t.Fatalf("%s: paths\n%v\nwant\n%v", id, gotN, norm(want))
							}
						}
						cm := paths["Widget team/inj"]
						for _, p := range []string{"/metadata/annotations/double", "/metadata/annotations/single",
							"/metadata/annotations/quoted", "/metadata/annotations/squoted", "/data/json", "/data/flowseq/2",
							"/data/" + strings.ReplaceAll(strings.ReplaceAll(text, "~", "~0"), "/", "~1")} {
							want := text
							if strings.HasPrefix(p, "/data/") && !strings.Contains(p, "json") && !strings.Contains(p, "flowseq") {
								want = "key"
							}
							if cm[p] != want {
								t.Errorf("%s = %#v, want %#v", p, cm[p], want)
							}
						}
						if got := cm["/data/prefixed"]; got != "pre-"+text {
							t.Errorf("prefixed = %#v, want %#v", got, "pre-"+text)
						}
						if got, ok := cm["/data/block"].(string); !ok || strings.TrimSuffix(got, "\n") != strings.TrimLeft(text, "\n") && strings.TrimSuffix(got, "\n") != text {
							t.Errorf("block = %#v, want %#v", cm["/data/block"], text)
						}
						if got, ok := cm["/data/include"].(string); !ok || !strings.Contains(got, "name "+text+";") {
							t.Errorf("include = %#v, want it to contain %#v", cm["/data/include"], "name "+text+";")
						}
						// plain: a word that YAML reads as a number, a
						// boolean or null stays what text templating gave;
						// everything else is the text.
						if s, ok := cm["/data/plain"].(string); ok && s != text {
							t.Errorf("plain = %#v, want %#v", s, text)
						}
						sec := paths["Gadget team/inj"]
						if sec["/stringData/k"] != text || sec["/extra/k"] != text || sec["/json/k"] != text || sec["/extra/n/deep"] != text {
							t.Errorf("secret values %#v %#v %#v %#v, want %#v", sec["/stringData/k"], sec["/extra/k"], sec["/json/k"], sec["/extra/n/deep"], text)
						}
					})
				}
			})
		}
	}
}

// TestInjectionNoFinalizers: a tag key (issue 10's example) stays one
// label key; it never adds metadata.finalizers.
func TestInjectionNoFinalizers(t *testing.T) {
	tmpl := &bpv1.Template{ResourceTemplates: []bpv1.ResourceTemplate{{Name: "t", Template: `apiVersion: v1
kind: ConfigMap
metadata:
  name: x
  labels:
    {{- range $k, $v := .Values.tags }}
    {{ $k }}: {{ $v | quote }}
    {{- end }}
`}}}
	bp := &bpv1.GatewayClassBlueprint{Spec: bpv1.BlueprintSpec{GatewayTemplate: tmpl}}
	bp.Name = "bp"
	for _, key := range []string{"x: \"1\"\n  finalizers:\n  - strata.dev/stuck\n  annotations:\n    y", "a: b\n  finalizers: [x]"} {
		out, err := Render(Input{Blueprint: bp, Gateway: testGateway(), Values: map[string]any{"tags": map[string]any{key: "v"}}}, testKinds)
		if err != nil {
			// Refused as an invalid label key: fine.
			if !strings.Contains(err.Error(), "metadata.labels: Invalid value") {
				t.Errorf("key %q: %v", key, err)
			}
			continue
		}
		for _, o := range out.Objects {
			if f, found, _ := unstructured.NestedFieldNoCopy(o.Object, "metadata", "finalizers"); found {
				t.Errorf("key %q added finalizers %v", key, f)
			}
		}
	}
}

// injectionScope knows injectionTemplate's kinds.
func injectionScope(gk schema.GroupKind) (bool, bool) {
	if gk.Group == "example.com" {
		return true, true
	}
	return testScope(gk)
}
