package typed

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1b1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
)

// Object is a typed object of a kind of the table.
type Object interface {
	metav1.Object
	runtime.Object
}

// Kind is the decode column of one row of hierarchy.Table.
type Kind struct {
	// New returns an empty object of the kind, to decode JSON into.
	New func() Object
	// NewList returns an empty list of the kind, to list a cluster into.
	NewList func() runtime.Object
	// Add appends obj, of the kind, to its slice of s.
	Add func(s *snapshot.Snapshot, obj Object)
	// AddList appends the items of list (from NewList) to s.
	AddList func(s *snapshot.Snapshot, list runtime.Object)
	// Objects returns the objects of the kind s holds, in its order.
	Objects func(s *snapshot.Snapshot) []Object
	// Len is the number of objects of the kind s holds.
	Len func(s *snapshot.Snapshot) int
	// AppendRoutes, the linking rule of a route kind, appends the links
	// of each route of the kind in s.
	AppendRoutes func(out []Route, s *snapshot.Snapshot) []Route
	// RouteOf is the linking rule for one object: its links, and false
	// when obj is not of the kind.
	RouteOf func(obj Object) (Route, bool)
}

// RouteOf reads the links of obj, a route of any kind of the table;
// false when obj is no route.
func RouteOf(obj Object) (Route, bool) {
	for _, row := range hierarchy.Table {
		if k := Kinds[row.GroupKind]; k.RouteOf != nil {
			if r, ok := k.RouteOf(obj); ok {
				return r, true
			}
		}
	}
	return Route{}, false
}

// Route is what the topology reads of a route of any kind to link it
// (Gateway API "Route attachment").
type Route struct {
	GroupKind  schema.GroupKind
	Meta       *metav1.ObjectMeta
	Object     Object
	ParentRefs []gwv1.ParentReference
	// Hostnames is nil for kinds without spec.hostnames.
	Hostnames []gwv1.Hostname
	Rules     []RouteRule
}

// RouteRule is one rule of a route: its name (or nil) and its backends.
type RouteRule struct {
	Name     *gwv1.SectionName
	Backends []gwv1.BackendObjectReference
}

// Kinds is the decode column of hierarchy.Table, one entry per row.
var Kinds = map[schema.GroupKind]Kind{
	hierarchy.NamespaceKind: kind(func(s *snapshot.Snapshot) *[]*corev1.Namespace { return &s.Namespaces },
		func(l *corev1.NamespaceList) []corev1.Namespace { return l.Items }),
	hierarchy.GatewayClassKind: kind(func(s *snapshot.Snapshot) *[]*gwv1.GatewayClass { return &s.GatewayClasses },
		func(l *gwv1.GatewayClassList) []gwv1.GatewayClass { return l.Items }),
	hierarchy.GatewayKind: kind(func(s *snapshot.Snapshot) *[]*gwv1.Gateway { return &s.Gateways },
		func(l *gwv1.GatewayList) []gwv1.Gateway { return l.Items }),
	hierarchy.ListenerSetKind: kind(func(s *snapshot.Snapshot) *[]*gwv1.ListenerSet { return &s.ListenerSets },
		func(l *gwv1.ListenerSetList) []gwv1.ListenerSet { return l.Items }),
	hierarchy.HTTPRouteKind: route(hierarchy.HTTPRouteKind, func(s *snapshot.Snapshot) *[]*gwv1.HTTPRoute { return &s.HTTPRoutes },
		func(l *gwv1.HTTPRouteList) []gwv1.HTTPRoute { return l.Items },
		func(r *gwv1.HTTPRoute) Route {
			return Route{Meta: &r.ObjectMeta, ParentRefs: r.Spec.ParentRefs, Hostnames: r.Spec.Hostnames, Rules: rules(r.Spec.Rules, func(x gwv1.HTTPRouteRule) (*gwv1.SectionName, []gwv1.HTTPBackendRef) { return x.Name, x.BackendRefs }, func(b gwv1.HTTPBackendRef) gwv1.BackendObjectReference { return b.BackendObjectReference })}
		}),
	hierarchy.GRPCRouteKind: route(hierarchy.GRPCRouteKind, func(s *snapshot.Snapshot) *[]*gwv1.GRPCRoute { return &s.GRPCRoutes },
		func(l *gwv1.GRPCRouteList) []gwv1.GRPCRoute { return l.Items },
		func(r *gwv1.GRPCRoute) Route {
			return Route{Meta: &r.ObjectMeta, ParentRefs: r.Spec.ParentRefs, Hostnames: r.Spec.Hostnames, Rules: rules(r.Spec.Rules, func(x gwv1.GRPCRouteRule) (*gwv1.SectionName, []gwv1.GRPCBackendRef) { return x.Name, x.BackendRefs }, func(b gwv1.GRPCBackendRef) gwv1.BackendObjectReference { return b.BackendObjectReference })}
		}),
	hierarchy.TLSRouteKind: route(hierarchy.TLSRouteKind, func(s *snapshot.Snapshot) *[]*gwv1.TLSRoute { return &s.TLSRoutes },
		func(l *gwv1.TLSRouteList) []gwv1.TLSRoute { return l.Items },
		func(r *gwv1.TLSRoute) Route {
			return Route{Meta: &r.ObjectMeta, ParentRefs: r.Spec.ParentRefs, Hostnames: r.Spec.Hostnames, Rules: rules(r.Spec.Rules, func(x gwv1.TLSRouteRule) (*gwv1.SectionName, []gwv1.BackendRef) { return x.Name, x.BackendRefs }, objectRef)}
		}),
	hierarchy.TCPRouteKind: route(hierarchy.TCPRouteKind, func(s *snapshot.Snapshot) *[]*gwv1.TCPRoute { return &s.TCPRoutes },
		func(l *gwv1.TCPRouteList) []gwv1.TCPRoute { return l.Items },
		func(r *gwv1.TCPRoute) Route {
			return Route{Meta: &r.ObjectMeta, ParentRefs: r.Spec.ParentRefs, Rules: rules(r.Spec.Rules, func(x gwv1.TCPRouteRule) (*gwv1.SectionName, []gwv1.BackendRef) { return x.Name, x.BackendRefs }, objectRef)}
		}),
	hierarchy.UDPRouteKind: route(hierarchy.UDPRouteKind, func(s *snapshot.Snapshot) *[]*gwv1.UDPRoute { return &s.UDPRoutes },
		func(l *gwv1.UDPRouteList) []gwv1.UDPRoute { return l.Items },
		func(r *gwv1.UDPRoute) Route {
			return Route{Meta: &r.ObjectMeta, ParentRefs: r.Spec.ParentRefs, Rules: rules(r.Spec.Rules, func(x gwv1.UDPRouteRule) (*gwv1.SectionName, []gwv1.BackendRef) { return x.Name, x.BackendRefs }, objectRef)}
		}),
	hierarchy.ServiceKind: kind(func(s *snapshot.Snapshot) *[]*corev1.Service { return &s.Services },
		func(l *corev1.ServiceList) []corev1.Service { return l.Items }),
	hierarchy.ReferenceGrantKind: kind(func(s *snapshot.Snapshot) *[]*gwv1b1.ReferenceGrant { return &s.ReferenceGrants },
		func(l *gwv1b1.ReferenceGrantList) []gwv1b1.ReferenceGrant { return l.Items }),
}

