package query

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	stratav1 "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/query/routing"
)

// KindSimulation is the kind of a Simulation document.
const KindSimulation = "Simulation"

// Simulation answers GEP-713's "What happens when a network request X
// comes in?" for one request or connection: the listener, rule and backends
// chosen (with why others were passed over), what the filters do, and the
// effective policy of every kind along that context path, field by field.
type Simulation struct {
	TypeMeta `json:",inline"`
	Request  routing.Request `json:"request"`
	Steps    []routing.Step  `json:"steps"`             // the listeners, routes and matches considered, and why
	Failure  string          `json:"failure,omitempty"` // why no rule handles the request; the fields below are then empty
	// Match is the index of the winning match in Rule, Condition that match as written.
	Listener  *Ref   `json:"listener,omitempty"`
	Rule      *Ref   `json:"rule,omitempty"`
	Match     *int   `json:"match,omitempty"`
	Condition string `json:"condition,omitempty"`
	Hostname  string `json:"hostname,omitempty"` // the route (or listener) hostname that matched.
	// Outcome is what the rule's filters do to the request, in order.
	routing.Outcome `json:",inline"`
	Backends        []routing.Backend `json:"backends,omitempty"` // of the rule, with their weights and filters
	Path            []Ref             `json:"path,omitempty"`     // the request's context path, least specific first.
	// Effective holds, per policy kind, the effective policy along this path only.
	Effective []KindEffect `json:"effective"`

	// Undecided says why routing cannot be decided: kinds it could not read.
	Undecided  string     `json:"undecided,omitempty"`
	Unreadable []string   `json:"unreadable,omitempty"`
	Assumed    *Ref       `json:"assumed,omitempty"`  // the route the user expects (--route)
	Withheld   []Withheld `json:"withheld,omitempty"` // kinds whose records say only that they affect an object on the way
}

// Withheld is a policy kind whose record says only that it affects the target.
type Withheld struct {
	GroupKind `json:",inline"`
	Target    Ref   `json:"target"`
	Policies  int32 `json:"policies"`
}

// Simulate follows a request through res and gathers the effective policies on its path.
func Simulate(res *engine.Result, req routing.Request, gateway string) (*Simulation, error) {
	if ns, name, ok := strings.Cut(gateway, "/"); ok && ns != "" && name != "" {
		gw := topology.Ref{Group: hierarchy.GatewayGroup, Kind: hierarchy.GatewayKind.Kind, Namespace: ns, Name: name}
		if res.Graph.Lookup(gw) == topology.None {
			return nil, NoSuchObject(res, "--gateway", gateway, gw)
		}
	}
	tr, err := routing.Route(res.Graph, req, gateway)
	if err != nil {
		return nil, err
	}
	q := newQuery(res)
	s := &Simulation{TypeMeta: TypeMeta{APIVersion: APIVersion, Kind: KindSimulation}, Request: req, Steps: tr.Steps, Failure: tr.Failure, Effective: []KindEffect{}}
	if s.Steps == nil {
		s.Steps = []routing.Step{}
	}
	if tr.Failure != "" {
		return s, nil
	}
	listener, rule, match := q.ref(tr.Listener), q.ref(tr.Rule), tr.Match
	s.Listener, s.Rule, s.Match = &listener, &rule, &match
	s.Condition, s.Hostname, s.Outcome, s.Backends = tr.Condition, tr.Hostname, tr.Outcome, tr.Backends
	s.Path = q.path(append(q.g.Namespaces(tr.Path), tr.Path...))

	// The request's contexts: every node of the path is on its way (Namespaces aside).
	nodes := tr.Nodes(q.g)
	on := map[topology.NodeID]bool{}
	for _, n := range nodes {
		on[n] = true
	}
	for i := range res.Kinds {
		if res.SharedWith(i) != i {
			continue // a later rung of a value space: its first kind answers
		}
		k := res.Kinds[i].Kind
		ke := KindEffect{GroupKind: groupKindOf(k), Class: string(k.Class), ValueSpace: q.valueSpace(i)}
		for _, n := range nodes {
			t := q.targetOf(i, n)
			if t == nil {
				continue
			}
			te := TargetEffect{Target: q.ref(n)}
			for _, ctx := range t.Contexts {
				if !slices.ContainsFunc(ctx.Path, func(p topology.NodeID) bool {
					return !on[p] && q.g.Node(p).Ref.GroupKind() != hierarchy.NamespaceKind
				}) {
					te.Contexts = append(te.Contexts, q.contextEffect(k, n, ctx))
				}
			}
			if len(te.Contexts) > 0 {
				ke.Targets = append(ke.Targets, te)
			}
		}
		if len(ke.Targets) > 0 {
			s.Effective = append(s.Effective, ke)
		}
	}
	return s, nil
}

