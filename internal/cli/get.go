package cli

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/outcome"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/sink/printer"
	sinkstatus "github.com/strata-dev/strata/pkg/sink/status"
)

func newGet(s Streams) *cobra.Command {
	orig := s
	s, out := watchable(s)
	var f sourceFlags
	l := newListFlags()
	c := &cobra.Command{
		Use:   "get (policies [KIND | KIND/NAME] | KIND [NAME...] | KIND/NAME)",
		Short: "List the policies of every policy kind, with their targets, status and how much they affect",
		Long: `Lists every policy object of every declared policy kind (or of one, KIND;
or the policies of kind KIND named NAME, KIND/NAME, as kubectl get TYPE/NAME):
its targets as written, its class, its status rolled up over its ancestors
(Accepted, then Enforced, PartiallyEnforced or Overridden), and AFFECTS:
the number of effective targets and contexts in which it sets a field in
force (GEP-713: "How many things does this Policy affect?").

As kubectl get TYPE does, get KIND, get KIND NAME... and get KIND/NAME
list the policies of policy kind KIND (get policies KIND, get policies
KIND/NAME, for one name or several); KIND is any name describe takes for
it (retrypolicies, retrypolicy.policies.cupcakes.example, a CRD's short
name). Names and -l or --field-selector together are refused, as kubectl
refuses them.

The namespace is -n; -A lists all namespaces; reading files without -n
lists every namespace of the files. Cluster-scoped policies are always
listed. -l and --field-selector choose policies as kubectl does.

The output flags are kubectl get's: -o wide adds the kind's group, whether
Strata manages it and the creation time; --no-headers, --show-labels, -L
and --sort-by act on the table; -o name, jsonpath, go-template and
custom-columns print the policy objects themselves (a v1 List), with the
status.ancestors Strata would write, as strata status prints them; -o
yaml and json print the PolicyList (docs/cli.md). kubectl's forms (get
KIND, get KIND NAME..., get KIND/NAME) print the objects for -o yaml and
json too, as kubectl get TYPE -o yaml does, and a policy named alone as
itself, not in a List, in every object format.`,
		Example: `  strata get policies -A -f examples/parable/
  strata get policies retrypolicy -n baker -f examples/parable/ -o json
  strata get policies retrypolicy/baker-retries -n baker -f examples/parable/
  strata get retrypolicies -A -f examples/parable/
  strata get retrypolicy/icing-retries -n frosting -f examples/parable/ -o yaml
  strata get policies -A -f examples/parable/ -o wide --sort-by .metadata.name
  strata get policies -A -f examples/parable/ --field-selector metadata.namespace=frosting -o name
  strata get policies -A -f examples/parable/ -o custom-columns=NAME:.metadata.name,TARGET:.spec.targetRefs[0].name`,
		Args: arity(1, math.MaxInt),
		RunE: func(c *cobra.Command, args []string) error {
			if query.IsPolicies(args[0]) && len(args) > 2 {
				return wrongArgs(c, args, 2)
			}
			sel, err := l.check()
			if err != nil {
				return err
			}
			req, err := query.NewGetRequest(args, sel)
			if err != nil {
				return err
			}
			f.answersFromRecords = true
			req.Namespace, req.AllNamespaces = f.namespaceScope()
			req.KindAlias, req.Readable = f.kindAlias, f.readable
			res, err := f.loadScoped(s, req.Scope())
			if err != nil {
				return err
			}
			got, err := query.Get(res, req, f.published)
			if err != nil {
				return err
			}
			pl := got.List
			// The status Strata would write is made only for a format that may read it.
			policies, err := listedPolicies(res, pl, !(l.human() || l.format() == "name") || l.sorted())
			if err != nil {
				return err
			}
			if !sel.Empty() && f.published != nil {
				// The records' policies are chosen by the labels of the objects read.
				items := []query.PolicySummary{}
				var kept []listedPolicy
				for i, p := range pl.Items {
					if u := policies[i].read; sel.Matches(u.GetLabels(), p.Namespace, p.Name) {
						items, kept = append(items, p), append(kept, policies[i])
					}
				}
				pl.Items, policies = items, kept
			}
			kubectlForm := !query.IsPolicies(args[0])
			return printPolicies(s, l, pl, policies, kubectlForm, kubectlForm && len(req.Names) == 1)
		},
	}
	f.bind(c)
	l.bind(c)
	c.ValidArgsFunction = completeGet(&f)
	withWatch(c, orig, out, &f)
	return c
}

