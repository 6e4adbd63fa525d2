package query

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// GetRequest is `strata get`'s question: the policies of every policy kind
// or of one, by name or chosen by selector, in a namespace or all of them
// (GEP-713: "How many things does this Policy affect?", per policy).
type GetRequest struct {
	Args          []string // as typed, for errors
	Kind          string   // the policy kind as typed; "" for every kind
	Names         []string // the policies named; none for every policy
	Namespace     string
	AllNamespaces bool
	Select        Selector
	// KindAlias, when set, turns a kind's name as typed into one
	// ResolvePolicyKind knows (a CRD's short name): the source knows
	// those only once it is read.
	KindAlias func(string) string
	// Readable, when set, is an error for a kind the source could not read.
	Readable func(schema.GroupKind) error
}

// NewGetRequest reads get's arguments as kubectl get reads its own:
// policies [KIND | KIND/NAME], KIND [NAME...] and KIND/NAME. Names and a
// selector together are refused, as kubectl refuses them.
func NewGetRequest(args []string, sel Selector) (GetRequest, error) {
	r := GetRequest{Args: args, Select: sel}
	if len(args) == 0 {
		return r, fmt.Errorf("get: want policies or a policy kind")
	}
	var err error
	if r.Kind, r.Names, err = getArgs(args); err != nil {
		return r, err
	}
	if len(r.Names) > 0 && !sel.Empty() {
		return r, fmt.Errorf("%s: name policies or choose them with -l or --field-selector, not both", r.said())
	}
	return r, nil
}

// IsPolicies reports whether get's first argument is the word "policies"
// or a short form: then get prints the PolicyList, not the objects as
// kubectl get TYPE does.
func IsPolicies(arg string) bool {
	switch strings.ToLower(arg) {
	case "policies", "policy", "pol":
		return true
	}
	return false
}

// getArgs reads get's arguments: policies [KIND | KIND/NAME], KIND [NAME...] and KIND/NAME.
func getArgs(args []string) (kind string, names []string, err error) {
	if IsPolicies(args[0]) {
		if len(args) == 1 {
			return "", nil, nil
		}
		kind, name, named := strings.Cut(args[1], "/")
		if kind == "" {
			return "", nil, fmt.Errorf("get policies %q: want a policy kind, KIND or KIND/NAME", args[1])
		}
		if !named {
			return kind, nil, nil
		}
		if err := CheckSubject(args[1]); err != nil {
			return "", nil, fmt.Errorf("get policies %w", err)
		}
		return kind, []string{name}, nil
	}
	kind, name, named := strings.Cut(args[0], "/")
	if kind == "" {
		return "", nil, fmt.Errorf("get %q: want policies or a policy kind", args[0])
	}
	if gk, ok := HierarchyKind(kind); ok {
		return "", nil, fmt.Errorf("get %s: %s is not a policy kind; only policies can be listed (strata get policies); use kubectl get for other kinds", args[0], gk.Kind)
	}
	if hint := Suggest(args[0], []string{"policies"}); len(hint) > 0 {
		return "", nil, fmt.Errorf("get %s: did you mean strata get policies?", args[0])
	}
	if named {
		if len(args) > 1 {
			return "", nil, fmt.Errorf("get %s: name the policies as KIND/NAME or KIND NAME..., not both", strings.Join(args, " "))
		}
		if err := CheckSubject(args[0]); err != nil {
			return "", nil, fmt.Errorf("get %w", err)
		}
		return kind, []string{name}, nil
	}
	for i, n := range args[1:] {
		switch {
		case n == "":
			return "", nil, fmt.Errorf("get %s: name %d is empty", args[0], i+1)
		case strings.Contains(n, "/"):
			return "", nil, fmt.Errorf("get %s: name the policies as KIND/NAME or KIND NAME..., not both", strings.Join(args, " "))
		}
	}
	return kind, slices.Clone(args[1:]), nil
}

func (r GetRequest) said() string { return "get " + strings.Join(r.Args, " ") }

func (r GetRequest) alias(name string) string {
	if r.KindAlias != nil {
		return r.KindAlias(name)
	}
	return name
}

func (r GetRequest) readable(gk schema.GroupKind) error {
	if r.Readable != nil {
		return r.Readable(gk)
	}
	return nil
}

func (r GetRequest) filter() Filter {
	return Filter{Namespace: r.Namespace, AllNamespaces: r.AllNamespaces, Select: r.Select, Names: r.Names}
}

// Scope is the part of the world the answer reads (StatusScope of the
// policies kept), for a scoped run; nil when it reads every namespace.
func (r GetRequest) Scope() func(*engine.Result) []topology.NodeID {
	if r.AllNamespaces && r.Select.Empty() {
		return nil
	}
	return func(res *engine.Result) []topology.NodeID {
		filter := r.filter()
		if r.Kind != "" {
			k, err := ResolveKind(res, r.alias(r.Kind))
			if err != nil || k.Policy == nil {
				return nil // the complete run gives the error
			}
			filter.Kind = k.Policy
		}
		return StatusScope(res, filter.Kept(res))
	}
}

// GetResult is get's answer: the policies listed and, for a kind named, the
// kind (Only), known from the engine or from the published records alone.
type GetResult struct {
	List *PolicyList
	Only *schema.GroupKind
}

// Get answers r on res, with the policies of the kinds only the
// published records tell of (p, which may be nil).
func Get(res *engine.Result, r GetRequest, p *Published) (*GetResult, error) {
	filter := r.filter()
	got := &GetResult{}
	var k KindName
	recorded := false // a kind only the records know
	if r.Kind != "" {
		var err error
		k.Policy, err = ResolvePolicyKind(res, r.alias(r.Kind))
		if gk, ok := p.KindNamed(r.Kind); err != nil && ok {
			got.Only, recorded = &gk, true
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", r.said(), err)
		} else if err := r.readable(k.Policy.Key()); err != nil {
			return nil, err
		} else {
			gk := k.Policy.Key()
			filter.Kind, got.Only = k.Policy, &gk
		}
	}
	if recorded {
		got.List = &PolicyList{TypeMeta: TypeMeta{APIVersion: APIVersion, Kind: KindPolicyList}, Items: []PolicySummary{}}
	} else {
		got.List = Policies(res, filter)
	}
	if p != nil {
		p.Policies(got.List, res, r.Namespace, r.AllNamespaces, got.Only)
		if len(r.Names) > 0 {
			got.List.Items = slices.DeleteFunc(got.List.Items, func(s PolicySummary) bool { return !slices.Contains(r.Names, s.Name) })
		}
	}
	for _, name := range r.Names {
		if slices.ContainsFunc(got.List.Items, func(s PolicySummary) bool { return s.Name == name }) {
			continue
		}
		switch {
		case k.Policy == nil:
			return nil, fmt.Errorf("%s %s not found", got.Only.Kind, name)
		case r.AllNamespaces:
			return nil, NotFoundAnywhere(res, k, name)
		}
		_, err := Resolve(res, strings.ToLower(k.Policy.Kind)+"."+k.Policy.Group+"/"+name, r.Namespace)
		return nil, err
	}
	return got, nil
}
