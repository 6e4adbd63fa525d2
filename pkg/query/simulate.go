package query

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/query/routing"
)

// KindSimulation is the kind of a Simulation document.
const KindSimulation = "Simulation"

// Simulation answers GEP-713's "What happens when a network request X
// comes in?" ("The discoverability problem") for one concrete request, or
// TLS, TCP or UDP connection: the listener, route rule and backends
// Gateway API's matching rules choose, with the reason for every one
// passed over, what the rule's filters do to the request, then the
// effective policy of every kind along that one context path, field by
// field, with the policy that set each field and the ones it beat.
type Simulation struct {
	TypeMeta `json:",inline"`
	Request  routing.Request `json:"request"`
	// Steps are the listeners, routes and matches considered, in order:
	// the chosen ones, the ones outranked (and by what), the ones that do
	// not match (and why).
	Steps []routing.Step `json:"steps"`
	// Failure says why no rule handles the request; the fields below
	// are then empty.
	Failure string `json:"failure,omitempty"`
	// Listener and Rule chosen; Match is the index of the winning match
	// in the rule, Condition that match as written.
	Listener  *Ref   `json:"listener,omitempty"`
	Rule      *Ref   `json:"rule,omitempty"`
	Match     *int   `json:"match,omitempty"`
	Condition string `json:"condition,omitempty"`
	// Hostname is the route (or listener) hostname that matched.
	Hostname string `json:"hostname,omitempty"`
	// Outcome is what the rule's filters do to the request, in order:
	// the request the backends receive, or the answer the Gateway gives
	// itself (a redirect), the mirrors and the changes to the response.
	routing.Outcome `json:",inline"`
	// Backends of the rule, with their weights (and what their own
	// filters do).
	Backends []routing.Backend `json:"backends,omitempty"`
	// Path is the request's context path, least specific first: the
	// Namespaces of the objects along it, then the GatewayClass, the
	// Gateway, the listener, the route and its rule.
	Path []Ref `json:"path,omitempty"`
	// Effective holds, per policy kind (sorted by group/kind), the
	// effective policy in force on the nodes the request passes through
	// (from the Gateway down to its backends), in the contexts of this
	// path only.
	Effective []KindEffect `json:"effective"`

	// Undecided says why the routing decision cannot be made: the kinds
	// it needs (Unreadable) could not be read in every namespace.
	Undecided  string   `json:"undecided,omitempty"`
	Unreadable []string `json:"unreadable,omitempty"`
	// Assumed is the route the user expects the request to reach
	// (--route), when the routing decision cannot be made: Steps, Rule,
	// Match and Backends are then its own, its rules' matches compared
	// with each other only, and Effective holds the contexts of its
	// published EffectivePolicy records (every listener it is attached
	// to, or those of --gateway), for the rule chosen.
	Assumed *Ref `json:"assumed,omitempty"`
	// Withheld are the policy kinds whose records say only that they
	// affect an object on the way, and how many policies (PolicyKind
	// visibility Kind).
	Withheld []Withheld `json:"withheld,omitempty"`
}

// Withheld is a policy kind whose published record withholds its
// policies' names and settings: only that they affect the target.
type Withheld struct {
	GroupKind `json:",inline"`
	Target    Ref   `json:"target"`
	Policies  int32 `json:"policies"`
}

// Simulate follows a request through the world of res (through the
// Gateway named "namespace/name", when gateway is not empty) and gathers
// the effective policies along its path.
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

	// The contexts that are the request's: every node of the context
	// path is on the request's way (Namespaces aside: the engine puts
	// those of the objects along a path above it).
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

// NoSuchObject is the error for a flag (simulate's --gateway, --route)
// whose value names, as [KIND/]NAMESPACE/NAME, an object ref that res
// does not hold, with the hints every command gives: the namespaces
// holding an object of that kind and name, and the objects of the kind
// whose name is close to the one typed ("did you mean"): in its
// namespace, as describe suggests them, else whose NAMESPACE/NAME is.
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
	// Names are compared alone, so that the namespace does not widen the
	// distance a typo may be at; NAMESPACE/NAME when none is close and
	// no other namespace holds the name.
	close := Suggest(ref.Name, here)
	for i, n := range close {
		close[i] = ref.Namespace + "/" + n
	}
	if len(close) == 0 && len(in) == 0 {
		close = Suggest(key, all)
	}
	return fmt.Errorf("%s %s: no such %s%s%s", flag, value, ref.Kind, hint, didYouMean(close))
}

// SimulationScope is the engine.RunScoped scope of a simulation: the
// nodes the request passes through, whose effective policies Simulate
// reads; an empty list when the request reaches no rule (nothing to
// compute), nil when routing fails (the complete run then reports it).
func SimulationScope(req routing.Request, gateway string) func(*engine.Result) []topology.NodeID {
	return func(res *engine.Result) []topology.NodeID {
		tr, err := routing.Route(res.Graph, req, gateway)
		if err != nil {
			return nil
		}
		if tr.Failure != "" {
			return []topology.NodeID{}
		}
		return tr.Nodes(res.Graph)
	}
}