// NoSuchObject is the error for a flag naming no object of res.
func NoSuchObject(res *engine.Result, flag, value string, ref topology.Ref) error {
	gk := schema.GroupKind{Group: ref.Group, Kind: ref.Kind}
	key := ref.Namespace + "/" + ref.Name
	prefix := strings.TrimSuffix(value, key) // KIND/, as typed
	var in, here, all []string
	for _, id := range res.Graph.ByKind(gk) {
		r := res.Graph.Node(id).Ref
		all = append(all, r.Namespace+"/"+r.Name)
		if r.Namespace == ref.Namespace {
			here = append(here, r.Name)
		}
		if r.Name == ref.Name {
			in = append(in, r.Namespace)
		}
	}
	hint := ""
	if len(in) > 0 {
		slices.Sort(in)
		hint = fmt.Sprintf(" (found in namespace %s: %s %s%s/%s)", strings.Join(in, ", "), flag, prefix, in[0], ref.Name)
	}
	// Names are compared alone, so that the namespace does not widen the distance.
	close := Suggest(ref.Name, here)
	for i, n := range close {
		close[i] = ref.Namespace + "/" + n
	}
	if len(close) == 0 && len(in) == 0 {
		close = Suggest(key, all)
	}
	return fmt.Errorf("%s %s: no such %s%s%s", flag, value, ref.Kind, hint, didYouMean(close))
}

// SimulateRequest is what `strata simulate` asks: one request, the Gateway
// it is sent to (NAMESPACE/NAME, empty for any) and the route the user
// expects (Route as typed, Expected as read; empty and nil for none).
type SimulateRequest struct {
	Request        routing.Request
	Gateway, Route string
	Expected       *topology.Ref
	// Hidden are the routing kinds not read in every namespace: the routing is then not decided.
	Hidden []string
	// Records are the published EffectivePolicy records read: with the
	// routing undecided, those of the Expected route answer
	// (AssumeRoute). Published answers for the policy kinds the user
	// could not read, on the request's way (Published.Simulate).
	Records   []*stratav1.EffectivePolicy
	Published *Published
}

// NewSimulateRequest reads simulate's arguments; --route is [KIND/]NAMESPACE/NAME, KIND the scheme's first route kind by default.
func NewSimulateRequest(method, url string, headers []string, gateway, route string) (SimulateRequest, error) {
	req, err := routing.NewRequest(method, url, headers)
	r := SimulateRequest{Request: req, Gateway: gateway, Route: route}
	if err != nil || route == "" {
		return r, err
	}
	parts := strings.Split(route, "/")
	if n := len(parts); n < 2 || n > 3 || parts[n-2] == "" || parts[n-1] == "" {
		return r, fmt.Errorf("--route %q: want [KIND/]NAMESPACE/NAME", route)
	}
	scheme := routing.Schemes[req.Scheme]
	gk := scheme.Kinds[0]
	if len(parts) == 3 {
		i := slices.IndexFunc(hierarchy.Table, func(k hierarchy.Row) bool {
			return k.Route != nil && (strings.EqualFold(parts[0], k.Kind) || slices.Contains(k.Names, strings.ToLower(parts[0])))
		})
		if i < 0 {
			return r, fmt.Errorf("--route %q: %s is not a route kind (HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute)", route, parts[0])
		}
		gk, parts = hierarchy.Table[i].GroupKind, parts[1:]
	}
	if !slices.Contains(scheme.Kinds, gk) {
		return r, fmt.Errorf("--route %q: a %s does not handle %s:// %ss", route, gk.Kind, req.Scheme, connectionOr(scheme.Connection))
	}
	r.Expected = &topology.Ref{Group: gk.Group, Kind: gk.Kind, Namespace: parts[0], Name: parts[1]}
	return r, nil
}

