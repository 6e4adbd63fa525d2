package cluster

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	stratav1 "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
)

// A person bound to a namespace's view role may list Services there but
// not in every namespace, and no cluster-scoped kind: Objects reads the
// namespace's Services and says so (NamespaceOnly), records the others as
// Unreadable, and Published reads the namespace's records.
func TestNamespaceReader(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	if err := stratav1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	svc := func(ns, name string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	record := func(ns, name string, labels map[string]string) *stratav1.EffectivePolicy {
		return &stratav1.EffectivePolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}}
	}
	ours := map[string]string{PublishedByLabel: PublishedByValue}
	cases := []struct {
		name string
		// namespaces the user may list in; "" is every namespace.
		allowed       []string
		namespace     string
		wantServices  []string
		wantNsOnly    bool
		wantForbidden bool
		wantRecords   []string
		// wantRecordsForbidden: the records could be listed nowhere.
		wantRecordsForbidden bool
	}{
		{"cluster reader", []string{""}, "baker", []string{"baker/baker", "frosting/swirl"}, false, false, []string{"baker/baker", "frosting/swirl"}, false},
		{"namespace reader", []string{"baker"}, "baker", []string{"baker/baker"}, true, true, []string{"baker/baker"}, false},
		{"namespace reader without a namespace", []string{"baker"}, "", nil, false, true, nil, true},
		{"reader of another namespace", []string{"frosting"}, "baker", nil, false, true, nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			allowed := map[string]bool{}
			for _, ns := range tc.allowed {
				allowed[ns] = true
			}
			c := fake.NewClientBuilder().WithScheme(scheme).
				WithObjects(svc("baker", "baker"), svc("frosting", "swirl"),
					record("baker", "baker", ours), record("frosting", "swirl", ours), record("baker", "x.blueprint-values", nil)).
				WithInterceptorFuncs(interceptor.Funcs{List: func(ctx context.Context, c client.WithWatch, l client.ObjectList, opts ...client.ListOption) error {
					o := &client.ListOptions{}
					o.ApplyOptions(opts)
					if !allowed[o.Namespace] {
						return apierrors.NewForbidden(schema.GroupResource{Resource: "things"}, "", nil)
					}
					return c.List(ctx, l, opts...)
				}}).Build()
			present := func(gvk schema.GroupVersionKind) bool {
				return gvk.Kind == "Service" || gvk == EffectivePolicyGVK || gvk == CRDGVK
			}
			r := &Reader{Client: c, Present: present, Namespace: tc.namespace}
			objs, err := r.Objects(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, u := range objs.Items {
				if u.GetKind() == "Service" {
					got = append(got, u.GetNamespace()+"/"+u.GetName())
				}
			}
			if d := cmp.Diff(tc.wantServices, got); d != "" {
				t.Errorf("Services (-want +got):\n%s", d)
			}
			if nsOnly := len(objs.NamespaceOnly) > 0; nsOnly != tc.wantNsOnly {
				t.Errorf("NamespaceOnly %v, want %v", objs.NamespaceOnly, tc.wantNsOnly)
			}
			if forbidden := len(objs.Unreadable) > 0; forbidden != tc.wantForbidden {
				t.Errorf("Unreadable %v, want some: %v", objs.Unreadable, tc.wantForbidden)
			}
			recs, err := r.Published(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, ep := range recs.Items {
				names = append(names, ep.Namespace+"/"+ep.Name)
			}
			if d := cmp.Diff(tc.wantRecords, names); d != "" {
				t.Errorf("records (-want +got):\n%s", d)
			}
			if recs.Forbidden != tc.wantRecordsForbidden {
				t.Errorf("records Forbidden %v, want %v", recs.Forbidden, tc.wantRecordsForbidden)
			}
		})
	}
}
