package cli

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/sink/printer"
)

func newDescribe(s Streams) *cobra.Command { return newDescribeScoped(s, true) }

// newDescribeScoped is describe; scoped false runs the complete engine, for tests.
func newDescribeScoped(s Streams, scoped bool) *cobra.Command {
	orig := s
	s, out := watchable(s)
	var f sourceFlags
	var v viewFlag
	var sel selectorFlags
	c := &cobra.Command{
		Use:   "describe (KIND/NAME... | KIND NAME... | KIND [-l SELECTOR])",
		Short: "Show the policies affecting an object and the effective policy in force, field by field",
		Long: `Describes an object (gateway, httproute, service, namespace, gatewayclass;
KIND/NAME#SECTION for a listener, rule or named port) in namespace -n:

  - the policies affecting it: attached to it, inherited from above
    (Namespace, GatewayClass, Gateway, listener...), or acting below it;
  - per policy kind, in every context path, the effective spec, and for
    each field the policy that set it and the ones it beat.

When the object is not an effective target of a kind (an HTTPRoute for a
kind whose effective targets are Services), the targets below it are
shown, in the contexts that pass through it.

KIND may also be a policy kind (retrypolicy/NAME): then the policy is
described, with its status and every target it reaches.

As with kubectl describe: KIND NAME is KIND/NAME; several objects are
KIND NAME NAME... or KIND/NAME KIND/NAME..., described one after another;
KIND alone describes every object of the kind in the namespace, -l and
--field-selector choose among them, and -A looks in every namespace; KIND
is a name, a short name (gw, svc) or resource.group
(httproutes.gateway.networking.k8s.io).

Reading a cluster, a policy kind you cannot list is answered from the
EffectivePolicy records the policy controller publishes; with no record
reaching the object, describe says it cannot tell rather than that no
policy affects it, and --fail-incomplete then exits 1.`,
		Example: `  strata describe httproute/baker -n baker -f examples/parable/
  strata describe httproute baker -n baker -f examples/parable/
  strata describe service baker batter -n baker -f examples/parable/
  strata describe httproutes.gateway.networking.k8s.io/baker -A -f examples/parable/
  strata describe service -n frosting --field-selector metadata.name=tint -f examples/parable/
  strata describe service/b2 -f examples/gep-713/example-3 -o yaml`,
		Args: arity(1, math.MaxInt),
		RunE: func(c *cobra.Command, args []string) error {
			if err := v.check(); err != nil {
				return err
			}
			if watch, _ := c.Flags().GetBool("watch"); watch && v.failIncomplete {
				return errors.New("--fail-incomplete sets the exit code of one answer, and --watch prints answers until stopped: give one or the other")
			}
			ns := namespaceOf(c, &f)
			if len(args) > 2 || len(args) == 2 && strings.Contains(args[1], "/") {
				named, err := subjectArgs(args)
				if err != nil {
					return err
				}
				if sel.given() {
					return fmt.Errorf("%s: name objects or choose them with -l or --field-selector, not both", strings.Join(args, " "))
				}
				return describeNamed(s, &f, &v, named, ns, scoped)
			}
			if len(args) == 1 && !strings.Contains(args[0], "/") || sel.given() || f.allNamespaces {
				kind, name, _ := strings.Cut(strings.Join(args, "/"), "/")
				return describeMany(s, &f, &v, &sel, kind, name, ns, scoped)
			}
			arg, err := subjectArg(args)
			if err != nil {
				return err
			}
			return describe(s, &f, &v, arg, ns, scoped)
		},
	}
	f.bind(c)
	v.bind(c)
	v.bindNarrow(c)
	v.bindFailIncomplete(c)
	sel.bind(c)
	c.ValidArgsFunction = completeSubjects(&f)
	f.completeFlag(c, "kind", completePolicyKinds)
	f.completeFlag(c, "field", completeField)
	withWatch(c, orig, out, &f)
	return c
}