// Scope is the nodes a run must compute to answer r: those the request passes through.
func (r SimulateRequest) Scope() func(*engine.Result) []topology.NodeID {
	return func(res *engine.Result) []topology.NodeID {
		tr, err := routing.Route(res.Graph, r.Request, r.Gateway)
		if err != nil {
			return nil
		}
		if tr.Failure != "" {
			return []topology.NodeID{}
		}
		return tr.Nodes(res.Graph)
	}
}

func connectionOr(connection bool) string {
	return map[bool]string{true: "connection", false: "request"}[connection]
}

// RunSimulate answers r from res, a run scoped to r.Scope(); when r.Hidden, it says why
// the routing is undecided, for the caller to answer from the published records.
func RunSimulate(res *engine.Result, r SimulateRequest) (*Simulation, error) {
	if len(r.Hidden) > 0 {
		sim := &Simulation{
			TypeMeta: TypeMeta{APIVersion: APIVersion, Kind: KindSimulation}, Request: r.Request,
			Steps: []routing.Step{}, Effective: []KindEffect{}, Unreadable: r.Hidden,
			Undecided: fmt.Sprintf("you cannot read %s in every namespace, so which listener accepts the %s and which route handles it cannot be decided",
				strings.Join(r.Hidden, ", "), connectionOr(r.Request.Connection())),
		}
		r.fromRecords(sim, res)
		return sim, nil
	}
	sim, err := Simulate(res, r.Request, r.Gateway)
	switch {
	case err != nil:
		return nil, err
	case r.Expected != nil && res.Graph.Lookup(*r.Expected) == topology.None:
		return nil, NoSuchObject(res, "--route", r.Route, *r.Expected)
	}
	r.fromRecords(sim, res)
	return sim, nil
}

// fromRecords adds to sim what the published records say: of the route
// the user expects when the routing is undecided, else of the kinds
// only they tell of.
func (r SimulateRequest) fromRecords(sim *Simulation, res *engine.Result) {
	switch {
	case sim.Undecided != "" && r.Expected != nil:
		AssumeRoute(sim, res, r.Records, *r.Expected, r.Gateway)
	case r.Published != nil:
		r.Published.Simulate(sim, res)
	}
}

// Unanswered is why sim does not answer r (the exit code 1): no rule handles the request,
// the routing is undecided with no route assumed, or another route than r.Route handles it.
func (r SimulateRequest) Unanswered(sim *Simulation) error {
	what := strings.TrimSpace(r.Request.Method + " " + r.Request.URL)
	switch {
	case sim.Failure != "":
		return fmt.Errorf("%s: %s", what, sim.Failure)
	case sim.Undecided != "" && sim.Assumed == nil:
		return fmt.Errorf("%s: %s; name the route you expect with --route", what, sim.Undecided)
	case r.Expected != nil && sim.Undecided == "" && sim.Rule != nil && topology.FromAPI(*sim.Rule).Object() != *r.Expected:
		return fmt.Errorf("%s: reaches %s, not %s (--route)", what, topology.FromAPI(*sim.Rule).Object(), *r.Expected)
	}
	return nil
}
