package synth

import (
	"fmt"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
)

// Shape is a world that piles one kind of input onto a single Gateway
// (issue 11, "No cliffs"): it grows one count n alone, so that a cost
// quadratic in that count cannot hide behind the others.
type Shape string

// The shapes. The Policies* shapes put n policies on one Gateway; they
// differ in what the policies set, each loading another part of the fold.
const (
	// PoliciesSameField: n ColorPolicies setting the same fields.
	PoliciesSameField Shape = "policies-same-field"
	// PoliciesDistinctFields: n ColorPolicies, each with a field of its own.
	PoliciesDistinctFields Shape = "policies-distinct-fields"
	// PoliciesMixed: n ColorPolicies on the Gateway and its listener,
	// defaults and overrides, atomic and patch, fields shared and own.
	PoliciesMixed Shape = "policies-mixed"
	// PoliciesConflicts: n SessionPolicies (Direct, strategy None) on
	// one Service: one wins, n-1 are Conflicted.
	PoliciesConflicts Shape = "policies-conflicts"
	// PoliciesRouteEffective: n RoutePolicies, effective on HTTPRoutes.
	PoliciesRouteEffective Shape = "policies-route-effective"
	// Routes: n HTTPRoutes on one Gateway listener, each with one rule.
	Routes Shape = "routes"
	// Listeners: one Gateway with n listeners, a few routes on all.
	Listeners Shape = "listeners"
	// Services: n Services, all backends of one route rule.
	Services Shape = "services"
	// TargetRefs: Services plus one ColorPolicy targeting every Service.
	TargetRefs Shape = "targetrefs"
	// Selectors: Services plus one ColorPolicy with a label-selector
	// targetRef for each Service (app=svc-i).
	Selectors Shape = "selectors"
	// SelectorPolicies: Services plus a ColorPolicy per Service, each
	// with one label-selector targetRef.
	SelectorPolicies Shape = "selector-policies"
	// EmptyDocuments: a small world then n empty documents (WriteShapeYAML).
	EmptyDocuments Shape = "empty-documents"
)

// Shapes lists every shape, in a fixed order for benchmarks.
func Shapes() []Shape {
	return []Shape{
		PoliciesSameField, PoliciesDistinctFields, PoliciesMixed, PoliciesConflicts, PoliciesRouteEffective,
		Routes, Listeners, Services, TargetRefs, Selectors, SelectorPolicies, EmptyDocuments,
	}
}

// RouteKind is the policy kind of PoliciesRouteEffective: Inherited,
// targeting Gateways and HTTPRoutes, effective target HTTPRoute.
const RouteKind = "RoutePolicy"

// shapeFixed are the small counts of a shape's other objects.
const (
	shapeRoutes   = 4
	shapeServices = 4
	shapePolicies = 8 // ColorPolicies of a shape that does not grow policies
)

// GenerateShape builds the world of a shape at size n, deterministically
// (policy i is created i seconds after the epoch; names disagree).
func GenerateShape(sh Shape, n int) (*snapshot.Snapshot, error) {
	g := &generator{sz: Sizes{Namespaces: 1}, s: &snapshot.Snapshot{}}
	g.declarations()
	g.routeDeclaration()
	g.namespaces()
	g.gatewayClass()
	listeners, routes, services, rules := 1, shapeRoutes, shapeServices, 1
	switch sh {
	case Routes:
		routes, services = n, min(n, 1000)
	case Listeners:
		listeners = n
	case Services, TargetRefs, Selectors, SelectorPolicies:
		routes, services, rules = 1, n, n
	case PoliciesSameField, PoliciesDistinctFields, PoliciesMixed, PoliciesConflicts, PoliciesRouteEffective, EmptyDocuments:
	default:
		return nil, fmt.Errorf("synth: unknown shape %q", sh)
	}
	g.shapeGateway(listeners)
	g.sz.Services = services
	g.services()
	g.shapeRoutes(routes, rules, services)
	switch sh {
	case PoliciesSameField, PoliciesDistinctFields, PoliciesMixed, PoliciesConflicts, PoliciesRouteEffective:
		g.shapePolicies(sh, n)
	case TargetRefs:
		g.fewPolicies()
		refs := make([]any, 0, n)
		for i := range n {
			refs = append(refs, map[string]any{"group": "", "kind": "Service", "name": svcName(i)})
		}
		g.addShapePolicy(InheritedKind, "many-targets", map[string]any{
			"targetRefs": refs,
			"defaults":   map[string]any{"colors": map[string]any{"dark": "navy"}, "strategy": "patch"},
		})
	case Selectors:
		g.fewPolicies()
		refs := make([]any, 0, n)
		for i := range n {
			refs = append(refs, appSelector(i))
		}
		g.addShapePolicy(InheritedKind, "many-selectors", map[string]any{
			"targetRefs": refs,
			"defaults":   map[string]any{"colors": map[string]any{"dark": "navy"}, "strategy": "patch"},
		})
	case SelectorPolicies:
		g.fewPolicies()
		for i := range n {
			g.addShapePolicy(InheritedKind, fmt.Sprintf("select-%06d", i), map[string]any{
				"targetRefs": []any{appSelector(i)},
				"defaults":   map[string]any{"colors": map[string]any{"dark": darks[i%len(darks)]}, "strategy": "patch"},
			})
		}
	default:
		g.fewPolicies()
	}
	return g.s, nil
}