// describeMany describes the objects of a kind the command line chose, as kubectl describe does.
func describeMany(s Streams, f *sourceFlags, v *viewFlag, sf *selectorFlags, kind, name, ns string, scoped bool) error {
	sel, err := query.ParseSelector(sf.label, sf.field)
	if err != nil {
		return err
	}
	if name != "" {
		if err := query.CheckSubject(kind + "/" + name); err != nil {
			return err
		}
	}
	var scope func(*engine.Result) []topology.NodeID
	switch {
	case !scoped:
	case name != "" && f.allNamespaces && sel.Empty():
		scope = everywhereScope(f, kind, name)
	default:
		scope = kindScope(f, kind, name, ns, sel)
	}
	f.answersFromRecords = true
	res, err := f.loadScoped(s, scope)
	if err != nil {
		return err
	}
	kind = f.kindAlias(kind)
	k, err := query.ResolveKind(res, kind)
	if err != nil && name == "" {
		return fmt.Errorf("%w; to describe one object, give KIND/NAME or KIND NAME", err)
	} else if err != nil {
		return err
	}
	var subjects []query.Subject
	if name != "" && f.allNamespaces {
		if subjects, err = everywhere(f, res, k, kind+"/"+name); err != nil {
			return err
		}
	} else {
		subjects = query.Subjects(res, k, name, ns, f.allNamespaces, sel)
	}
	if len(subjects) == 0 {
		if name != "" && sel.Empty() && f.allNamespaces {
			return query.NotFoundAnywhere(res, k, name)
		}
		if name != "" && sel.Empty() {
			_, err := resolve(f, res, kind+"/"+name, ns)
			if err != nil {
				return err
			}
		}
		where := "in " + ns + " namespace"
		if f.allNamespaces {
			where = "in any namespace"
		}
		_, err := fmt.Fprintf(s.Err, "No resources found %s.\n", where)
		return err
	}
	docs, err := descriptions(f, v, res, subjects)
	if err != nil {
		return err
	}
	return printDescriptions(s, v, docs, name != "")
}

// describeNamed describes the objects and policies args name: kubectl describe TYPE NAME...
func describeNamed(s Streams, f *sourceFlags, v *viewFlag, args []string, ns string, scoped bool) error {
	for _, a := range args {
		if err := query.CheckSubject(a); err != nil {
			return err
		}
	}
	f.answersFromRecords = true
	res, err := f.loadScopedIf(s, scoped, namedScope(f, args, ns))
	if err != nil {
		return err
	}
	var subjects []query.Subject
	for _, a := range args {
		if !f.allNamespaces {
			subj, err := resolve(f, res, a, ns)
			if err != nil {
				return err
			}
			subjects = append(subjects, subj)
			continue
		}
		kind, name, _ := strings.Cut(f.subjectAlias(a), "/")
		k, err := query.ResolveKind(res, kind)
		if err != nil {
			return err
		}
		in, err := everywhere(f, res, k, a)
		if err != nil {
			return err
		}
		if len(in) == 0 {
			return query.NotFoundAnywhere(res, k, name)
		}
		subjects = append(subjects, in...)
	}
	docs, err := descriptions(f, v, res, subjects)
	if err != nil {
		return err
	}
	return printDescriptions(s, v, docs, false)
}

// everywhere resolves arg in every namespace that holds an object or policy of that name (-A).
func everywhere(f *sourceFlags, res *engine.Result, k query.KindName, arg string) ([]query.Subject, error) {
	_, name, _ := strings.Cut(arg, "/")
	object, _, _ := strings.Cut(name, "#")
	var out []query.Subject
	for _, n := range query.Namespaces(res, k, object) {
		subj, err := resolve(f, res, arg, n)
		if err != nil {
			return nil, err
		}
		out = append(out, subj)
	}
	return out, nil
}

// namedScope is describeNamed's scope: the union of each argument's, nil when one needs the complete run.
func namedScope(f *sourceFlags, args []string, ns string) func(*engine.Result) []topology.NodeID {
	return func(res *engine.Result) []topology.NodeID {
		var ids []topology.NodeID
		for _, a := range args {
			one := subjectScope(f, a, ns)
			if f.allNamespaces {
				kind, name, _ := strings.Cut(a, "/")
				one = everywhereScope(f, kind, name)
			}
			sc := one(res)
			if sc == nil {
				return nil // one of them needs the complete run
			}
			ids = append(ids, sc...)
		}
		return ids
	}
}

// descriptions describes each subject, narrowed by --kind and --field.
func descriptions(f *sourceFlags, v *viewFlag, res *engine.Result, subjects []query.Subject) ([]any, error) {
	docs := make([]any, 0, len(subjects))
	var missing *query.FieldNotSetError // --field, set on none of the objects
	var missed []string
	var unseen *query.Unseen // of the first object that has it, narrowed
	found := false
	describe, describePolicy := query.Describer(res), query.PolicyDescriber(res)
	for _, subj := range subjects {
		if subj.Policy != nil {
			docs = append(docs, describePolicy(subj.Policy))
			continue
		}
		d := describe(subj.Node)
		if f.published != nil {
			f.published.Describe(d, res, subj.Node)
		}
		d.Unseen = f.seen.Unseen(res, subj.Node)
		d, miss, err := v.narrow(f, res, d)
		if err != nil {
			return nil, err
		}
		if miss != nil {
			if missing == nil {
				missing = miss
			} else {
				missing.Fields = slices.Compact(slices.Sorted(slices.Values(append(missing.Fields, miss.Fields...))))
			}
			missed = append(missed, miss.Object)
		}
		found = found || len(d.Effective) > 0
		if unseen == nil {
			unseen = d.Unseen
		}
		docs = append(docs, d)
	}
	if missing != nil && !found {
		switch {
		case len(missed) > 3:
			missing.Object = fmt.Sprintf("any of %s and %d more", strings.Join(missed[:3], ", "), len(missed)-3)
		case len(missed) > 1:
			missing.Object = "any of " + strings.Join(missed, ", ")
		}
		return nil, query.Incomplete(missing, unseen)
	}
	return docs, nil
}

