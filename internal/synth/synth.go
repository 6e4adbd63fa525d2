package synth

import (
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/hierarchy/typed"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
)

// Names of the generated world, for tests and benchmarks.
const (
	// PolicyGroup is the API group of both synthetic policy kinds.
	PolicyGroup = "policies.synth.strata.dev"
	// InheritedKind is the Inherited policy kind: declared targets
	// Namespace, GatewayClass, Gateway (and listeners), HTTPRoute (and
	// rules) and Service; effective target Service.
	InheritedKind = "ColorPolicy"
	// DirectKind is the Direct policy kind: it targets Services (and
	// their ports) only, so two policies on one Service conflict.
	DirectKind = "SessionPolicy"
	// GatewayClassName is the one GatewayClass every Gateway uses.
	GatewayClassName = "strata"
	// ListenersPerGateway and RulesPerRoute are fixed by the workload.
	ListenersPerGateway = 4
	RulesPerRoute       = 2
)

// Sizes says how many objects of each kind a synthetic snapshot holds
// (listeners per Gateway and rules per route are fixed).
type Sizes struct {
	Namespaces int
	Gateways   int
	Routes     int
	Services   int
	// Policies of both kinds: one fifth of the Direct kind, the rest of
	// the Inherited kind spread over every level of the hierarchy.
	Policies int
}

// Scaled returns the sizes at a scale factor: scale 1 is the workload of
// the performance requirement; scale n multiplies every count by n.
func Scaled(n int) Sizes {
	return Sizes{Namespaces: 100 * n, Gateways: 1000 * n, Routes: 20000 * n, Services: 20000 * n, Policies: 5000 * n}
}

// Snapshot generates the world of Scaled(scale); the same seed gives the
// same snapshot.
func Snapshot(scale int, seed int64) *snapshot.Snapshot { return Generate(Scaled(scale), seed) }

// Generate builds a snapshot of the given sizes, deterministically from
// seed. The shape is chosen to exercise every part of the engine:
//
//	GatewayClass strata
//	  Gateway gw-i (namespace ns-(i mod N))
//	    #http  HTTP  :80   *.gw-i.example.com   from All
//	    #api   HTTP  :80   api.gw-i.example.com from All
//	    #https HTTPS :443  *.gw-i.example.com   from Same
//	    #admin HTTP  :8080 (any host)           from Selector env=prod
//	      HTTPRoute route-r (one in five in another namespace than its
//	      Gateway; parentRefs by sectionName, by port, with none, or two)
//	        #rule-0, #rule-1 -> Service svc-s#http (same namespace)
//
// Policies of the Inherited kind target every level (namespaces, the
// class, Gateways, listeners, routes, rules, Services, some through label
// selectors) with defaults, overrides or both, atomic or patch; those of
// the Direct kind target Services and Service ports, a few sharing a
// target so that the None strategy has conflicts to resolve. Every policy
// has its own creationTimestamp, in an order unrelated to its name.
func Generate(sz Sizes, seed int64) *snapshot.Snapshot {
	g := &generator{
		sz:  sz,
		rng: rand.New(rand.NewPCG(uint64(seed), 0x5717a7a)),
		s:   &snapshot.Snapshot{},
	}
	if g.sz.Namespaces < 1 {
		g.sz.Namespaces = 1
	}
	g.declarations()
	g.namespaces()
	g.gateways()
	g.services()
	g.routes()
	g.policies()
	return g.s
}

