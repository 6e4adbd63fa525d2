package files_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/source/files"
)

// summary lists what a snapshot holds, one "Field ns/name" line per
// object, in snapshot order.
func summary(s *snapshot.Snapshot) []string {
	var out []string
	add := func(field string, m metav1.Object) {
		id := m.GetName()
		if m.GetNamespace() != "" {
			id = m.GetNamespace() + "/" + id
		}
		out = append(out, field+" "+id)
	}
	for _, o := range s.Namespaces {
		add("Namespaces", o)
	}
	for _, o := range s.GatewayClasses {
		add("GatewayClasses", o)
	}
	for _, o := range s.Gateways {
		add("Gateways", o)
	}
	for _, o := range s.HTTPRoutes {
		add("HTTPRoutes", o)
	}
	for _, o := range s.GRPCRoutes {
		add("GRPCRoutes", o)
	}
	for _, o := range s.TCPRoutes {
		add("TCPRoutes", o)
	}
	for _, o := range s.TLSRoutes {
		add("TLSRoutes", o)
	}
	for _, o := range s.UDPRoutes {
		add("UDPRoutes", o)
	}
	for _, o := range s.Services {
		add("Services", o)
	}
	for _, o := range s.ReferenceGrants {
		add("ReferenceGrants", o)
	}
	for _, o := range s.Declarations {
		add("Declarations", o)
	}
	for _, o := range s.PolicyCRDs {
		add("PolicyCRDs", o)
	}
	for _, o := range s.CRDs {
		add("CRDs", o)
	}
	for _, o := range s.Policies {
		add("Policies", o)
	}
	return out
}