// listedPolicy is one policy get lists: as read and, when needed, with Strata's status.
type listedPolicy struct {
	read     *unstructured.Unstructured
	status   *sinkstatus.PolicyObject // nil: as read
	recorded bool                     // recorded: known from the published records only; read is a stub.
}

// object is the policy object printed: with Strata's status, or as read.
func (p listedPolicy) object() runtime.Object {
	if p.status != nil {
		return p.status.Object()
	}
	return p.read
}

// item is object for the List printers, without making its map.
func (p listedPolicy) item() any {
	if p.status != nil {
		return p.status
	}
	return p.read.Object
}

// listedPolicies are the policies of l's items, in its order.
func listedPolicies(res *engine.Result, l *query.PolicyList, status bool) ([]listedPolicy, error) {
	byRef := make(map[query.PolicyRef]*policykind.Policy, len(l.Items))
	for _, p := range l.Items {
		byRef[p.PolicyRef] = nil
	}
	var ps []*policykind.Policy
	for _, p := range res.Policies {
		ref := query.PolicyRefOf(p)
		if _, listed := byRef[ref]; listed && p.Object != nil {
			byRef[ref] = p
			ps = append(ps, p)
		}
	}
	var statuses map[*policykind.Policy]*outcome.PolicyStatus
	var now metav1.Time
	if status && len(ps) > 0 {
		var err error
		if statuses, err = query.Statuses(res, ps); err != nil {
			return nil, err
		}
		now = metav1.NewTime(newest(res))
	}
	out := make([]listedPolicy, len(l.Items))
	for i, item := range l.Items {
		p := byRef[item.PolicyRef]
		if p == nil {
			u := &unstructured.Unstructured{}
			u.SetAPIVersion(schema.GroupVersion{Group: item.Group}.String())
			u.SetKind(item.Kind)
			u.SetNamespace(item.Namespace)
			u.SetName(item.Name)
			out[i].read, out[i].recorded = u, true
			continue
		}
		out[i].read = p.Object
		if st := statuses[p]; st != nil {
			out[i].status = sinkstatus.ObjectOf(*st, now)
		}
	}
	return out, nil
}

// printPolicies prints a PolicyList as listFlags ask (see listFlags): policies[i] is l.Items[i]'s.
func printPolicies(s Streams, lf *listFlags, l *query.PolicyList, policies []listedPolicy, asObjects, one bool) error {
	if lf.sorted() {
		order, err := lf.order(objectsOf(policies))
		if err != nil {
			return err
		}
		l.Items, policies = reorder(l.Items, order), reorder(policies, order)
	}
	if lf.document() && asObjects {
		// The records hold a policy's effect, not the policy: there is no object to print.
		for _, p := range policies {
			if p.recorded {
				return fmt.Errorf("%s %s: you cannot read %s objects, only their published effective policies: strata get policies %s -o %s prints what those say", p.read.GetKind(), query.PolicyRef{Namespace: p.read.GetNamespace(), Name: p.read.GetName()}.ID(), p.read.GetKind(), strings.ToLower(p.read.GetKind()), lf.format())
			}
		}
	}
	switch {
	case lf.human() && lf.plain() && colorful(s.Out):
		return (&viewFlag{}).print(s, l)
	case lf.human():
		if len(l.Items) == 0 {
			_, err := io.WriteString(s.Out, "No policies found.\n")
			return err
		}
		objects := make([]runtime.Object, len(policies))
		for i, p := range policies {
			objects[i] = p.read
		}
		return printWith(s, func(w io.Writer) error {
			return printer.PrintTable(w, printer.PolicyTable(l, objects), lf.tableOptions())
		})
	case lf.document() && !asObjects:
		return (&viewFlag{format: lf.format()}).print(s, l)
	case lf.document() && one && len(policies) == 1:
		u, err := toUnstructured(policies[0].object())
		if err != nil {
			return err
		}
		return (&viewFlag{format: lf.format()}).print(s, u.Object)
	case lf.document():
		return printEach(s, len(policies), func(i int) any { return policies[i].item() }, lf.format())
	case one && len(policies) == 1:
		return lf.printObject(s, policies[0].object())
	}
	return lf.printObjects(s, objectsOf(policies))
}

// objectsOf are the objects of policies, as printed (listedPolicy.object).
func objectsOf(policies []listedPolicy) []runtime.Object {
	out := make([]runtime.Object, len(policies))
	for i, p := range policies {
		out[i] = p.object()
	}
	return out
}