// WriteYAML writes a snapshot as multi-document YAML that pkg/source/files
// reads back into an equivalent snapshot: declarations, topology, policies.
func WriteYAML(w io.Writer, s *snapshot.Snapshot) error {
	var objs []any
	for _, d := range s.Declarations {
		objs = append(objs, d)
	}
	for _, o := range s.PolicyCRDs {
		objs = append(objs, o.Object)
	}
	for _, row := range hierarchy.Table {
		for _, o := range typed.Kinds[row.GroupKind].Objects(s) {
			objs = append(objs, o)
		}
	}
	for _, o := range s.Policies {
		objs = append(objs, o.Object)
	}
	for _, o := range objs {
		b, err := yaml.Marshal(o)
		if err != nil {
			return fmt.Errorf("write synthetic snapshot: %w", err)
		}
		if _, err := io.WriteString(w, "---\n"); err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// generator holds the state of one Generate call.
type generator struct {
	sz  Sizes
	rng *rand.Rand
	s   *snapshot.Snapshot
	// svcByNS lists service indexes per namespace index; cursor is the
	// next one a route rule takes, so backends spread evenly.
	svcByNS [][]int
	cursor  []int
	// routeNS is the namespace index of each route.
	routeNS []int
}

// Read-only vocabularies the generator picks from.
var (
	tiers         = []string{"frontend", "backend", "db"}
	darks         = []string{"brown", "olive", "navy", "maroon", "black"}
	lights        = []string{"red", "blue", "yellow", "green", "white", "pink"}
	affinities    = []string{"none", "cookie", "client-ip"}
	listenerNames = []gwv1.SectionName{"http", "api", "https", "admin"}
)

// epoch is the creationTimestamp of the oldest policy.
func epoch() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

// typeMeta sets apiVersion and kind, so WriteYAML's output reads back.
func typeMeta(gv, kind string) metav1.TypeMeta { return metav1.TypeMeta{APIVersion: gv, Kind: kind} }

func nsName(i int) string  { return fmt.Sprintf("ns-%04d", i) }
func gwName(i int) string  { return fmt.Sprintf("gw-%05d", i) }
func svcName(i int) string { return fmt.Sprintf("svc-%06d", i) }
func rtName(i int) string  { return fmt.Sprintf("route-%06d", i) }
func domain(gw int) string { return gwName(gw) + ".example.com" }
func isProd(ns int) bool   { return ns%2 == 0 }

// gwKind is a Gateway API kind.
func gwKind(kind string) strata.GroupKind {
	return strata.GroupKind{Group: hierarchy.GatewayGroup, Kind: kind}
}

func (g *generator) declarations() {
	svc := strata.GroupKind{Group: hierarchy.CoreGroup, Kind: "Service"}
	g.s.Declarations = []*policykind.Declaration{
		declaration("colorpolicies."+PolicyGroup, policykind.Spec{
			Group:   PolicyGroup,
			Kind:    InheritedKind,
			Class:   policykind.Inherited,
			Managed: true,
			TargetKinds: []strata.GroupKind{
				{Group: hierarchy.CoreGroup, Kind: "Namespace"},
				gwKind("GatewayClass"), gwKind("Gateway"), gwKind("HTTPRoute"), svc,
			},
			EffectiveTargetKind: &svc,
			Strategies: policykind.Strategies{
				Supported: []string{"AtomicDefaults", "AtomicOverrides", "PatchDefaults", "PatchOverrides"},
				Default:   "AtomicDefaults",
			},
			GlobalNamespaces: []string{nsName(0)},
		}),
		declaration("sessionpolicies."+PolicyGroup, policykind.Spec{
			Group:       PolicyGroup,
			Kind:        DirectKind,
			Class:       policykind.Direct,
			Managed:     true,
			TargetKinds: []strata.GroupKind{svc},
		}),
	}
}

func (g *generator) namespaces() {
	g.svcByNS = make([][]int, g.sz.Namespaces)
	g.cursor = make([]int, g.sz.Namespaces)
	for i := range g.sz.Namespaces {
		env := "staging"
		if isProd(i) {
			env = "prod"
		}
		g.s.Namespaces = append(g.s.Namespaces, &corev1.Namespace{
			TypeMeta: typeMeta("v1", "Namespace"),
			ObjectMeta: metav1.ObjectMeta{Name: nsName(i), Labels: map[string]string{
				"kubernetes.io/metadata.name": nsName(i),
				"env":                         env,
				"team":                        fmt.Sprintf("team-%d", i%10),
			}},
		})
	}
}

// declaration is the PolicyKind object name declaring spec.
func declaration(name string, spec policykind.Spec) *policykind.Declaration {
	return &policykind.Declaration{
		TypeMeta:   typeMeta(policykind.Group+"/"+policykind.Version, policykind.KindName),
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       spec,
	}
}

func (g *generator) gatewayClass() {
	g.s.GatewayClasses = []*gwv1.GatewayClass{{
		TypeMeta:   typeMeta(gwv1.GroupVersion.String(), "GatewayClass"),
		ObjectMeta: metav1.ObjectMeta{Name: GatewayClassName, Generation: 1},
		Spec:       gwv1.GatewayClassSpec{ControllerName: "strata.dev/gateway-controller"},
	}}
}

func (g *generator) gateways() {
	g.gatewayClass()
	from := func(f gwv1.FromNamespaces, sel *metav1.LabelSelector) *gwv1.AllowedRoutes {
		return &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: &f, Selector: sel}}
	}
	host := func(h string) *gwv1.Hostname { x := gwv1.Hostname(h); return &x }
	for i := range g.sz.Gateways {
		d := domain(i)
		g.s.Gateways = append(g.s.Gateways, &gwv1.Gateway{
			TypeMeta:   typeMeta(gwv1.GroupVersion.String(), "Gateway"),
			ObjectMeta: metav1.ObjectMeta{Name: gwName(i), Namespace: nsName(i % g.sz.Namespaces), Generation: 1},
			Spec: gwv1.GatewaySpec{
				GatewayClassName: GatewayClassName,
				Listeners: []gwv1.Listener{
					{Name: listenerNames[0], Protocol: gwv1.HTTPProtocolType, Port: 80, Hostname: host("*." + d), AllowedRoutes: from(gwv1.NamespacesFromAll, nil)},
					{Name: listenerNames[1], Protocol: gwv1.HTTPProtocolType, Port: 80, Hostname: host("api." + d), AllowedRoutes: from(gwv1.NamespacesFromAll, nil)},
					{Name: listenerNames[2], Protocol: gwv1.HTTPSProtocolType, Port: 443, Hostname: host("*." + d), AllowedRoutes: from(gwv1.NamespacesFromSame, nil)},
					{Name: listenerNames[3], Protocol: gwv1.HTTPProtocolType, Port: 8080, AllowedRoutes: from(gwv1.NamespacesFromSelector,
						&metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}})},
				},
			},
		})
	}
}

