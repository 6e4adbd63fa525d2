package hierarchy

import "k8s.io/apimachinery/pkg/runtime/schema"

// Groups Strata models. A targetRef whose group is none of these (and not
// a policy group) names a virtual kind (GEP-713 "Targeting virtual types").
const (
	CoreGroup    = ""
	GatewayGroup = "gateway.networking.k8s.io"
)

// Kinds of the hierarchy, as group/kind pairs: they name rows of Table.
var (
	NamespaceKind      = schema.GroupKind{Group: CoreGroup, Kind: "Namespace"}
	ServiceKind        = schema.GroupKind{Group: CoreGroup, Kind: "Service"}
	GatewayClassKind   = schema.GroupKind{Group: GatewayGroup, Kind: "GatewayClass"}
	GatewayKind        = schema.GroupKind{Group: GatewayGroup, Kind: "Gateway"}
	ListenerSetKind    = schema.GroupKind{Group: GatewayGroup, Kind: "ListenerSet"}
	HTTPRouteKind      = schema.GroupKind{Group: GatewayGroup, Kind: "HTTPRoute"}
	GRPCRouteKind      = schema.GroupKind{Group: GatewayGroup, Kind: "GRPCRoute"}
	TCPRouteKind       = schema.GroupKind{Group: GatewayGroup, Kind: "TCPRoute"}
	TLSRouteKind       = schema.GroupKind{Group: GatewayGroup, Kind: "TLSRoute"}
	UDPRouteKind       = schema.GroupKind{Group: GatewayGroup, Kind: "UDPRoute"}
	ReferenceGrantKind = schema.GroupKind{Group: GatewayGroup, Kind: "ReferenceGrant"}
)

// The blueprint config kinds of 002 (pkg/apis/blueprints/v1alpha1), as
// Row.Configs names them.
const (
	ClassConfigKind   = "GatewayClassConfig"
	GatewayConfigKind = "GatewayConfig"
)

// Level orders the hierarchy of target kinds from least specific (0) to most
// specific. GEP-713 "Conflict resolution rules": between two policies at
// different levels, the one attached higher (lower Level) wins.
//
//	Namespace(0) > GatewayClass(1) > Gateway(2) > ListenerSet(3) > listener(4)
//	  > xRoute(5) > rule(6) > Service(7) > port(8) > virtual kinds(9)
//
// A mesh path (GEP-1426) has the Service's frontend where an ingress path
// has its Gateway (LevelMeshFrontend). A ListenerSet sits between its
// parent Gateway and its listeners (GEP-1713). Every edge of the DAG goes
// to a strictly higher level, so the graph has no cycles.
type Level int8

// Levels of the hierarchy.
const (
	LevelNamespace Level = iota
	LevelGatewayClass
	LevelGateway
	LevelListenerSet
	LevelListener
	LevelRoute
	LevelRule
	LevelService
	LevelServicePort
	LevelVirtual
)

// LevelMeshFrontend is the level of a Service as the parent of a mesh
// route (GEP-1426 "the Service acts as the route's parent"): where the
// Gateway stands on an ingress path, distinct from the same Service as a
// backend (LevelService), so that a producer route sending to its own
// Service keeps the graph acyclic. A frontend is never on a path with a
// Gateway.
const LevelMeshFrontend = LevelGateway

// Role says which part a node plays when one object is two nodes: a
// Service is the backend a rule sends to (RoleNone) and the frontend of
// the mesh routes whose parentRef it is (RoleFrontend). It is part of a
// node's ref (topology.Ref.Role), so the two nodes have two locators.
type Role uint8

// Roles of a node.
const (
	RoleNone Role = iota
	RoleFrontend
)

// String is the role's name in locators and documents ("frontend"), ""
// for RoleNone.
func (r Role) String() string {
	if r == RoleFrontend {
		return "frontend"
	}
	return ""
}

// ParseRole is the role String names; RoleNone for any other string.
func ParseRole(s string) Role {
	if s == RoleFrontend.String() {
		return RoleFrontend
	}
	return RoleNone
}

// MarshalText writes the role's name, so JSON shows "frontend".
func (r Role) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads a role's name.
func (r *Role) UnmarshalText(b []byte) error { *r = ParseRole(string(b)); return nil }

// KindInfo describes one modelled kind: where it sits in the hierarchy,
// what its sections are called and where a <Kind>Affected condition goes.
type KindInfo struct {
	Level Level
	// Namespaced is false for cluster-scoped kinds.
	Namespaced bool
	// Section names what a sectionName refers to ("" if the kind has none).
	Section string
	// SectionLevel is the level of the kind's sections unless Level+1 (0).
	SectionLevel Level
	// Conditions says where target conditions live; see ConditionPlace.
	Conditions ConditionPlace
	// MaxConditions is its CRD's maxItems of each list of conditions
	// (docs/status.md, "Room"); 0: no bound.
	MaxConditions int
	// Frontend is true for a kind whose objects are also the parents of
	// mesh routes (GEP-1426: a Service), which then get a second node at
	// LevelMeshFrontend with RoleFrontend (see Roles).
	Frontend bool
}