func TestRead(t *testing.T) {
	tests := []struct {
		name    string
		paths   []string
		stdin   string
		want    []string
		ignored map[string]int
	}{
		{
			name:  "multi-document YAML with empty documents and comments",
			paths: []string{"testdata/multi.yaml"},
			want: []string{
				"Namespaces app",
				"GatewayClasses gc",
				"Gateways infra/gw",
				"HTTPRoutes app/r",
				"Services app/svc",
				"ReferenceGrants app/rg",
				"Declarations colorpolicies.policies.example.com",
				"Policies infra/blue",
			},
			ignored: map[string]int{"Deployment.apps": 1, "ConfigMap": 2},
		},
		{
			name:  "JSON file",
			paths: []string{"testdata/policy.json"},
			want:  []string{"Services app/from-json"},
		},
		{
			name:  "List objects expanded",
			paths: []string{"testdata/list.yaml"},
			want:  []string{"HTTPRoutes app/listed", "Services app/one", "Services app/two"},
		},
		{
			name:  "directory read recursively, only .yaml, .yml and .json, sorted by path",
			paths: []string{"testdata/tree"},
			want: []string{
				"Services tree/a", // tree/a.yml
				"Services tree/b", // tree/b.yaml
				"Services tree/deep",
				"Services tree/upper", // tree/sub/UPPER.YAML
				"Services tree/sub-a", // tree/sub/a.json
				"Services tree/sub-c", // tree/sub/c.yaml
			},
		},
		{
			name:  "paths in the order given",
			paths: []string{"testdata/policy.json", "testdata/tree/b.yaml", "testdata/tree/a.yml"},
			want:  []string{"Services app/from-json", "Services tree/b", "Services tree/a"},
		},
		{
			name:  "labelled CRD declares a policy kind",
			paths: []string{"testdata/crd.yaml"},
			want:  []string{"PolicyCRDs timeoutpolicies.policies.example.com", "CRDs timeoutpolicies.policies.example.com", "Policies app/t"},
			// An unlabelled CRD is neither topology, policy nor
			// declaration.
			ignored: map[string]int{"CustomResourceDefinition.apiextensions.k8s.io": 1},
		},
		{
			// Its schema bounds the kind's status.ancestors.
			name:  "unlabelled CRD of a kind a PolicyKind declares is kept for its schema",
			stdin: "apiVersion: strata.dev/v1alpha1\nkind: PolicyKind\nmetadata: {name: t}\nspec: {group: example.io, kind: TestPolicy}\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: testpolicies.example.io}\nspec: {group: example.io, names: {kind: TestPolicy, plural: testpolicies}}\n",
			paths: []string{"-"},
			want:  []string{"Declarations t", "CRDs testpolicies.example.io"},
		},
		{
			name:  "stdin",
			paths: []string{"-"},
			stdin: "apiVersion: v1\nkind: Service\nmetadata: {name: piped, namespace: app}\n",
			want:  []string{"Services app/piped"},
		},
		{
			name:  "stdin between files",
			paths: []string{"testdata/tree/b.yaml", "-", "testdata/tree/a.yml"},
			stdin: `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "piped", "namespace": "app"}}`,
			want:  []string{"Services tree/b", "Services app/piped", "Services tree/a"},
		},
		{
			name:  "declaration after its policy",
			paths: []string{"-"},
			stdin: "apiVersion: policies.example.com/v1\nkind: ColorPolicy\nmetadata: {name: p, namespace: app}\nspec:\n  targetRef: {group: '', kind: Namespace, name: app}\n" +
				"---\napiVersion: strata.dev/v1alpha1\nkind: PolicyKind\nmetadata: {name: colorpolicies.policies.example.com}\nspec: {group: policies.example.com, kind: ColorPolicy}\n",
			want: []string{"Declarations colorpolicies.policies.example.com", "Policies app/p"},
		},
		{
			name:  "every topology kind",
			paths: []string{"-"},
			stdin: "apiVersion: gateway.networking.k8s.io/v1\nkind: GRPCRoute\nmetadata: {name: g, namespace: app}\n" +
				"---\napiVersion: gateway.networking.k8s.io/v1alpha2\nkind: TCPRoute\nmetadata: {name: t, namespace: app}\n" +
				"---\napiVersion: gateway.networking.k8s.io/v1\nkind: TLSRoute\nmetadata: {name: s, namespace: app}\n" +
				"---\napiVersion: gateway.networking.k8s.io/v1alpha2\nkind: UDPRoute\nmetadata: {name: u, namespace: app}\n",
			want: []string{"GRPCRoutes app/g", "TCPRoutes app/t", "TLSRoutes app/s", "UDPRoutes app/u"},
		},
		{
			name:  "a kind ending in List without items is a plain object",
			paths: []string{"-"},
			stdin: "apiVersion: example.com/v1\nkind: AllowList\nmetadata: {name: a}\n",
			ignored: map[string]int{
				"AllowList.example.com": 1,
			},
		},
		{
			name:    "content on the marker line, CRLF line ends, ---x is no marker",
			paths:   []string{"-"},
			stdin:   "--- {apiVersion: v1, kind: Service, metadata: {name: inline, namespace: app}}\r\n---\r\napiVersion: v1\r\nkind: ConfigMap\r\nmetadata: {name: c}\r\n---x: not a marker\r\ndata: {k: v}\r\n---\r\n",
			want:    []string{"Services app/inline"},
			ignored: map[string]int{"ConfigMap": 1},
		},
		{
			name:  "only comments",
			paths: []string{"-"},
			stdin: "# nothing here\n---\n# nor here\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := files.Read(tc.paths, strings.NewReader(tc.stdin))
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if got := summary(res.Snapshot); !slices.Equal(got, tc.want) {
				t.Errorf("snapshot:\n got %q\nwant %q", got, tc.want)
			}
			if tc.ignored == nil {
				tc.ignored = map[string]int{}
			}
			if !maps.Equal(res.Ignored, tc.ignored) {
				t.Errorf("ignored %v, want %v", res.Ignored, tc.ignored)
			}
		})
	}
}