func (g *generator) services() {
	for i := range g.sz.Services {
		ns := i % g.sz.Namespaces
		g.svcByNS[ns] = append(g.svcByNS[ns], i)
		g.s.Services = append(g.s.Services, &corev1.Service{
			TypeMeta: typeMeta("v1", "Service"),
			ObjectMeta: metav1.ObjectMeta{Name: svcName(i), Namespace: nsName(ns), Generation: 1,
				Labels: map[string]string{"app": svcName(i), "tier": tiers[i%len(tiers)]}},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 8080}}},
		})
	}
}

// backend takes the next Service of a namespace for a route rule, or a
// missing one when the namespace has none.
func (g *generator) backend(ns int) string {
	list := g.svcByNS[ns]
	if len(list) == 0 {
		return "svc-missing"
	}
	s := list[g.cursor[ns]%len(list)]
	g.cursor[ns]++
	return svcName(s)
}

func (g *generator) routes() {
	if g.sz.Gateways == 0 {
		return
	}
	nsCount := g.sz.Namespaces
	g.routeNS = make([]int, g.sz.Routes)
	for r := range g.sz.Routes {
		gw := r % g.sz.Gateways
		gwNS := gw % nsCount
		// k numbers the routes of one Gateway: namespace and shape derive
		// from it, not from r.
		k := r / g.sz.Gateways
		ns := gwNS
		if k%5 == 4 && nsCount > 1 {
			ns = (gwNS + 1 + k%3) % nsCount // attaches through From All / Selector listeners only
		}
		g.routeNS[r] = ns
		parent := func(section gwv1.SectionName, port gwv1.PortNumber) gwv1.ParentReference {
			p := gwv1.ParentReference{Name: gwv1.ObjectName(gwName(gw))}
			if ns != gwNS {
				x := gwv1.Namespace(nsName(gwNS))
				p.Namespace = &x
			}
			if section != "" {
				p.SectionName = &section
			}
			if port != 0 {
				p.Port = &port
			}
			return p
		}
		app := []gwv1.Hostname{gwv1.Hostname(fmt.Sprintf("app-%d.%s", r, domain(gw)))}
		var spec gwv1.HTTPRouteSpec
		switch (k + k/5) % 5 {
		case 0:
			spec.ParentRefs, spec.Hostnames = []gwv1.ParentReference{parent("http", 0)}, app
		case 1: // every listener whose namespaces and hostname allow it
			spec.ParentRefs, spec.Hostnames = []gwv1.ParentReference{parent("", 0)}, app
		case 2:
			spec.ParentRefs = []gwv1.ParentReference{parent("api", 0)}
			spec.Hostnames = []gwv1.Hostname{gwv1.Hostname("api." + domain(gw))}
		case 3:
			spec.ParentRefs = []gwv1.ParentReference{parent("", 443)}
		case 4:
			spec.ParentRefs = []gwv1.ParentReference{parent("http", 0), parent("admin", 0)}
		}
		for range RulesPerRoute {
			port := gwv1.PortNumber(8080)
			spec.Rules = append(spec.Rules, gwv1.HTTPRouteRule{BackendRefs: []gwv1.HTTPBackendRef{{BackendRef: gwv1.BackendRef{
				BackendObjectReference: gwv1.BackendObjectReference{Name: gwv1.ObjectName(g.backend(ns)), Port: &port},
			}}}})
		}
		g.s.HTTPRoutes = append(g.s.HTTPRoutes, &gwv1.HTTPRoute{
			TypeMeta: typeMeta(gwv1.GroupVersion.String(), "HTTPRoute"),
			ObjectMeta: metav1.ObjectMeta{Name: rtName(r), Namespace: nsName(ns), Generation: 1,
				Labels: map[string]string{"tier": tiers[r%len(tiers)]}},
			Spec: spec,
		})
	}
}