// rules are a route's rules of type R as the topology links them: each
// one's name and the objects its backendRefs, of type B, name.
func rules[R, B any](in []R, rule func(R) (*gwv1.SectionName, []B), of func(B) gwv1.BackendObjectReference) []RouteRule {
	var out []RouteRule
	for _, r := range in {
		name, refs := rule(r)
		x := RouteRule{Name: name}
		for _, b := range refs {
			x.Backends = append(x.Backends, of(b))
		}
		out = append(out, x)
	}
	return out
}

// objectRef is the object a plain BackendRef names.
func objectRef(b gwv1.BackendRef) gwv1.BackendObjectReference { return b.BackendObjectReference }

// kind is the entry of a kind of Go type T, held in the snapshot's slice
// slot returns, whose list type L holds them in items.
func kind[T, L any, PT interface {
	*T
	Object
}, PL interface {
	*L
	runtime.Object
}](slot func(*snapshot.Snapshot) *[]*T, items func(*L) []T) Kind {
	return Kind{
		New:     func() Object { return PT(new(T)) },
		NewList: func() runtime.Object { return PL(new(L)) },
		Add: func(s *snapshot.Snapshot, obj Object) {
			l := slot(s)
			*l = append(*l, (*T)(obj.(PT)))
		},
		AddList: func(s *snapshot.Snapshot, list runtime.Object) {
			in := items((*L)(list.(PL)))
			l := slot(s)
			if *l == nil {
				*l = make([]*T, 0, len(in))
			}
			for i := range in {
				*l = append(*l, &in[i])
			}
		},
		Len: func(s *snapshot.Snapshot) int { return len(*slot(s)) },
		Objects: func(s *snapshot.Snapshot) []Object {
			l := *slot(s)
			out := make([]Object, len(l))
			for i, o := range l {
				out[i] = PT(o)
			}
			return out
		},
	}
}

// route is kind's entry plus the linking rule link of a route kind.
func route[T, L any, PT interface {
	*T
	Object
}, PL interface {
	*L
	runtime.Object
}](gk schema.GroupKind, slot func(*snapshot.Snapshot) *[]*T, items func(*L) []T, link func(*T) Route) Kind {
	k := kind[T, L, PT, PL](slot, items)
	of := func(o *T) Route {
		r := link(o)
		r.GroupKind = gk
		r.Object = PT(o)
		return r
	}
	k.AppendRoutes = func(out []Route, s *snapshot.Snapshot) []Route {
		for _, o := range *slot(s) {
			out = append(out, of(o))
		}
		return out
	}
	k.RouteOf = func(obj Object) (Route, bool) {
		o, ok := obj.(PT)
		if !ok {
			return Route{}, false
		}
		return of((*T)(o)), true
	}
	return k
}
