package status_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/strata-dev/strata/internal/testenv"
	"github.com/strata-dev/strata/pkg/sink/status"
)

// upstreamPolicyCRD is a CRD for TestPolicy whose status schema is the
// one Gateway API ships for its own policy, BackendTLSPolicy (the
// PolicyStatus type: ancestors maxItems 16, ParentReference patterns,
// conditions 1..8 with metav1.Condition's rules), from the pinned module.
func upstreamPolicyCRD(t *testing.T) (*apiextensionsv1.CustomResourceDefinition, string) {
	t.Helper()
	paths, err := testenv.CRDPaths()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(paths[0], "gateway.networking.k8s.io_backendtlspolicies.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	up := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(b, up); err != nil {
		t.Fatal(err)
	}
	var st apiextensionsv1.JSONSchemaProps
	for _, v := range up.Spec.Versions {
		if v.Storage {
			st = v.Schema.OpenAPIV3Schema.Properties["status"]
		}
	}
	if st.Properties["ancestors"].MaxItems == nil {
		t.Fatal("BackendTLSPolicy CRD has no status.ancestors maxItems")
	}
	preserve := true
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "testpolicies.example.io", Labels: map[string]string{"gateway.networking.k8s.io/policy": "inherited"}},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.io",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "TestPolicy", ListKind: "TestPolicyList", Plural: "testpolicies", Singular: "testpolicy"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec":   {Type: "object", XPreserveUnknownFields: &preserve},
						"status": st,
					},
				}},
			}},
		},
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(crd)
	if err != nil {
		t.Fatal(err)
	}
	u["apiVersion"], u["kind"] = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
	doc, err := yaml.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	return crd, string(doc)
}

// TestStatusPassesUpstreamSchema writes every status Strata computes, in
// the capped case and the problem cases, through a real API server whose
// policy CRD has Gateway API's PolicyStatus schema, and reads it back
// unchanged (issue 11, "Status that the API server accepts": no
// ancestorRef with an empty name, at most maxItems ancestors, messages
// within metav1.Condition's bound).
func TestStatusPassesUpstreamSchema(t *testing.T) {
	crd, crdDoc := upstreamPolicyCRD(t)
	env := testenv.StartT(t)
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, apiextensionsv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.New(env.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.Create(ctx, crd); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}); err != nil {
		t.Fatal(err)
	}
	// Wait for the kind to be served: Established, then in discovery.
	var last error
	if err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion("example.io/v1")
		l.SetKind("TestPolicyList")
		last = c.List(ctx, l)
		return last == nil, nil
	}); err != nil {
		t.Fatalf("TestPolicy not served: %v (last: %v)", err, last)
	}

	var many []string
	for i := 0; i < 1000; i++ {
		many = append(many, "{group: gateway.networking.k8s.io, kind: Gateway, name: nowhere}")
	}
	docs := append(capWorld(20, "g03", "g17", "g18", "g19"), crdDoc,
		// A refused selector: its declared target has no name.
		`apiVersion: example.io/v1
kind: TestPolicy
metadata: {name: bad-selector, namespace: ns, generation: 1}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, selector: {matchExpressions: [{key: team, operator: Bogus}]}}]
  a: 1`,
		// An invalid policy targeting by selector only.
		`apiVersion: example.io/v1
kind: TestPolicy
metadata: {name: invalid, namespace: ns}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, selector: {matchLabels: {team: a}}}]
  defaults: 3`,
		// A kind the ParentReference pattern refuses.
		`apiVersion: example.io/v1
kind: TestPolicy
metadata: {name: odd-kind, namespace: ns}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: "Gate_way", name: g00}
  a: 1`,
		// A thousand refusals of one target: one long message.
		`apiVersion: example.io/v1
kind: TestPolicy
metadata: {name: many-refusals, namespace: ns}
spec:
  targetRefs: [`+strings.Join(many, ", ")+`]
  a: 1`)
	res := runYAML(t, docs...)
	objs := status.Policies(res, now)
	if len(objs) < 8 {
		t.Fatalf("got %d policies", len(objs))
	}
	for _, want := range objs {
		t.Run(want.GetName(), func(t *testing.T) {
			anc, _, _ := unstructured.NestedSlice(want.Object, "status", "ancestors")
			if len(anc) == 0 || len(anc) > 16 {
				t.Errorf("%d ancestors", len(anc))
			}
			for _, a := range anc {
				if ref := a.(map[string]any)["ancestorRef"].(map[string]any); ref["name"] == "" {
					t.Errorf("ancestorRef with an empty name: %v", ref)
				}
			}
			obj := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": want.GetAPIVersion(), "kind": want.GetKind(),
				"metadata": map[string]any{"name": want.GetName(), "namespace": want.GetNamespace()},
				"spec":     want.Object["spec"],
			}}
			if err := c.Create(ctx, obj); err != nil {
				t.Fatalf("create: %v", err)
			}
			obj.Object["status"] = want.Object["status"]
			if err := c.Status().Update(ctx, obj); err != nil {
				t.Fatalf("the API server refuses the status Strata computed: %v", err)
			}
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(want.GroupVersionKind())
			if err := c.Get(ctx, client.ObjectKeyFromObject(obj), got); err != nil {
				t.Fatal(err)
			}
			gotAnc, _, _ := unstructured.NestedSlice(got.Object, "status", "ancestors")
			if !equality.Semantic.DeepEqual(normal(t, gotAnc), normal(t, anc)) {
				t.Errorf("stored status differs from the one written:\n got %v\nwant %v", gotAnc, anc)
			}
		})
	}
}

// normal is a value as JSON reads it (int64 and float64 alike), to compare
// what was written with what the server returns.
func normal(t *testing.T, v any) any {
	t.Helper()
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := yaml.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