// Roles says in which roles a policy acts on an object of kind gk it
// targets, for a policy kind whose effective target kinds are effs (nil:
// the declared targets are the effective ones). backend is the object's
// own node; frontend its frontend node (KindInfo.Frontend). A Service
// target acts as a backend unless effs are all kinds only its frontend
// reaches (routes) (docs/hierarchy.md, "Mesh").
func Roles(gk schema.GroupKind, effs []schema.GroupKind) (backend, frontend bool) {
	info, ok := Kinds[gk]
	if !ok || !info.Frontend || len(effs) == 0 {
		return true, false
	}
	for _, e := range effs {
		switch ei, ok := Kinds[e]; {
		case e == gk:
			backend = true
		case ok && ei.Level >= LevelRoute && ei.Level < info.Level:
			frontend = true
		}
	}
	if !frontend {
		backend = true
	}
	return backend, frontend
}

// SectionsAt is the level of the kind's sections (see SectionLevel).
func (k KindInfo) SectionsAt() Level {
	if k.SectionLevel != 0 {
		return k.SectionLevel
	}
	return k.Level + 1
}

// ConditionPlace says where a target's <Kind>Affected condition is written
// (GEP-713 "Target object status").
type ConditionPlace int

const (
	// InAnnotation: an annotation, for an object without status conditions.
	InAnnotation ConditionPlace = iota
	// InStatusConditions: status.conditions (listeners': status.listeners[]).
	InStatusConditions
	// InRouteParents: status.parents[].conditions, per parent.
	InRouteParents
	// Nowhere: virtual kinds have no object to write to.
	Nowhere
)

// GatewayAPIMaxConditions is the maxItems of every list of conditions of
// the Gateway API kinds Strata writes to (TestMaxConditionsAreTheCRDs).
const GatewayAPIMaxConditions = 8

// Row is everything Strata knows about one kind of object it reads: the
// kinds of the hierarchy and those the topology needs besides
// (ReferenceGrant). Every list of kinds elsewhere ranges over Table, so
// adding a kind is one row here plus, for a route kind, its linking rule
// (docs/hierarchy.md). Each kind's Go type lives in hierarchy/typed, so
// that this package imports no API types.
type Row struct {
	schema.GroupKind
	// Version is the API version the cluster is listed and watched in.
	Version string
	// Resource is the kind's resource (plural, lower case).
	Resource string
	KindInfo
	// Targetable is true for the kinds a policy may target (GEP-713
	// "Policy Attachment").
	Targetable bool
	// Names are what a user may type for the kind (as kubectl's).
	Names []string
	// Route is set for xRoute kinds: how they attach to listeners.
	Route *RouteInfo
	// Configs are the blueprint config kinds (002) whose targetRefs may
	// name an object of the kind.
	Configs []string
}

// RouteInfo is what Gateway API says of how routes of a kind attach to a
// Gateway's listeners, beyond what their objects say.
type RouteInfo struct {
	// Protocols are the listener protocols that accept the kind when
	// allowedRoutes.kinds names none (Gateway API Listener).
	Protocols []string
	// Hostnames is true for route kinds whose spec.hostnames must
	// intersect the listener's hostname.
	Hostnames bool
}