// appSelector is a targetRef choosing Service i by its app label.
func appSelector(i int) map[string]any {
	return map[string]any{"group": "", "kind": "Service", "selector": map[string]any{"matchLabels": map[string]any{"app": svcName(i)}}}
}

// WriteShapeYAML writes GenerateShape(sh, n) as WriteYAML does; for
// EmptyDocuments it then writes n empty documents ("---" lines).
func WriteShapeYAML(w io.Writer, sh Shape, n int) error {
	s, err := GenerateShape(sh, n)
	if err != nil {
		return err
	}
	if err := WriteYAML(w, s); err != nil {
		return err
	}
	if sh != EmptyDocuments {
		return nil
	}
	for range n {
		if _, err := io.WriteString(w, "---\n"); err != nil {
			return fmt.Errorf("write synthetic snapshot: %w", err)
		}
	}
	return nil
}

func (g *generator) routeDeclaration() {
	route := gwKind("HTTPRoute")
	g.s.Declarations = append(g.s.Declarations, declaration("routepolicies."+PolicyGroup, policykind.Spec{
		Group:               PolicyGroup,
		Kind:                RouteKind,
		Class:               policykind.Inherited,
		Managed:             true,
		TargetKinds:         []strata.GroupKind{gwKind("Gateway"), route},
		EffectiveTargetKind: &route,
	}))
}

// shapeGateway makes gw-00000 with n HTTP listeners l-i, all allowing
// routes from every namespace and matching any hostname.
func (g *generator) shapeGateway(n int) {
	all := gwv1.NamespacesFromAll
	ls := make([]gwv1.Listener, 0, n)
	for i := range n {
		ls = append(ls, gwv1.Listener{
			Name: gwv1.SectionName(fmt.Sprintf("l-%d", i)), Protocol: gwv1.HTTPProtocolType, Port: 80,
			AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: &all}},
		})
	}
	g.s.Gateways = []*gwv1.Gateway{{
		TypeMeta:   typeMeta(gwv1.GroupVersion.String(), "Gateway"),
		ObjectMeta: metav1.ObjectMeta{Name: gwName(0), Namespace: nsName(0), Generation: 1},
		Spec:       gwv1.GatewaySpec{GatewayClassName: GatewayClassName, Listeners: ls},
	}}
}

// shapeRoutes makes n routes on the Gateway, each with one rule: every
// Service its backend when rules > 1, else the next one round robin.
func (g *generator) shapeRoutes(n, rules, services int) {
	port := gwv1.PortNumber(8080)
	backend := func(s int) gwv1.HTTPBackendRef {
		return gwv1.HTTPBackendRef{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{
			Name: gwv1.ObjectName(svcName(s)), Port: &port,
		}}}
	}
	for r := range n {
		spec := gwv1.HTTPRouteSpec{CommonRouteSpec: gwv1.CommonRouteSpec{
			ParentRefs: []gwv1.ParentReference{{Name: gwv1.ObjectName(gwName(0))}},
		}}
		if rules > 1 {
			// One rule, every Service a backend of it.
			refs := make([]gwv1.HTTPBackendRef, 0, services)
			for s := range services {
				refs = append(refs, backend(s))
			}
			spec.Rules = []gwv1.HTTPRouteRule{{BackendRefs: refs}}
		} else if services > 0 {
			spec.Rules = []gwv1.HTTPRouteRule{{BackendRefs: []gwv1.HTTPBackendRef{backend(r % services)}}}
		}
		g.s.HTTPRoutes = append(g.s.HTTPRoutes, &gwv1.HTTPRoute{
			TypeMeta: typeMeta(gwv1.GroupVersion.String(), "HTTPRoute"),
			ObjectMeta: metav1.ObjectMeta{Name: rtName(r), Namespace: nsName(0), Generation: 1,
				Labels: map[string]string{"tier": tiers[r%len(tiers)]}},
			Spec: spec,
		})
	}
}