// policyMix splits the Inherited policies over the levels of the
// hierarchy: one per namespace up to 1 in 40, a couple on the class, then
// Gateways 2/8, listeners 1/8, routes 3/8, rules 1/8, Services the rest.
type policyMix struct{ namespace, class, gateway, listener, route, rule, service int }

func mixOf(inherited, namespaces int) policyMix {
	var m policyMix
	m.namespace = min(namespaces, inherited/40)
	m.class = min(inherited-m.namespace, max(1, inherited/2000))
	rest := inherited - m.namespace - m.class
	m.gateway, m.listener, m.route, m.rule = rest/4, rest/8, rest*3/8, rest/8
	m.service = rest - m.gateway - m.listener - m.route - m.rule
	return m
}

func (g *generator) policies() {
	direct := g.sz.Policies / 5
	inherited := g.sz.Policies - direct
	created := g.rng.Perm(g.sz.Policies) // distinct timestamps, shuffled against names
	n := 0
	add := func(kind, ns string, spec map[string]any) {
		name := fmt.Sprintf("color-%06d", n)
		if kind == DirectKind {
			name = fmt.Sprintf("session-%06d", n)
		}
		g.addPolicy(kind, name, ns, created[n], spec)
		n++
	}
	ref := func(group, kind, name string) map[string]any {
		return map[string]any{"group": group, "kind": kind, "name": name}
	}
	withSection := func(r map[string]any, s string) map[string]any { r["sectionName"] = s; return r }
	selector := func(group, kind string, labels map[string]any) map[string]any {
		return map[string]any{"group": group, "kind": kind, "selector": map[string]any{"matchLabels": labels}}
	}
	gwGroup := hierarchy.GatewayGroup
	m := mixOf(inherited, g.sz.Namespaces)
	for i := range m.namespace {
		add(InheritedKind, nsName(i), g.colorSpec(ref("", "Namespace", nsName(i))))
	}
	for i := range m.class {
		// The first lives in the global namespace and applies everywhere;
		// the others are scoped to their namespace's Gateways (002).
		add(InheritedKind, nsName(i%g.sz.Namespaces), g.colorSpec(ref(gwGroup, "GatewayClass", GatewayClassName)))
	}
	if g.sz.Gateways > 0 {
		for range m.gateway {
			gw := g.rng.IntN(g.sz.Gateways)
			add(InheritedKind, nsName(gw%g.sz.Namespaces), g.colorSpec(ref(gwGroup, "Gateway", gwName(gw))))
		}
		for range m.listener {
			gw := g.rng.IntN(g.sz.Gateways)
			l := string(listenerNames[g.rng.IntN(len(listenerNames))])
			add(InheritedKind, nsName(gw%g.sz.Namespaces), g.colorSpec(withSection(ref(gwGroup, "Gateway", gwName(gw)), l)))
		}
	}
	if g.sz.Routes > 0 && g.routeNS != nil {
		for i := range m.route {
			r := g.rng.IntN(g.sz.Routes)
			t := ref(gwGroup, "HTTPRoute", rtName(r))
			if i%50 == 0 {
				t = selector(gwGroup, "HTTPRoute", map[string]any{"tier": tiers[r%len(tiers)]})
			}
			add(InheritedKind, nsName(g.routeNS[r]), g.colorSpec(t))
		}
		for range m.rule {
			r := g.rng.IntN(g.sz.Routes)
			rule := fmt.Sprintf("rule-%d", g.rng.IntN(RulesPerRoute))
			add(InheritedKind, nsName(g.routeNS[r]), g.colorSpec(withSection(ref(gwGroup, "HTTPRoute", rtName(r)), rule)))
		}
	}
	if g.sz.Services > 0 {
		for i := range m.service {
			s := g.rng.IntN(g.sz.Services)
			t := ref("", "Service", svcName(s))
			if i%20 == 0 {
				t = selector("", "Service", map[string]any{"tier": "db"})
			}
			add(InheritedKind, nsName(s%g.sz.Namespaces), g.colorSpec(t))
		}
		prev := -1
		for i := range direct {
			s := g.rng.IntN(g.sz.Services)
			if i%20 == 19 && prev >= 0 {
				s = prev // a second policy on one Service: a None conflict
			}
			prev = s
			t := ref("", "Service", svcName(s))
			if i%10 == 5 {
				t = withSection(t, "http")
			}
			add(DirectKind, nsName(s%g.sz.Namespaces), map[string]any{
				"targetRefs":     []any{t},
				"affinity":       affinities[g.rng.IntN(len(affinities))],
				"timeoutSeconds": int64(10 * (1 + g.rng.IntN(6))),
			})
		}
	}
}

