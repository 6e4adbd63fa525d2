package hierarchy

import "k8s.io/apimachinery/pkg/runtime/schema"

// Groups Strata models. A targetRef whose group is none of these (and not
// a policy group) names a virtual kind (GEP-713 "Targeting virtual types").
const (
	CoreGroup    = ""
	GatewayGroup = "gateway.networking.k8s.io"
)

// Kinds of the hierarchy, as group/kind pairs.
var (
	NamespaceKind      = schema.GroupKind{Group: CoreGroup, Kind: "Namespace"}
	ServiceKind        = schema.GroupKind{Group: CoreGroup, Kind: "Service"}
	GatewayClassKind   = schema.GroupKind{Group: GatewayGroup, Kind: "GatewayClass"}
	GatewayKind        = schema.GroupKind{Group: GatewayGroup, Kind: "Gateway"}
	HTTPRouteKind      = schema.GroupKind{Group: GatewayGroup, Kind: "HTTPRoute"}
	GRPCRouteKind      = schema.GroupKind{Group: GatewayGroup, Kind: "GRPCRoute"}
	TCPRouteKind       = schema.GroupKind{Group: GatewayGroup, Kind: "TCPRoute"}
	TLSRouteKind       = schema.GroupKind{Group: GatewayGroup, Kind: "TLSRoute"}
	UDPRouteKind       = schema.GroupKind{Group: GatewayGroup, Kind: "UDPRoute"}
	ReferenceGrantKind = schema.GroupKind{Group: GatewayGroup, Kind: "ReferenceGrant"}
)

// Level orders the hierarchy of target kinds from least specific (0) to most
// specific. GEP-713 "Conflict resolution rules": between two policies at
// different levels, the one attached higher (lower Level) wins.
//
//	Namespace(0) > GatewayClass(1) > Gateway(2) > listener(3) > xRoute(4)
//	  > rule(5) > Service(6) > port(7) > virtual kinds(8)
//
// Every edge of the DAG goes from a lower to a strictly higher level, so
// the graph cannot have cycles.
type Level int8

// Levels of the hierarchy.
const (
	LevelNamespace Level = iota
	LevelGatewayClass
	LevelGateway
	LevelListener
	LevelRoute
	LevelRule
	LevelService
	LevelServicePort
	LevelVirtual
)

// KindInfo describes one modelled kind: where it sits in the hierarchy,
// what its sections are called and where a <Kind>Affected condition goes.
type KindInfo struct {
	Level Level
	// Namespaced is false for cluster-scoped kinds.
	Namespaced bool
	// Section names what a sectionName refers to ("" if the kind has none).
	Section string
	// Conditions says where target conditions live; see ConditionPlace.
	Conditions ConditionPlace
}

// ConditionPlace says where a target's <Kind>Affected condition is written
// (GEP-713 "Target object status").
type ConditionPlace int

const (
	// InAnnotation: the object has no status conditions; an annotation is
	// used instead.
	InAnnotation ConditionPlace = iota
	// InStatusConditions: status.conditions (Gateway, GatewayClass, Service);
	// sections of a Gateway go to status.listeners[].conditions.
	InStatusConditions
	// InRouteParents: status.parents[].conditions, one entry per parent
	// through which the route is affected.
	InRouteParents
	// Nowhere: virtual kinds have no object to write to.
	Nowhere
)

// Kinds is the table of modelled kinds. A table, not a switch, so adding a
// kind is one line.
var Kinds = map[schema.GroupKind]KindInfo{
	NamespaceKind:    {Level: LevelNamespace, Conditions: InAnnotation},
	GatewayClassKind: {Level: LevelGatewayClass, Conditions: InStatusConditions},
	GatewayKind:      {Level: LevelGateway, Namespaced: true, Section: "listener", Conditions: InStatusConditions},
	HTTPRouteKind:    {Level: LevelRoute, Namespaced: true, Section: "rule", Conditions: InRouteParents},
	GRPCRouteKind:    {Level: LevelRoute, Namespaced: true, Section: "rule", Conditions: InRouteParents},
	TCPRouteKind:     {Level: LevelRoute, Namespaced: true, Section: "rule", Conditions: InRouteParents},
	TLSRouteKind:     {Level: LevelRoute, Namespaced: true, Section: "rule", Conditions: InRouteParents},
	UDPRouteKind:     {Level: LevelRoute, Namespaced: true, Section: "rule", Conditions: InRouteParents},
	ServiceKind:      {Level: LevelService, Namespaced: true, Section: "port", Conditions: InStatusConditions},
}

// IsModelled reports whether gk is a kind of the hierarchy.
func IsModelled(gk schema.GroupKind) bool { _, ok := Kinds[gk]; return ok }

// IsKnownGroup reports whether a group is one Strata models; kinds of
// other groups are virtual.
func IsKnownGroup(group string) bool { return group == CoreGroup || group == GatewayGroup }