// addShapePolicy adds a policy named name in the shape's namespace, created
// one second after the previous one.
func (g *generator) addShapePolicy(kind, name string, spec map[string]any) {
	g.addPolicy(kind, name, nsName(0), len(g.s.Policies), spec)
}

// fewPolicies adds the shapePolicies ColorPolicies of a shape that grows
// something else, on every level; defaults and overrides.
func (g *generator) fewPolicies() {
	gwGroup := hierarchy.GatewayGroup
	targets := []map[string]any{
		{"group": gwGroup, "kind": "Gateway", "name": gwName(0)},
		{"group": gwGroup, "kind": "Gateway", "name": gwName(0), "sectionName": "l-0"},
		{"group": gwGroup, "kind": "HTTPRoute", "name": rtName(0)},
		{"group": gwGroup, "kind": "HTTPRoute", "selector": map[string]any{"matchLabels": map[string]any{"tier": "backend"}}},
		{"group": "", "kind": "Service", "name": svcName(0)},
		{"group": "", "kind": "Service", "selector": map[string]any{"matchLabels": map[string]any{"tier": "db"}}},
		{"group": "", "kind": "Namespace", "name": nsName(0)},
		{"group": gwGroup, "kind": "GatewayClass", "name": GatewayClassName},
	}
	for i, t := range targets[:shapePolicies] {
		block := "defaults"
		if i%3 == 2 {
			block = "overrides"
		}
		g.addShapePolicy(InheritedKind, fmt.Sprintf("color-%06d", len(targets)-i), map[string]any{
			"targetRefs": []any{t},
			block: map[string]any{
				"colors":   map[string]any{"dark": darks[i%len(darks)], "light": lights[i%len(lights)]},
				"strategy": []string{"patch", "atomic"}[i%2],
			},
		})
	}
}

// shapePolicies adds the n policies of a Policies* shape. Names run
// backwards against creation order, so neither alone decides ties.
func (g *generator) shapePolicies(sh Shape, n int) {
	gwGroup := hierarchy.GatewayGroup
	gateway := map[string]any{"group": gwGroup, "kind": "Gateway", "name": gwName(0)}
	name := func(prefix string, i int) string { return fmt.Sprintf("%s-%06d", prefix, n-i) }
	for i := range n {
		switch sh {
		case PoliciesSameField:
			g.addShapePolicy(InheritedKind, name("color", i), map[string]any{
				"targetRefs": []any{gateway},
				"defaults": map[string]any{
					"colors":   map[string]any{"dark": darks[i%len(darks)], "light": lights[i%len(lights)]},
					"strategy": "patch",
				},
			})
		case PoliciesDistinctFields:
			g.addShapePolicy(InheritedKind, name("color", i), map[string]any{
				"targetRefs": []any{gateway},
				"defaults": map[string]any{
					"colors":   map[string]any{fmt.Sprintf("c%06d", i): lights[i%len(lights)]},
					"strategy": "patch",
				},
			})
		case PoliciesMixed:
			t := gateway
			if i%4 == 3 {
				t = map[string]any{"group": gwGroup, "kind": "Gateway", "name": gwName(0), "sectionName": "l-0"}
			}
			colors := map[string]any{fmt.Sprintf("c%06d", i): lights[i%len(lights)]}
			if i%2 == 0 {
				colors["dark"] = darks[i%len(darks)]
			}
			block := "defaults"
			if i%3 == 1 {
				block = "overrides"
			}
			g.addShapePolicy(InheritedKind, name("color", i), map[string]any{
				"targetRefs": []any{t},
				block:        map[string]any{"colors": colors, "strategy": []string{"patch", "atomic", "patch", "patch"}[i%4]},
			})
		case PoliciesConflicts:
			g.addShapePolicy(DirectKind, name("session", i), map[string]any{
				"targetRefs":     []any{map[string]any{"group": "", "kind": "Service", "name": svcName(0)}},
				"affinity":       affinities[i%len(affinities)],
				"timeoutSeconds": int64(10 * (1 + i%6)),
			})
		case PoliciesRouteEffective:
			g.addShapePolicy(RouteKind, name("route", i), map[string]any{
				"targetRefs": []any{gateway},
				"defaults":   map[string]any{"retries": int64(i % 7), fmt.Sprintf("f%06d", i%100): "on"},
			})
		}
	}
}