// addPolicy adds a policy created sec seconds after the epoch.
func (g *generator) addPolicy(kind, name, ns string, sec int, spec map[string]any) {
	g.s.Policies = append(g.s.Policies, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": PolicyGroup + "/v1",
		"kind":       kind,
		"metadata": map[string]any{
			"name":              name,
			"namespace":         ns,
			"generation":        int64(1),
			"creationTimestamp": epoch().Add(time.Duration(sec) * time.Second).Format(time.RFC3339),
		},
		"spec": spec,
	}})
}

// colorSpec makes the spec of an Inherited policy: 60% defaults, 20%
// overrides, 10% bare fields, 10% both; atomic, patch or the default.
func (g *generator) colorSpec(target map[string]any) map[string]any {
	values := func() map[string]any {
		v := map[string]any{"colors": map[string]any{
			"dark":  darks[g.rng.IntN(len(darks))],
			"light": lights[g.rng.IntN(len(lights))],
		}}
		if g.rng.IntN(2) == 0 {
			v["timeouts"] = map[string]any{"request": fmt.Sprintf("%ds", 1+g.rng.IntN(30))}
		}
		switch g.rng.IntN(3) {
		case 0:
			v["strategy"] = "atomic"
		case 1:
			v["strategy"] = "patch"
		}
		return v
	}
	spec := map[string]any{"targetRefs": []any{target}}
	switch mode := g.rng.IntN(10); {
	case mode < 6:
		spec["defaults"] = values()
	case mode < 8:
		spec["overrides"] = values()
	case mode < 9:
		for k, v := range values() {
			spec[k] = v
		}
	default:
		spec["defaults"] = values()
		spec["overrides"] = map[string]any{"colors": map[string]any{"light": lights[g.rng.IntN(len(lights))]}, "strategy": "patch"}
	}
	return spec
}