// Table is the single table of the kinds Strata reads, in the order they
// are read, listed, and added to the topology (routes in this order too,
// so node order and first-wins duplicate handling do not change).
var Table = []Row{
	{GroupKind: NamespaceKind, Version: "v1", Resource: "namespaces", Targetable: true,
		KindInfo: KindInfo{Level: LevelNamespace, Conditions: InAnnotation},
		Names:    []string{"namespace", "namespaces", "ns"},
		Configs:  []string{ClassConfigKind, GatewayConfigKind}},
	{GroupKind: GatewayClassKind, Version: "v1", Resource: "gatewayclasses", Targetable: true,
		KindInfo: KindInfo{Level: LevelGatewayClass, Conditions: InStatusConditions, MaxConditions: GatewayAPIMaxConditions},
		Names:    []string{"gatewayclass", "gatewayclasses", "gc"},
		Configs:  []string{ClassConfigKind}},
	{GroupKind: GatewayKind, Version: "v1", Resource: "gateways", Targetable: true,
		KindInfo: KindInfo{Level: LevelGateway, SectionLevel: LevelListener, Namespaced: true, Section: "listener", Conditions: InStatusConditions, MaxConditions: GatewayAPIMaxConditions},
		Names:    []string{"gateway", "gateways", "gw"},
		Configs:  []string{GatewayConfigKind}},
	// ListenerSet (GEP-1713) sits below its Gateway, above its listeners.
	{GroupKind: ListenerSetKind, Version: "v1", Resource: "listenersets", Targetable: true,
		KindInfo: KindInfo{Level: LevelListenerSet, Namespaced: true, Section: "listener", Conditions: InStatusConditions, MaxConditions: GatewayAPIMaxConditions},
		Names:    []string{"listenerset", "listenersets", "lset"}},
	{GroupKind: HTTPRouteKind, Version: "v1", Resource: "httproutes", Targetable: true,
		KindInfo: KindInfo{Level: LevelRoute, Namespaced: true, Section: "rule", Conditions: InRouteParents, MaxConditions: GatewayAPIMaxConditions},
		Names:    []string{"httproute", "httproutes", "route", "routes"},
		Route:    &RouteInfo{Protocols: []string{"HTTP", "HTTPS"}, Hostnames: true},
		Configs:  []string{GatewayConfigKind}},
	{GroupKind: GRPCRouteKind, Version: "v1", Resource: "grpcroutes", Targetable: true,
		KindInfo: KindInfo{Level: LevelRoute, Namespaced: true, Section: "rule", Conditions: InRouteParents, MaxConditions: GatewayAPIMaxConditions},
		Names:    []string{"grpcroute", "grpcroutes"},
		Route:    &RouteInfo{Protocols: []string{"HTTP", "HTTPS"}, Hostnames: true}},
	{GroupKind: TLSRouteKind, Version: "v1", Resource: "tlsroutes", Targetable: true,
		KindInfo: KindInfo{Level: LevelRoute, Namespaced: true, Section: "rule", Conditions: InRouteParents, MaxConditions: GatewayAPIMaxConditions},
		Names:    []string{"tlsroute", "tlsroutes"},
		Route:    &RouteInfo{Protocols: []string{"TLS"}, Hostnames: true}},
	{GroupKind: TCPRouteKind, Version: "v1", Resource: "tcproutes", Targetable: true,
		KindInfo: KindInfo{Level: LevelRoute, Namespaced: true, Section: "rule", Conditions: InRouteParents, MaxConditions: GatewayAPIMaxConditions},
		Names:    []string{"tcproute", "tcproutes"},
		Route:    &RouteInfo{Protocols: []string{"TLS", "TCP"}}},
	{GroupKind: UDPRouteKind, Version: "v1", Resource: "udproutes", Targetable: true,
		KindInfo: KindInfo{Level: LevelRoute, Namespaced: true, Section: "rule", Conditions: InRouteParents, MaxConditions: GatewayAPIMaxConditions},
		Names:    []string{"udproute", "udproutes"},
		Route:    &RouteInfo{Protocols: []string{"UDP"}}},
	// Service is a backend and a mesh frontend (GEP-1426).
	{GroupKind: ServiceKind, Version: "v1", Resource: "services", Targetable: true,
		KindInfo: KindInfo{Level: LevelService, Namespaced: true, Section: "port", Conditions: InStatusConditions, Frontend: true},
		Names:    []string{"service", "services", "svc"}},
	// ReferenceGrant is read, never targeted.
	{GroupKind: ReferenceGrantKind, Version: "v1beta1", Resource: "referencegrants",
		KindInfo: KindInfo{Namespaced: true}},
}

// Kinds is the targetable rows of Table by kind: the kinds of the
// hierarchy. knownGroups are the groups of Table's rows.
var Kinds, knownGroups = func() (map[schema.GroupKind]KindInfo, map[string]bool) {
	kinds, groups := map[schema.GroupKind]KindInfo{}, map[string]bool{}
	for _, r := range Table {
		if r.Targetable {
			kinds[r.GroupKind] = r.KindInfo
		}
		groups[r.Group] = true
	}
	return kinds, groups
}()

// Lookup returns the row of Table for gk.
func Lookup(gk schema.GroupKind) (Row, bool) {
	for _, r := range Table {
		if r.GroupKind == gk {
			return r, true
		}
	}
	return Row{}, false
}

// GroupVersionKind is the kind in the version Strata lists and watches it.
func (r Row) GroupVersionKind() schema.GroupVersionKind { return r.WithVersion(r.Version) }

// IsModelled reports whether gk is a kind of the hierarchy.
func IsModelled(gk schema.GroupKind) bool { _, ok := Kinds[gk]; return ok }

// IsKnownGroup reports whether a group is one Strata models (a group of a
// row of Table); kinds of other groups are virtual.
func IsKnownGroup(group string) bool { return knownGroups[group] }
