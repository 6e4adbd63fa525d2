package attach_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/engine/attach"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// meshWorld is a mesh: Service prod/foo is the parent of HTTPRoute
// prod/r (GEP-1426), which sends to foo itself; Service prod/idle is no
// route's parent.
func meshWorld() *topology.Graph {
	r := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: "r"}}
	r.Spec.ParentRefs = []gwv1.ParentReference{{Group: ptr(gwv1.Group("")), Kind: ptr(gwv1.Kind("Service")), Name: "foo"}}
	r.Spec.Rules = []gwv1.HTTPRouteRule{{BackendRefs: []gwv1.HTTPBackendRef{{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Name: "foo"}}}}}}
	svc := func(name string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "prod", Name: name, Labels: map[string]string{"mesh": "yes"}},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	}
	return topology.Build(&snapshot.Snapshot{Services: []*corev1.Service{svc("foo"), svc("idle")}, HTTPRoutes: []*gwv1.HTTPRoute{r}})
}

// TestResolveServiceRoles checks in which roles a targetRef to a Service
// attaches (hierarchy.Roles): the Service itself, as before mesh, unless
// the kind's effective targets are routes, which only the Service's
// frontend (the parent of its mesh routes) reaches; both when they are
// routes and Services.
func TestResolveServiceRoles(t *testing.T) {
	svcGK := strata.GroupKind{Group: "", Kind: "Service"}
	routeGK := strata.GroupKind{Group: gwGroup, Kind: "HTTPRoute"}
	tests := []struct {
		name    string
		targets []strata.GroupKind
		effs    []strata.GroupKind
		ref     map[string]any
		want    []string
	}{
		{name: "declared is effective: the backend, as before mesh", targets: []strata.GroupKind{svcGK},
			ref: ref("", "Service", "foo"), want: []string{"Service:prod/foo"}},
		{name: "effective Service: the backend", targets: []strata.GroupKind{svcGK}, effs: []strata.GroupKind{svcGK},
			ref: ref("", "Service", "foo"), want: []string{"Service:prod/foo"}},
		{name: "effective route: the frontend", targets: []strata.GroupKind{svcGK}, effs: []strata.GroupKind{routeGK},
			ref: ref("", "Service", "foo"), want: []string{"Service:prod/foo@frontend"}},
		{name: "effective route and Service: both", targets: []strata.GroupKind{svcGK}, effs: []strata.GroupKind{routeGK, svcGK},
			ref: ref("", "Service", "foo"), want: []string{"Service:prod/foo", "Service:prod/foo@frontend"}},
		{name: "no frontend: the Service stays the target", targets: []strata.GroupKind{svcGK}, effs: []strata.GroupKind{routeGK},
			ref: ref("", "Service", "idle"), want: []string{"Service:prod/idle"}},
		{name: "a port is the backend's", targets: []strata.GroupKind{svcGK}, effs: []strata.GroupKind{routeGK, svcGK},
			ref: ref("", "Service", "foo", "sectionName", "http"), want: []string{"Service:prod/foo#http"}},
		{name: "by selector", targets: []strata.GroupKind{svcGK}, effs: []strata.GroupKind{routeGK},
			ref:  map[string]any{"group": "", "kind": "Service", "selector": map[string]any{"matchLabels": map[string]any{"mesh": "yes"}}},
			want: []string{"Service:prod/foo@frontend", "Service:prod/idle"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := meshWorld()
			k := compile(t, declaration(func(s *policykind.Spec) {
				s.TargetKinds = tc.targets
				s.EffectiveTargetKinds = tc.effs
			}))
			p := k.Read(policy("prod", "p", 0, targets(tc.ref)))
			res := attach.Resolve(g, []*policykind.Policy{p})
			if len(res.Rejections) > 0 {
				t.Fatalf("rejections %s", fmtRejections(res.Rejections))
			}
			var got []string
			for _, a := range res.ByPolicy[p] {
				got = append(got, g.Node(a.Node).Ref.Key())
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("attached to %q, want %q", got, tc.want)
			}
		})
	}
}
