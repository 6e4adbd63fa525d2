package cli

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/source/files"
)

// changesOf turns the watch events serve sees into the live model's
// changes: the hierarchy's kinds typed, policies of known kinds as read,
// deletions as deletions; anything else (a lost watch, a PolicyKind, a
// kind no declaration knows) asks for a new read.
func TestChangesOf(t *testing.T) {
	src, err := files.Read([]string{"../../examples/gep-713/example-3"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := engine.NewModel(src.Snapshot, engine.Options{Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	res := m.Result()
	obj := func(o runtime.Object) *unstructured.Unstructured {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			t.Fatal(err)
		}
		return &unstructured.Unstructured{Object: u}
	}
	route := src.Snapshot.HTTPRoutes[0].DeepCopy()
	route.SetGroupVersionKind(hierarchy.HTTPRouteKind.WithVersion("v1"))
	route.Spec.ParentRefs = []gwv1.ParentReference{{Name: "g2"}}
	svc := &corev1.Service{}
	svc.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Service"))
	svc.Name, svc.Namespace = "s", "default"
	policy := src.Snapshot.Policies[0].DeepCopy()
	undeclared := policy.DeepCopy()
	undeclared.SetKind("NobodysPolicy")
	pk := &unstructured.Unstructured{}
	pk.SetAPIVersion("strata.dev/v1alpha1")
	pk.SetKind("PolicyKind")
	pk.SetName("k")

	cs, ok := changesOf(res, []watch.Event{{Type: watch.Modified, Object: obj(route)}, {Type: watch.Deleted, Object: obj(svc)}, {Type: watch.Added, Object: policy}})
	if !ok || len(cs) != 3 {
		t.Fatalf("changes %v, %v: want 3", cs, ok)
	}
	if r, isRoute := cs[0].Object.(*gwv1.HTTPRoute); !isRoute || r.Spec.ParentRefs[0].Name != "g2" || cs[0].Deleted {
		t.Errorf("route change %#v", cs[0])
	}
	if _, isSvc := cs[1].Object.(*corev1.Service); !isSvc || !cs[1].Deleted {
		t.Errorf("Service change %#v", cs[1])
	}
	if cs[2].Object != policy {
		t.Errorf("policy change %#v", cs[2])
	}
	next, _, err := m.Apply(cs...)
	if err != nil {
		t.Fatal(err)
	}
	if got := next.Snapshot(); len(got.Services) != len(src.Snapshot.Services) || got.HTTPRoutes[0] != cs[0].Object {
		t.Errorf("the model took %d Services (want %d, none deleted), route %v", len(got.Services), len(src.Snapshot.Services), got.HTTPRoutes[0])
	}
	for name, ev := range map[string]watch.Event{
		"a lost watch":     {Type: watch.Error, Object: obj(svc)},
		"a PolicyKind":     {Type: watch.Added, Object: pk},
		"an unknown kind":  {Type: watch.Added, Object: undeclared},
		"not unstructured": {Type: watch.Added, Object: svc},
	} {
		if _, ok := changesOf(res, []watch.Event{{Type: watch.Modified, Object: obj(route)}, ev}); ok {
			t.Errorf("%s: taken as a change, want a new read", name)
		}
	}
}