// TestReadTyped checks that documents decode into their typed objects, not
// just by name.
func TestReadTyped(t *testing.T) {
	res, err := files.Read([]string{"testdata/multi.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Snapshot
	if l := s.Gateways[0].Spec.Listeners; len(l) != 1 || l[0].Name != "http" || l[0].Port != 80 || l[0].Protocol != "HTTP" {
		t.Errorf("listeners %+v", l)
	}
	if r := s.HTTPRoutes[0].Spec.Rules; len(r) != 1 || r[0].Name == nil || *r[0].Name != "login" || len(r[0].BackendRefs) != 1 {
		t.Errorf("rules %+v", r)
	}
	if s.Namespaces[0].Labels["team"] != "a" {
		t.Errorf("namespace labels %v", s.Namespaces[0].Labels)
	}
	if d := s.Declarations[0].Spec; d.Group != "policies.example.com" || d.Kind != "ColorPolicy" || len(d.TargetKinds) != 1 {
		t.Errorf("declaration %+v", d)
	}
	if c, _, _ := unstructured.NestedString(s.Policies[0].Object, "spec", "color"); c != "blue" {
		t.Errorf("policy spec.color = %q", c)
	}
	if f := s.ReferenceGrants[0].Spec.From; len(f) != 1 || f[0].Kind != "ColorPolicy" {
		t.Errorf("grant from %+v", f)
	}
}

// TestFieldsInAnotherCase: a field written in another case is not the
// field it resembles, as the API server reads it (names matched in their
// case): a route's `ParentRefs` attaches it to nothing, on every path of
// the reader (a document block style, JSON, a List item).
func TestFieldsInAnotherCase(t *testing.T) {
	route := "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: r\n  namespace: ns\nspec:\n  ParentRefs:\n  - name: gw\n  hostnames:\n  - a.example\n"
	js, err := yaml.YAMLToJSON([]byte(route))
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]string{
		"yaml":      route,
		"json":      string(js),
		"yaml list": "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.TrimSuffix(route, "\n"), "\n", "\n  ") + "\n",
		"json list": `{"apiVersion": "v1", "kind": "List", "items": [` + string(js) + `]}`,
	} {
		t.Run(name, func(t *testing.T) {
			res, err := files.Read([]string{"-"}, strings.NewReader(in))
			if err != nil {
				t.Fatal(err)
			}
			rs := res.Snapshot.HTTPRoutes
			if len(rs) != 1 {
				t.Fatalf("%d routes, want 1", len(rs))
			}
			if p := rs[0].Spec.ParentRefs; len(p) != 0 {
				t.Errorf("spec.ParentRefs read as spec.parentRefs: %+v", p)
			}
			if h := rs[0].Spec.Hostnames; len(h) != 1 || h[0] != "a.example" {
				t.Errorf("hostnames %v, want [a.example]", h)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name  string
		paths []string
		stdin string
		want  []string // substrings of the error
	}{
		{
			name:  "malformed YAML names file and document",
			paths: []string{"testdata/bad/malformed.yaml"},
			want:  []string{"testdata/bad/malformed.yaml: document 4: invalid YAML"},
		},
		{
			name:  "malformed YAML on stdin",
			paths: []string{"-"},
			stdin: "apiVersion: v1\nkind: Service\nmetadata: {name: [\n",
			want:  []string{"-: document 1: invalid YAML"},
		},
		{
			name:  "malformed YAML after a header comment",
			paths: []string{"-"},
			stdin: "# header\n---\napiVersion: v1\nkind: Service\nmetadata: {name: [\n",
			want:  []string{"-: document 1: invalid YAML"},
		},
		{
			name:  "content on a document marker line",
			paths: []string{"-"},
			stdin: "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n--- x\n",
			want:  []string{"-: document 2: not an object"},
		},
		{
			name:  "empty documents between markers are counted",
			paths: []string{"-"},
			stdin: "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\n---   # empty\n---\nkind: [\n",
			want:  []string{"-: document 4: invalid YAML"},
		},
		{
			name:  "a directive before the first marker is a prefix",
			paths: []string{"-"},
			stdin: "%YAML 1.2\n---\nkind: [\n",
			want:  []string{"-: document 1: invalid YAML"},
		},
		{
			name:  "content before the first marker is document 1",
			paths: []string{"-"},
			stdin: "# header\napiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\nkind: [\n",
			want:  []string{"-: document 2: invalid YAML"},
		},
		{
			// The YAML parser read the first document and dropped y.
			name:  "documents split by lone carriage returns",
			paths: []string{"-"},
			stdin: "apiVersion: v1\rkind: Namespace\rmetadata:\r  name: x\r---\rapiVersion: v1\rkind: Namespace\rmetadata:\r  name: y\r",
			want:  []string{`-: document 1: invalid YAML: yaml: a second YAML document follows the first`},
		},
		{
			name:  "content after a document end marker",
			paths: []string{"-"},
			stdin: "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n...\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: y\n",
			want:  []string{`-: document 1: invalid YAML: yaml: line 5: did not find expected <document start>`},
		},
		{
			// go-yaml counts from the document's first line.
			name:  "a YAML error's line is the file's",
			paths: []string{"-"},
			stdin: "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  namespace: [x\n",
			want:  []string{"-: document 2: invalid YAML: yaml: line 9: did not find expected ',' or ']'"},
		},
		{
			// As in JSON, and as kubectl's strict field validation.
			name:  "a key twice in a YAML mapping",
			paths: []string{"-"},
			stdin: "apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n---\n# c\napiVersion: v1\nkind: Service\nkind: Service\nmetadata:\n  name: a\n  name: b\n",
			want:  []string{`-: document 2: invalid YAML: yaml: unmarshal errors: line 8: key "kind" already set in map; line 11: key "name" already set in map`},
		},
		{
			name:  "a key twice in an item of a YAML List",
			paths: []string{"-"},
			stdin: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: a\n    name: b\n",
			want:  []string{`-: document 1: invalid YAML: yaml: unmarshal errors: line 8: key "name" already set in map`},
		},
		{
			// sigs.k8s.io/yaml keeps either label 9, by map order.
			name:  "two keys that are one JSON key",
			paths: []string{"-"},
			stdin: "apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  labels:\n    09: a\n    0011: b\n",
			want:  []string{`-: document 1: invalid YAML: metadata.labels: the float 9 and the integer 9 are both the JSON key "9"`},
		},
		{
			name:  "two keys that are one JSON key in an item of a List",
			paths: []string{"-"},
			stdin: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n  data:\n    '7': a\n    7: b\n",
			want:  []string{`-: document 1: invalid YAML: items[0].data: the integer 7 and the string "7" are both the JSON key "7"`},
		},
		{
			name:  "missing kind",
			paths: []string{"testdata/bad/nokind.yaml"},
			want:  []string{"testdata/bad/nokind.yaml: document 2: apiVersion and kind are required"},
		},
		{
			name:  "missing apiVersion",
			paths: []string{"-"},
			stdin: "kind: Service\nmetadata: {name: a}\n",
			want:  []string{"-: document 1 (Service a): apiVersion and kind are required"},
		},
		{
			name:  "PolicyKind with an unknown field",
			paths: []string{"testdata/bad/strict.yaml"},
			want:  []string{"testdata/bad/strict.yaml: document 1 (PolicyKind colorpolicies.policies.example.com)", "unknown field", "targetKind"},
		},
		{
			name:  "typed object that does not decode",
			paths: []string{"-"},
			stdin: "apiVersion: v1\nkind: Service\nmetadata: {name: a, namespace: ns}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: b, namespace: ns}\nspec: {ports: 80}\n",
			want:  []string{"-: document 2 (Service ns/b)", "cannot unmarshal"},
		},
		{
			name:  "document that is not an object",
			paths: []string{"-"},
			stdin: "- a\n- b\n",
			want:  []string{"-: document 1: not an object"},
		},
		{
			name:  "List item that is not an object",
			paths: []string{"-"},
			stdin: "apiVersion: v1\nkind: List\nitems: [1]\n",
			want:  []string{"-: document 1", "items[0]: not an object"},
		},
		{
			name:  "List item without a kind",
			paths: []string{"-"},
			stdin: "apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, metadata: {name: a}}]\n",
			want:  []string{"-: document 1", "items[0]: apiVersion and kind are required"},
		},
		{
			name:  "missing file",
			paths: []string{"testdata/nope.yaml"},
			want:  []string{"testdata/nope.yaml"},
		},
		{
			name:  "directory with a bad file: the first bad file in path order",
			paths: []string{"testdata/bad"},
			want:  []string{"testdata/bad/malformed.yaml: document 4"},
		},
		{
			name:  "good files before a bad one return nothing",
			paths: []string{"testdata/multi.yaml", "testdata/bad/strict.yaml"},
			want:  []string{"testdata/bad/strict.yaml: document 1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := files.Read(tc.paths, strings.NewReader(tc.stdin))
			if err == nil {
				t.Fatalf("Read succeeded: %v", summary(res.Snapshot))
			}
			if res != nil {
				t.Errorf("Read returned a result with its error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestDocumentWhere(t *testing.T) {
	obj := func(kind, ns, name string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{}}
		u.SetKind(kind)
		u.SetNamespace(ns)
		u.SetName(name)
		return u
	}
	tests := []struct {
		doc  files.Document
		want string
	}{
		{files.Document{File: "f.yaml", Index: 3, Object: obj("HTTPRoute", "ns", "r1")}, "f.yaml: document 3 (HTTPRoute ns/r1)"},
		{files.Document{File: "f.yaml", Index: 1, Object: obj("GatewayClass", "", "gc")}, "f.yaml: document 1 (GatewayClass gc)"},
		{files.Document{File: "-", Index: 2, Object: obj("", "ns", "x")}, "-: document 2"},
		{files.Document{File: "-", Index: 2}, "-: document 2"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			if got := tc.doc.Where(); got != tc.want {
				t.Errorf("Where() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestDecode feeds documents directly, as the cluster source would.
func TestDecode(t *testing.T) {
	doc := func(i int, js string) files.Document {
		var u unstructured.Unstructured
		if err := u.UnmarshalJSON([]byte(js)); err != nil {
			t.Fatal(err)
		}
		return files.Document{File: "mem", Index: i, Object: &u}
	}
	docs := []files.Document{
		doc(1, `{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s", "namespace": "app"}}`),
		doc(2, `{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": "app"}}`),
	}
	res, err := files.Decode(docs)
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(res.Snapshot); fmt.Sprint(got) != "[Services app/s]" {
		t.Errorf("snapshot %q", got)
	}
	if res.Ignored["Job.batch"] != 1 {
		t.Errorf("ignored %v", res.Ignored)
	}
}

// Read takes a faster way than Decode(Documents(...)) (typed objects
// straight from their JSON, documents parsed in parallel) and must end in
// the same snapshot, object for object, with the same errors.
func TestReadMatchesDecode(t *testing.T) {
	var world bytes.Buffer
	if err := synth.WriteYAML(&world, synth.Generate(synth.Sizes{Namespaces: 4, Gateways: 8, Routes: 100, Services: 100, Policies: 80}, 2)); err != nil {
		t.Fatal(err)
	}
	js, ys := listDumps(t, world.Bytes())
	for _, c := range []struct {
		name  string
		paths []string
		stdin string
	}{
		{"examples", []string{"../../../examples/gep-713/example-1", "../../../examples/parable"}, ""},
		{"example 3", []string{"../../../examples/gep-713/example-3"}, ""},
		{"test data", []string{"testdata/multi.yaml", "testdata/list.yaml", "testdata/crd.yaml", "testdata/policy.json", "testdata/tree"}, ""},
		{"synthetic world", []string{"-"}, world.String()},
		{"errors: typed object that does not decode", []string{"-"}, "apiVersion: v1\nkind: Service\nmetadata:\n  name: b\nspec:\n  ports: 80\n"},
		{"errors: PolicyKind with unknown fields", []string{"testdata/bad/strict.yaml"}, ""},
		{"errors: block style PolicyKind with unknown fields", []string{"-"}, "apiVersion: strata.dev/v1alpha1\nkind: PolicyKind\nmetadata:\n  name: x\nspec:\n  group: g\n  kind: K\n  targetKind: 1\n  Class: Direct\n"},
		{"errors: malformed after good documents", []string{"testdata/bad"}, ""},
		{"undeclared kinds", []string{"testdata/multi.yaml", "testdata/undeclared.yaml"}, ""},
		{"errors: malformed before a missing file", []string{"testdata/bad/malformed.yaml", "testdata/nope.yaml"}, ""},
		{"errors: missing file before a malformed one", []string{"testdata/nope.yaml", "testdata/bad/malformed.yaml"}, ""},
		{"errors: typed object that does not decode before a missing file", []string{"-", "testdata/nope.yaml"}, "apiVersion: v1\nkind: Service\nmetadata:\n  name: b\nspec:\n  ports: 80\n"},
		// An empty object decodes into an empty map, as encoding/json
		// decodes it, not into nil.
		{"empty maps", []string{"-"}, "apiVersion: v1\nkind: Service\nmetadata:\n  name: b\n  labels: {}\n  annotations: {}\nspec:\n  selector: {}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata:\n  name: g\nspec:\n  gatewayClassName: c\n  infrastructure:\n    labels: {}\n  listeners: []\n"},
		{"errors: metadata in another case", []string{"-"}, "apiVersion: v1\nkind: Service\nmetAdAtA:\n  nAme: x\n"},
		{"JSON List", []string{"-"}, string(js)},
		{"YAML List", []string{"-"}, string(ys)},
		{"JSON stream", []string{"-"}, string(jsonStream(t, js))},
		{"errors: JSON List item that does not decode", []string{"-"}, `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "b"}, "spec": {"ports": 80}}]}`},
		{"errors: JSON List item without a kind", []string{"-"}, `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "b"}, "spec": {"ports": 80}}, {"apiVersion": "v1"}]}`},
		{"a trailing comma: not JSON, read as YAML flow style as before", []string{"-"}, `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}},]}`},
		{"errors: invalid JSON after a List", []string{"-"}, `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}}]} {"apiVersion": tru}`},
		{"errors: a key twice in a JSON List item", []string{"-"}, `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a", "name": "b"}}]}`},
		{"errors: YAML List item that does not decode", []string{"-"}, "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: a\n- apiVersion: v1\n  kind: Service\n  metadata:\n    name: b\n  spec:\n    ports: 80\n"},
		{"errors: YAML List item without a kind", []string{"-"}, "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata:\n    name: b\n  spec:\n    ports: 80\n- apiVersion: v1\n  metadata:\n    name: c\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, gotErr := files.Read(c.paths, strings.NewReader(c.stdin))
			docs, wantErr := files.Documents(c.paths, strings.NewReader(c.stdin))
			var want *files.Result
			if wantErr == nil {
				want, wantErr = files.Decode(docs)
			}
			if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("error %v, want %v", gotErr, wantErr)
			}
			if strings.HasPrefix(c.name, "errors") != (gotErr != nil) {
				t.Errorf("error %v", gotErr)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("Read differs from Decode(Documents()) (-want +got):\n%s", d)
			}
		})
	}
}

// A document with targetRefs is read as a policy whatever its kind: the
// engine, not the reader, decides whether something declares it (a
// PolicyKind, a labelled CRD, the built-in catalogue) and warns about the
// rest. A document of another kind without targetRefs is ignored.
func TestReadUndeclaredPolicies(t *testing.T) {
	res, err := files.Read([]string{"testdata/undeclared.yaml", "-"}, strings.NewReader("apiVersion: policies.example.com/v1\nkind: RetryPolicy\nmetadata: {name: one, namespace: app}\nspec:\n  targetRef: {kind: Namespace, name: app}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: app}\nspec: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range res.Snapshot.Policies {
		got = append(got, p.GetKind()+" "+p.GetNamespace()+"/"+p.GetName())
	}
	if want := []string{"RetryPolicy app/retry", "RetryPolicy app/one"}; !slices.Equal(got, want) {
		t.Errorf("policies %v, want %v", got, want)
	}
	if res.Ignored["Deployment.apps"] != 1 {
		t.Errorf("ignored %v", res.Ignored)
	}
}

// TestListDumps: a `kubectl get -o json` or `-o yaml` dump (one List of
// everything) reads as the same objects as the multi-document YAML they
// came from; JSON is read without the YAML parser (issue 18: dumps at the
// speed of multi-document YAML), refusing a key twice as the YAML parser
// does.
func TestListDumps(t *testing.T) {
	var world bytes.Buffer
	if err := synth.WriteYAML(&world, synth.Generate(synth.Sizes{Namespaces: 4, Gateways: 8, Routes: 100, Services: 100, Policies: 80}, 2)); err != nil {
		t.Fatal(err)
	}
	want, err := files.Read([]string{"-"}, bytes.NewReader(world.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	js, ys := listDumps(t, world.Bytes())
	var indented bytes.Buffer // as kubectl writes it
	if err := json.Indent(&indented, js, "", "    "); err != nil {
		t.Fatal(err)
	}
	for name, dump := range map[string][]byte{"json": js, "indented json": indented.Bytes(), "yaml": ys, "json stream": jsonStream(t, js)} {
		t.Run(name, func(t *testing.T) {
			got, err := files.Read([]string{"-"}, bytes.NewReader(dump))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want.Snapshot, got.Snapshot); d != "" {
				t.Errorf("snapshot differs from the documents' (-want +got):\n%s", d)
			}
		})
	}
	_, err = files.Read([]string{"-"}, strings.NewReader(`{"apiVersion": "v1", "kind": "List", "items": [], "kind": "List"}`))
	if want := `-: document 1: invalid JSON: duplicate field "kind"`; fmt.Sprint(err) != want {
		t.Errorf("duplicate key: error %v, want %s", err, want)
	}
}

// jsonStream is the items of a JSON List, one object a line.
func jsonStream(tb testing.TB, list []byte) []byte {
	tb.Helper()
	var l struct{ Items []json.RawMessage }
	if err := json.Unmarshal(list, &l); err != nil {
		tb.Fatal(err)
	}
	return append(bytes.Join(slices.Collect(func(yield func([]byte) bool) {
		for _, it := range l.Items {
			if !yield(it) {
				return
			}
		}
	}), []byte("\n")), '\n')
}

// listDumps is the documents of a multi-document YAML as one List, as
// `kubectl get -o json` and `-o yaml` dump it.
func listDumps(tb testing.TB, multi []byte) (js, ys []byte) {
	tb.Helper()
	docs, err := files.Documents([]string{"-"}, bytes.NewReader(multi))
	if err != nil {
		tb.Fatal(err)
	}
	items := make([]any, len(docs))
	for i, d := range docs {
		items[i] = d.Object.Object
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
	if js, err = json.Marshal(list); err != nil {
		tb.Fatal(err)
	}
	if ys, err = yaml.Marshal(list); err != nil {
		tb.Fatal(err)
	}
	return js, ys
}