// printDescriptions prints descriptions one after another, or as a v1 List, or one alone when named;
// then --fail-incomplete's error.
func printDescriptions(s Streams, v *viewFlag, docs []any, named bool) error {
	if err := writeDescriptions(s, v, docs, named); err != nil {
		return err
	}
	return v.incomplete(docs...)
}

func writeDescriptions(s Streams, v *viewFlag, docs []any, named bool) error {
	switch {
	case named && len(docs) == 1:
		return v.print(s, docs[0]) // KIND/NAME -A: the one object, as without -A
	case v.format != "":
		return v.print(s, printer.List(docs))
	}
	bw := bufio.NewWriterSize(s.Out, 64<<10)
	opts := v.human(s)
	for i, d := range docs {
		if i > 0 {
			if err := bw.WriteByte('\n'); err != nil {
				return err
			}
		}
		if err := printer.PrintHuman(bw, d, opts); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// describe answers `strata describe ARG` in namespace ns.
func describe(s Streams, f *sourceFlags, v *viewFlag, arg, ns string, scoped bool) error {
	f.answersFromRecords = true
	res, err := f.loadScopedIf(s, scoped, subjectScope(f, arg, ns))
	if err != nil {
		return err
	}
	subj, err := resolve(f, res, arg, ns)
	if err != nil {
		return err
	}
	docs, err := descriptions(f, v, res, []query.Subject{subj})
	if err != nil {
		return err
	}
	return printDescriptions(s, v, docs, true)
}

// kindScope is the scope of `describe KIND [NAME]`; nil for a policy kind.
func kindScope(f *sourceFlags, kind, name, ns string, sel query.Selector) func(*engine.Result) []topology.NodeID {
	return func(res *engine.Result) []topology.NodeID {
		k, err := query.ResolveKind(res, f.kindAlias(kind))
		if err != nil {
			return query.NoTargets(res)
		}
		if k.Policy != nil {
			return nil
		}
		var nodes []topology.NodeID
		for _, subj := range query.Subjects(res, k, name, ns, f.allNamespaces, sel) {
			nodes = append(nodes, subj.Node)
		}
		if len(nodes) == 0 {
			return query.NoTargets(res)
		}
		return query.ScopeOfAll(res, nodes)
	}
}

// everywhereScope is subjectScope for KIND/NAME -A, over every namespace.
func everywhereScope(f *sourceFlags, kind, name string) func(*engine.Result) []topology.NodeID {
	return func(res *engine.Result) []topology.NodeID {
		kind := f.kindAlias(kind)
		k, err := query.ResolveKind(res, kind)
		if err != nil {
			return query.NoTargets(res)
		}
		if k.Policy != nil {
			return nil
		}
		object, _, _ := strings.Cut(name, "#")
		in := query.Namespaces(res, k, object)
		if len(in) == 0 {
			return query.NoTargets(res)
		}
		var ids []topology.NodeID
		for _, ns := range in {
			subj, err := query.Resolve(res, kind+"/"+name, ns)
			if err != nil {
				return query.NoTargets(res)
			}
			if subj.Policy != nil {
				return nil
			}
			sc := query.Scope(res, subj.Node)
			if len(sc) == 0 {
				return nil
			}
			ids = append(ids, sc...)
		}
		return ids
	}
}

// subjectScope is the engine.RunScoped scope of a question about KIND/NAME (query.Scope).
func subjectScope(f *sourceFlags, arg, ns string) func(*engine.Result) []topology.NodeID {
	return func(res *engine.Result) []topology.NodeID {
		subj, err := query.Resolve(res, f.subjectAlias(arg), ns)
		if err != nil {
			return query.NoTargets(res)
		}
		if subj.Policy != nil {
			return nil
		}
		return query.Scope(res, subj.Node)
	}
}
