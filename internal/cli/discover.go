package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/internal/spool"
	"github.com/strata-dev/strata/pkg/blueprint"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/outcome"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/sink/printer"
	sinkstatus "github.com/strata-dev/strata/pkg/sink/status"
	"github.com/strata-dev/strata/pkg/sink/web"
	"github.com/strata-dev/strata/pkg/source/files"
)

// The discoverability commands (GEP-713 "The discoverability problem"):
// describe, explain, get policies, impact and graph. Each reads objects
// through sourceFlags, so each works on files and on whatever source
// sourceFlags offers; the questions are answered by package discover and
// printed by package printer.

// viewFlag is -o for the discoverability commands: people by default,
// yaml or json for programs (schemas in docs/cli.md).
type viewFlag struct {
	format string
	// full lists every context of a description (describe --full); kinds
	// and field narrow it (--kind, --field).
	full  bool
	kinds []string
	field string
	// failIncomplete is describe's --fail-incomplete: an answer that may
	// leave policies out (query.Unseen) is printed, then an error.
	failIncomplete bool
}

// bindNarrow adds describe's --full, --kind and --field.
func (v *viewFlag) bindNarrow(c *cobra.Command) {
	c.Flags().BoolVar(&v.full, "full", false, "list every context and every parent and child, however many (without it, more than 20 contexts are summarized, or grouped by effect with --kind/--field, and more than 10 parents or children counted by kind)")
	c.Flags().StringSliceVar(&v.kinds, "kind", nil, "only these policy kinds (Kind or Kind.group; repeatable)")
	c.Flags().StringVar(&v.field, "field", "", "only this field of the effective policies: a JSON pointer (/attempts) or a dotted path")
}

// narrow applies --kind and --field to a description of an object. The
// kinds are read as explain --kind reads its kind (policyKindFlag), so a
// mistyped one is an error, not an empty answer. missing is the error to
// give when the field is set in none of the object's contexts although
// others are (explain's "not set ... did you mean"): describe of one
// object gives it; of several, when it holds for every one of them.
func (v *viewFlag) narrow(f *sourceFlags, res *engine.Result, d *query.Description) (nd *query.Description, missing *query.FieldNotSetError, err error) {
	var kinds []query.GroupKind
	var names []string
	for _, name := range v.kinds {
		_, gk, err := policyKindFlag(f, res, name)
		if err != nil {
			return nil, nil, err
		}
		kinds = append(kinds, query.GroupKind{Group: gk.Group, Kind: gk.Kind})
		names = append(names, gk.Kind)
	}
	field := ""
	if v.field != "" {
		if field, err = query.FieldPointer(v.field); err != nil {
			return nil, nil, err
		}
	}
	nd = d.Only(kinds, field)
	if field != "" && len(nd.Effective) == 0 {
		if set := d.Only(kinds, "").Fields(); len(set) > 0 {
			which := "policy"
			if len(names) > 0 {
				which = strings.Join(names, " or ")
			}
			missing = &query.FieldNotSetError{Object: d.Object.String(), Field: field, Which: which, Fields: set}
		}
	}
	return nd, missing, nil
}

// policyKindFlag reads a --kind NAME (explain's, describe's) as
// ResolveKind reads a kind, and a CRD's short name: a policy kind, or one
// only the published records know (only is then nil). A kind of the
// hierarchy is an error.
func policyKindFlag(f *sourceFlags, res *engine.Result, name string) (only *policykind.Kind, gk schema.GroupKind, err error) {
	k, err := query.ResolvePolicyKind(res, f.kindAlias(name))
	if gk, ok := f.published.kindNamed(name); err != nil && ok {
		return nil, gk, nil // known from the records only
	} else if err != nil {
		return nil, schema.GroupKind{}, fmt.Errorf("--kind %q: %w", name, err)
	}
	return k, k.Key(), nil
}

// bindFailIncomplete adds describe's --fail-incomplete, for scripts that
// must not take "cannot tell" for an answer.
func (v *viewFlag) bindFailIncomplete(c *cobra.Command) {
	c.Flags().BoolVar(&v.failIncomplete, "fail-incomplete", false, "exit with 1, after printing the answer, when it may leave policies out: a policy kind you cannot list, with no published EffectivePolicy record reaching the object to answer for it")
}

// incomplete is --fail-incomplete's error for printed documents: nil
// unless the flag is given and a description among docs may leave
// policies out.
func (v *viewFlag) incomplete(docs ...any) error {
	if !v.failIncomplete {
		return nil
	}
	var first *query.Description
	more := 0
	for _, doc := range docs {
		if d, ok := doc.(*query.Description); ok && d.Unseen != nil {
			if first == nil {
				first = d
			} else {
				more++
			}
		}
	}
	if first == nil {
		return nil
	}
	object := first.Object.String()
	if more > 0 {
		object += fmt.Sprintf(" and %d more", more)
	}
	return fmt.Errorf("%w (--fail-incomplete)", &query.IncompleteError{Object: object, Unseen: first.Unseen})
}

// notSet is a --field "not set" error (describe's, explain's) where the
// reader could not see every policy kind (unseen not nil): true of the
// policies it could read, uncertain of the others, and said so.
func notSet(err error, unseen *query.Unseen) error {
	if err == nil || unseen == nil {
		return err
	}
	return &query.IncompleteError{Unseen: unseen, Err: err}
}

func (v *viewFlag) bind(c *cobra.Command) {
	c.Flags().StringVarP(&v.format, "output", "o", "", "output format: yaml or json (default: human-readable)")
	completeOutput(c, printer.YAML, printer.JSON)
}

func (v *viewFlag) check() error {
	switch v.format {
	case "", printer.YAML, printer.JSON:
		return nil
	}
	return fmt.Errorf("--output %q: want yaml or json (or nothing, for people)", v.format)
}

// print writes a discover document, buffered so that an error never leaves
// half an answer on stdout. The human format streams through a buffered
// writer instead: its only errors are the writer's own (and an unknown
// document type, before the first byte), and buffering the 154 MB that
// describe writes for a Gateway with 100,000 listeners cost a copy of
// it and more, under the memory limit (issue 11, "No cliffs").
func (v *viewFlag) print(s Streams, doc any) error {
	if v.format == "" {
		bw := bufio.NewWriterSize(s.Out, 64<<10)
		if err := printer.PrintHuman(bw, doc, v.human(s)); err != nil {
			return err
		}
		return bw.Flush()
	}
	var buf spool.Spool
	if err := printer.Print(&buf, doc, v.format); err != nil {
		return err
	}
	_, err := buf.WriteTo(s.Out)
	return err
}

// human is how the flags print a description for people.
func (v *viewFlag) human(s Streams) printer.Human {
	// A narrowed description lists its contexts, those of targets with
	// the same effect as one block when they are many: the filters are
	// how a reader asks for the contexts.
	narrowed := len(v.kinds) > 0 || v.field != ""
	return printer.Human{Color: colorful(s.Out), Full: v.full, Narrowed: narrowed}
}

// colorful reports whether w is a terminal that wants colors: never for
// pipes, files and test buffers, nor when NO_COLOR is set (no-color.org).
func colorful(w io.Writer) bool {
	if sw, ok := w.(*switchWriter); ok {
		w = sw.terminal // --watch's writer: the terminal it prints to
	}
	f, ok := w.(*os.File)
	if !ok || os.Getenv("NO_COLOR") != "" {
		return false
	}
	return term.IsTerminal(int(f.Fd()))
}

// namespaceOf is the namespace a KIND/NAME argument lives in: -n; else,
// reading a cluster, the kubeconfig context's namespace; else "default".
func namespaceOf(c *cobra.Command, f *sourceFlags) string {
	if fl := c.Flags().Lookup("namespace"); fl != nil && fl.Value.String() != "" {
		return fl.Value.String()
	}
	if ns, all := f.namespaceScope(); !all && ns != "" {
		return ns
	}
	return "default"
}

// resolve finds what KIND/NAME names. When it is not found and the source
// could not read objects of that kind (forbidden in the cluster), the
// answer is that, not "not found".
func resolve(f *sourceFlags, res *engine.Result, arg, ns string) (query.Subject, error) {
	arg = f.subjectAlias(arg)
	subj, err := query.Resolve(res, arg, ns)
	if err == nil {
		return subj, nil
	}
	kind, _, _ := strings.Cut(arg, "/")
	if k, kerr := query.ResolveKind(res, kind); kerr == nil {
		gk := k.Topology
		if k.Policy != nil {
			gk = k.Policy.Key()
		}
		if rerr := f.readable(gk); rerr != nil {
			return query.Subject{}, rerr
		}
	}
	return query.Subject{}, err
}

func newDescribe(s Streams) *cobra.Command { return newDescribeScoped(s, true) }

// newDescribeScoped is describe; scoped false makes it run the complete
// engine (see describe), for tests to compare.
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

// describeMany describes the objects of a kind the command line chose,
// as kubectl describe does: KIND alone (every object of the kind in the
// namespace), -l or --field-selector among them, or -A (KIND/NAME in
// every namespace, KIND in all of them). People get one description after
// another, programs a v1 List of them.
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
	if err := printDescriptions(s, v, docs, name != ""); err != nil {
		return err
	}
	return v.incomplete(docs...)
}

// describeNamed describes the objects and policies that args name, each
// KIND/NAME[#SECTION] (describe KIND NAME NAME..., describe KIND/NAME
// KIND/NAME...), in namespace ns, or with -A in every namespace that
// holds one, one after another: kubectl describe TYPE NAME... With
// scoped, the engine computes the union of what each answer reads
// (subjectScope). Any name not found is the error, and nothing is
// printed.
func describeNamed(s Streams, f *sourceFlags, v *viewFlag, args []string, ns string, scoped bool) error {
	for _, a := range args {
		if err := query.CheckSubject(a); err != nil {
			return err
		}
	}
	var scope func(*engine.Result) []topology.NodeID
	if scoped {
		scope = namedScope(f, args, ns)
	}
	f.answersFromRecords = true
	res, err := f.loadScoped(s, scope)
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
	if err := printDescriptions(s, v, docs, false); err != nil {
		return err
	}
	return v.incomplete(docs...)
}

// everywhere resolves KIND/NAME[#SECTION] (arg, of kind k) in every
// namespace that holds an object or policy of that name (-A): none when
// no namespace does.
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

// namedScope is describeNamed's scope: the union of each KIND/NAME's
// (subjectScope, or everywhereScope with -A), nil when one of them needs
// the complete run.
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

// descriptions describes each subject (query.Describe, or DescribePolicy
// for a policy), narrowed by --kind and --field; a --field set on none
// of the objects is the error, naming them.
func descriptions(f *sourceFlags, v *viewFlag, res *engine.Result, subjects []query.Subject) ([]any, error) {
	docs := make([]any, 0, len(subjects))
	var missing *query.FieldNotSetError // --field, set on none of the objects
	var missed []string
	var unseen *query.Unseen // of the first object that has it, narrowed
	found := false
	// The objects' descriptions are made first, with a Describer of
	// this call's own (a query belongs to one goroutine); what follows
	// reads the source's records and flags, in order.
	described := make([]*query.Description, len(subjects))
	policies := make([]*query.PolicyDescription, len(subjects))
	describers := query.PolicyDescribers(res)
	describe, describePolicy := query.Describer(res), describers()
	for i := range len(subjects) {
		if p := subjects[i].Policy; p != nil {
			policies[i] = describePolicy(p)
		} else {
			described[i] = describe(subjects[i].Node)
		}
	}
	for i, subj := range subjects {
		if subj.Policy != nil {
			docs = append(docs, policies[i])
			continue
		}
		d := described[i]
		if f.published != nil {
			f.published.describe(d, res, subj.Node)
		}
		d.Unseen = f.unseen(res, subj.Node)
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
		return nil, notSet(missing, unseen)
	}
	return docs, nil
}

// printDescriptions prints descriptions: for people one after another,
// for programs a v1 List of them, or, when one named object was asked
// for (KIND/NAME -A finding one), that description alone, as without -A.
func printDescriptions(s Streams, v *viewFlag, docs []any, named bool) error {
	switch {
	case v.format != "" && named && len(docs) == 1:
		return v.print(s, docs[0]) // KIND/NAME -A: the one object, as without -A
	case v.format != "":
		return v.print(s, printer.List(docs))
	}
	// Each description is printed on its own, a line between two.
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

// describe answers `strata describe ARG` in namespace ns. With scoped, the
// engine computes only what the answer reads (subjectScope): the same
// answer as the complete run, which scoped false gives, for tests to
// compare.
func describe(s Streams, f *sourceFlags, v *viewFlag, arg, ns string, scoped bool) error {
	var scope func(*engine.Result) []topology.NodeID
	if scoped {
		scope = subjectScope(f, arg, ns)
	}
	f.answersFromRecords = true
	res, err := f.loadScoped(s, scope)
	if err != nil {
		return err
	}
	subj, err := resolve(f, res, arg, ns)
	if err != nil {
		return err
	}
	if subj.Policy != nil {
		return v.print(s, query.DescribePolicy(res, subj.Policy))
	}
	d := query.Describe(res, subj.Node)
	if f.published != nil {
		f.published.describe(d, res, subj.Node)
	}
	d.Unseen = f.unseen(res, subj.Node)
	d, missing, err := v.narrow(f, res, d)
	if err != nil {
		return err
	}
	if missing != nil {
		return notSet(missing, d.Unseen)
	}
	if err := v.print(s, d); err != nil {
		return err
	}
	return v.incomplete(d)
}

// kindScope is the scope of `describe KIND [NAME]` in namespace ns (every
// namespace with -A), chosen by sel: the scope of the objects it
// describes (query.ScopeOfAll), found as describeMany finds them;
// nil (the complete run) for a policy kind, whose descriptions read the
// policies' status; nothing when the kind is unknown or no object is
// chosen (the error, or "No resources found", is the answer). The
// complete engine run would cost the 200 routes of one namespace of the
// performance world the whole world's time.
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

// everywhereScope is subjectScope for KIND/NAME -A: the union of the
// scopes of the object of that name in every namespace that holds one;
// nil (the complete run) when any of them would be; nothing when the
// kind, the object or its section is not found (the error is the
// answer, as in subjectScope).
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

// subjectScope is the engine.RunScoped scope of a question about the
// object or section that KIND/NAME names: its node and everything below
// (query.Scope). It is nil, asking for the complete run, when the
// argument names a policy (whose status needs every target) or a
// Namespace. When it names nothing, nothing is computed: the error, "not
// found" with its hints, is read from the names of the objects and the
// policies, which a scoped run holds complete; the complete run would
// answer a mistyped name in three times describe's time on the
// performance world.
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

func newExplain(s Streams) *cobra.Command { return newExplainScoped(s, true) }

// newExplainScoped is explain; scoped false makes it run the complete
// engine, for tests to compare.
func newExplainScoped(s Streams, scoped bool) *cobra.Command {
	var f sourceFlags
	var v viewFlag
	var field, kind string
	c := &cobra.Command{
		Use:   "explain (KIND/NAME | KIND NAME) --field PATH",
		Short: "Explain why one field of an object's effective policy has its value",
		Long: `For one field of the effective policy (a JSON pointer, /colors/light, or a
dotted path, colors.light), in every context of the object where the field
is set: the candidates in precedence order, least specific first (every
block of every policy in the stack, then the object's own value when the
policy kind declares targetFields), each with where it is attached, its
block and merge strategy, its value, and whether it wins.

With --kind BlueprintValues, the field is one of the merged values a
GatewayClassBlueprint renders a Gateway or HTTPRoute with (002): the
config or blueprint that set it, its level, and the ones it beat, as
strata render --values --field prints it.`,
		Example: `  strata explain service/b2 --field /colors/light -f examples/gep-713/example-3
  strata explain gateway/shop -n team-a --field /tags/exposure --kind BlueprintValues -f examples/blueprints`,
		Args: arity(1, 2),
		RunE: func(c *cobra.Command, args []string) error {
			if err := v.check(); err != nil {
				return err
			}
			arg, err := subjectArg(args)
			if err != nil {
				return err
			}
			ptr, err := query.FieldPointer(field)
			if err != nil {
				return err
			}
			ns := namespaceOf(c, &f)
			if strings.EqualFold(kind, blueprint.ValuesKind) {
				return explainValues(s, &f, v.format, arg, ns, ptr)
			}
			var scope func(*engine.Result) []topology.NodeID
			if scoped && !f.allNamespaces {
				scope = subjectScope(&f, arg, ns)
			}
			f.answersFromRecords = true
			res, err := f.loadScoped(s, scope)
			if err != nil {
				return err
			}
			subj, err := pickSubject(&f, res, arg, ns, f.allNamespaces)
			if err != nil {
				return err
			}
			if subj.Policy != nil {
				return fmt.Errorf("explain takes an object (gateway, httproute, service...), not a policy: try strata describe %s", arg)
			}
			var only *policykind.Kind
			onlyName := ""
			unseen := f.unseen(res, subj.Node)
			if kind != "" {
				var gk schema.GroupKind
				if only, gk, err = policyKindFlag(&f, res, kind); err != nil {
					return err
				}
				onlyName = gk.Kind
				unseen = unseen.Only([]query.GroupKind{{Group: gk.Group, Kind: gk.Kind}})
			}
			var x *query.Explanation
			if only != nil || onlyName == "" {
				x, err = query.Explain(res, subj.Node, ptr, only)
			}
			if f.published != nil {
				// The covered kinds' chains, from the records; the
				// engine's "not set" stands only if they have none.
				if chains := f.published.explain(res, subj.Node, ptr, onlyName); len(chains) > 0 {
					if x == nil || err != nil {
						n := res.Graph.Node(subj.Node).Ref
						x = &query.Explanation{TypeMeta: query.TypeMeta{APIVersion: query.APIVersion, Kind: query.KindExplanation},
							Object: query.Ref{Group: n.Group, Kind: n.Kind, Namespace: n.Namespace, Name: n.Name, SectionName: n.Section}, Field: ptr}
						err = nil
					}
					x.Chains = append(x.Chains, chains...)
				}
			}
			// "Not set" and "no policy reaches" are true of the kinds the
			// user could read; of the others, describe's "cannot tell".
			if err != nil {
				return notSet(err, unseen)
			}
			if x == nil {
				return notSet(fmt.Errorf("field %s is not set on %s by any %s", ptr, arg, onlyName), unseen)
			}
			return v.print(s, x)
		},
	}
	f.bind(c)
	v.bind(c)
	c.Flags().StringVar(&field, "field", "", "the field: a JSON pointer (/colors/light) or a dotted path (colors.light)")
	c.Flags().StringVar(&kind, "kind", "", "only this policy kind (when several kinds set a field of that name)")
	_ = c.MarkFlagRequired("field")
	c.ValidArgsFunction = completeObject(&f)
	f.completeFlag(c, "field", completeField)
	f.completeFlag(c, "kind", func(f *sourceFlags) cobra.CompletionFunc {
		return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			var out []string
			if res := completionLoad(f); res != nil {
				for _, k := range res.PolicyKinds() {
					out = append(out, strings.ToLower(k.Kind))
				}
			}
			// BlueprintValues only where there are blueprints: on any
			// other input, choosing it is an error.
			if blueprintsIn(f) {
				out = append(out, strings.ToLower(blueprint.ValuesKind))
			}
			return prefixed(out, toComplete), cobra.ShellCompDirectiveNoFileComp
		}
	})
	return c
}

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
			said := "get " + strings.Join(args, " ") // as typed, for errors
			if isPolicies(args[0]) && len(args) > 2 {
				return wrongArgs(c, args, 2)
			}
			// KIND, KIND/NAME or KIND NAME...: the policies of that kind
			// (and those names).
			kind, names, err := getArgs(args)
			if err != nil {
				return err
			}
			if err := l.check(); err != nil {
				return err
			}
			sel, err := l.selection()
			if err != nil {
				return err
			}
			if len(names) > 0 && !sel.Empty() {
				return fmt.Errorf("%s: name policies or choose them with -l or --field-selector, not both", said)
			}
			f.answersFromRecords = true
			ns, all := f.namespaceScope()
			// In one namespace (or with a selector), only the targets
			// the listed policies reach are computed: their status and
			// counts are the complete run's (query.StatusScope).
			var scope func(*engine.Result) []topology.NodeID
			if !all || !sel.Empty() {
				scope = func(res *engine.Result) []topology.NodeID {
					filter := query.Filter{Namespace: ns, AllNamespaces: all, Select: sel, Names: names}
					if kind != "" {
						k, err := query.ResolveKind(res, f.kindAlias(kind))
						if err != nil || k.Policy == nil {
							return nil // the complete run gives the error
						}
						filter.Kind = k.Policy
					}
					return query.StatusScope(res, filter.Kept(res))
				}
			}
			res, err := f.loadScoped(s, scope)
			if err != nil {
				return err
			}
			filter := query.Filter{Namespace: ns, AllNamespaces: all, Select: sel, Names: names}
			var only *schema.GroupKind // a kind known from the records only
			var k query.KindName
			if kind != "" {
				var pk *policykind.Kind
				pk, err = query.ResolvePolicyKind(res, f.kindAlias(kind))
				k.Policy = pk
				if gk, ok := f.published.kindNamed(kind); err != nil && ok {
					only = &gk
				} else if err != nil {
					return fmt.Errorf("%s: %w", said, err)
				} else if err := f.readable(k.Policy.Key()); err != nil {
					return err
				} else {
					filter.Kind = k.Policy
					gk := k.Policy.Key()
					only = &gk
				}
			}
			pl := &query.PolicyList{TypeMeta: query.TypeMeta{APIVersion: query.APIVersion, Kind: query.KindPolicyList}, Items: []query.PolicySummary{}}
			if only == nil || filter.Kind != nil {
				pl = query.Policies(res, filter)
			}
			if f.published != nil {
				f.published.policies(pl, res, ns, all, only)
				if len(names) > 0 {
					pl.Items = slices.DeleteFunc(pl.Items, func(p query.PolicySummary) bool { return !slices.Contains(names, p.Name) })
				}
			}
			for _, name := range names {
				if !slices.ContainsFunc(pl.Items, func(p query.PolicySummary) bool { return p.Name == name }) {
					return policyNotFound(res, k, only, name, ns, all)
				}
			}
			// The status Strata would write is made only for a format
			// that may read it: not for a table or names, unless sorted.
			policies, err := listedPolicies(res, pl, !(l.human() || l.format() == "name") || l.sorted())
			if err != nil {
				return err
			}
			if !sel.Empty() && f.published != nil {
				// The policies known from the published records only
				// have no labels: choose them by name and namespace.
				items := []query.PolicySummary{}
				var kept []listedPolicy
				for i, p := range pl.Items {
					if u := policies[i].read; sel.Matches(u.GetLabels(), p.Namespace, p.Name) {
						items, kept = append(items, p), append(kept, policies[i])
					}
				}
				pl.Items, policies = items, kept
			}
			kubectlForm := !isPolicies(args[0])
			return printPolicies(s, l, pl, policies, kubectlForm, kubectlForm && len(names) == 1)
		},
	}
	f.bind(c)
	l.bind(c)
	c.ValidArgsFunction = completeGet(&f)
	withWatch(c, orig, out, &f)
	return c
}

// isPolicies reports whether get's first argument is the word
// "policies" (or its singular or short form).
func isPolicies(arg string) bool {
	switch strings.ToLower(arg) {
	case "policies", "policy", "pol":
		return true
	}
	return false
}

// getArgs reads get's arguments: get policies [KIND | KIND/NAME], and
// kubectl's forms with a policy kind for the type, get KIND [NAME...] and
// get KIND/NAME. kind is "" for the policies of every kind. Whether KIND
// is a policy kind is known once the input is read (the kinds are
// declared there); a kind of the hierarchy is refused here.
func getArgs(args []string) (kind string, names []string, err error) {
	if isPolicies(args[0]) {
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
		if err := query.CheckSubject(args[1]); err != nil {
			return "", nil, fmt.Errorf("get policies %w", err)
		}
		return kind, []string{name}, nil
	}
	kind, name, named := strings.Cut(args[0], "/")
	if kind == "" {
		return "", nil, fmt.Errorf("get %q: want policies or a policy kind", args[0])
	}
	if gk, ok := query.HierarchyKind(kind); ok {
		return "", nil, fmt.Errorf("get %s: %s is not a policy kind; only policies can be listed (strata get policies); use kubectl get for other kinds", args[0], gk.Kind)
	}
	if hint := query.Suggest(args[0], []string{"policies"}); len(hint) > 0 {
		return "", nil, fmt.Errorf("get %s: did you mean strata get policies?", args[0])
	}
	if named {
		if len(args) > 1 {
			return "", nil, fmt.Errorf("get %s: name the policies as KIND/NAME or KIND NAME..., not both", strings.Join(args, " "))
		}
		if err := query.CheckSubject(args[0]); err != nil {
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

// policyNotFound is get policies KIND/NAME's error when no policy of
// kind k (or only, known from the published records only) is named name
// in namespace ns (any, with all): the "not found" of describe, with the
// namespaces that hold one and "did you mean".
func policyNotFound(res *engine.Result, k query.KindName, only *schema.GroupKind, name, ns string, all bool) error {
	switch {
	case k.Policy == nil:
		return fmt.Errorf("%s %s not found", only.Kind, name)
	case all:
		return query.NotFoundAnywhere(res, k, name)
	}
	_, err := query.Resolve(res, strings.ToLower(k.Policy.Kind)+"."+k.Policy.Group+"/"+name, ns)
	return err
}

// listedPolicy is one policy get lists: its object as read (for a policy
// known from the published records only, an object with its kind,
// namespace and name) and, when the output reads it, the object with the
// status.ancestors Strata would write.
type listedPolicy struct {
	read   *unstructured.Unstructured
	status *sinkstatus.PolicyObject // nil: as read
	// recorded: known from the published records only, which the reader
	// may read where the policy itself is forbidden; read is a stub.
	recorded bool
}

// object is the policy object printed: with Strata's status, as strata
// status prints it, or as read.
func (p listedPolicy) object() runtime.Object {
	if p.status != nil {
		return p.status.Object()
	}
	return p.read
}

// item is object for the List printers (printEach), which write a
// PolicyObject as it is, without making its map.
func (p listedPolicy) item() any {
	if p.status != nil {
		return p.status
	}
	return p.read.Object
}

// listedPolicies are the policies of l's items, in its order. With
// status, each policy of a kind Strata manages gets the status.ancestors
// Strata would write (sinkstatus.ObjectOf), stamped as strata status
// stamps them by default (the newest creationTimestamp of the input), so
// that -o yaml or a template reads what kubectl shows once the controller
// has written it; a policy of a kind Strata does not manage keeps its
// status as read.
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

// printPolicies prints a PolicyList as listFlags ask (see listFlags):
// policies[i] is l.Items[i]'s. For kubectl's forms (get KIND, get KIND
// NAME..., get KIND/NAME: asObjects) -o yaml and json print the policy
// objects, as kubectl get does, rather than the PolicyList; and one, the
// policy named alone, is printed as itself, not in a List, by every
// object format (kubectl's single item).
func printPolicies(s Streams, lf *listFlags, l *query.PolicyList, policies []listedPolicy, asObjects, one bool) error {
	if lf.sorted() {
		order, err := lf.order(objectsOf(policies))
		if err != nil {
			return err
		}
		l.Items, policies = reorder(l.Items, order), reorder(policies, order)
	}
	if lf.document() && asObjects {
		// The records hold a policy's effect, not the policy: there is
		// no object to print, as kubectl get would be refused it.
		for _, p := range policies {
			if p.recorded {
				return fmt.Errorf("%s %s: you cannot read %s objects, only their published effective policies: strata get policies %s -o %s prints what those say", p.read.GetKind(), policyID(p.read.GetNamespace(), p.read.GetName()), p.read.GetKind(), strings.ToLower(p.read.GetKind()), lf.format())
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
		var buf spool.Spool
		if err := printer.PrintTable(&buf, printer.PolicyTable(l, objects), lf.tableOptions()); err != nil {
			return err
		}
		_, err := buf.WriteTo(s.Out)
		return err
	case lf.document() && !asObjects:
		return (&viewFlag{format: lf.format()}).print(s, l)
	case lf.document() && one && len(policies) == 1:
		u, err := toUnstructured(policies[0].object())
		if err != nil {
			return err
		}
		return (&viewFlag{format: lf.format()}).print(s, u.Object)
	case lf.document():
		// Streamed, as strata status prints its List, in the same bytes.
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

// impactOfAdd answers `impact --add FILE`: what creating the policy in
// FILE would change (issue 18: answer for a policy that does not exist
// yet). Its namespace, when the file gives none, is ns.
func impactOfAdd(s Streams, f *sourceFlags, v *viewFlag, file, ns string, scoped bool) error {
	if err := v.check(); err != nil {
		return err
	}
	u, err := readOne(file, s.In)
	if err != nil {
		return err
	}
	if u.GetNamespace() == "" {
		u.SetNamespace(ns) // as kubectl apply -n would
	}
	var scope func(*engine.Result) []topology.NodeID
	if scoped {
		// Only the targets below the new policy's are computed.
		scope = query.ImpactScope(func(*engine.Result) *policykind.Policy { return nil }, u)
	}
	before, err := f.loadScoped(s, scope)
	if err != nil {
		return err
	}
	gvk := u.GroupVersionKind()
	k := before.KindOf(gvk.Group, gvk.Kind)
	if k == nil {
		return fmt.Errorf("%s: %s is not a policy kind of the input (strata kinds lists them)", file, gvk.GroupKind())
	}
	if u.GetCreationTimestamp().Time.IsZero() {
		// Created now: newer than every policy of the input, as a new
		// policy would be on a cluster (GEP-713 "Conflict resolution
		// rules": the older wins).
		u.SetCreationTimestamp(metav1.NewTime(time.Now().UTC().Truncate(time.Second)))
	}
	// Computed below the new policy's targets only.
	im, after, err := query.ImpactOfAdding(before, u)
	if err != nil {
		if strings.Contains(err.Error(), "exists already") {
			return fmt.Errorf("%w: use impact %s/%s --replace %s", err, strings.ToLower(k.Kind), u.GetName(), file)
		}
		return err
	}
	for _, q := range after.Policies {
		if q.Kind.Key() == k.Key() && q.Namespace == u.GetNamespace() && q.Name == u.GetName() {
			for _, w := range q.Warnings {
				fmt.Fprintf(s.Err, "warning: %s (%s %s): %s\n", file, q.Kind.Kind, q.ID(), w)
			}
		}
	}
	return v.print(s, im)
}

func newImpact(s Streams) *cobra.Command { return newImpactScoped(s, true) }

// newImpactScoped is impact; scoped false makes it run the complete
// engine before the change, for tests to compare.
func newImpactScoped(s Streams, scoped bool) *cobra.Command {
	var f sourceFlags
	var v viewFlag
	var sf selectorFlags
	var del bool
	var replace, add string
	c := &cobra.Command{
		Use:   "impact (POLICY-KIND/NAME | POLICY-KIND NAME) (--delete | --replace FILE) | impact POLICY-KIND (-l SELECTOR | --field-selector SELECTOR) --delete | impact --add FILE",
		Short: "Show what would change if a policy were deleted, replaced or added",
		Long: `Computes the effective policies twice, as they are and without the policy
(--delete), with its new version from FILE (--replace), or with a policy
that does not exist yet from FILE (--add; -f is the source of the
objects, so the changed policy takes its own flag), and lists every
effective target and context whose effective spec changes, with each
field's value and source before and after.

Only the targets the policy reaches, before or after the change, are
computed: those below the objects it (or its new version) targets. The
answer costs the targets the policy reaches, not the world. FILE holds the policy's new version (same kind, namespace and name; the
namespace may be left out); - reads it from stdin.

POLICY-KIND with -l or --field-selector chooses several policies of the
kind (in namespace -n, or every namespace with -A), as kubectl delete -l
does, and --delete answers for deleting them together: not the sum of
each one's answer, since a policy another one shadows changes nothing
alone.`,
		Example: `  strata impact retrypolicy/baker-retries -n baker --delete -f examples/parable/
  strata impact colorpolicy/p3 --replace p3-v2.yaml -f examples/gep-713/example-3
  strata impact --add new-retries.yaml -n baker -f examples/parable/
  strata impact healthcheckpolicy -n frosting --field-selector metadata.namespace=frosting --delete -f examples/parable/
  strata impact retrypolicy -l team=baker -A --delete -f deploy/`,
		Args: arity(0, 2),
		RunE: func(c *cobra.Command, args []string) error {
			if add != "" {
				if len(args) > 0 || del || replace != "" || sf.given() {
					return errors.New("--add FILE names the new policy itself: give no POLICY-KIND/NAME, --delete or --replace with it")
				}
				return impactOfAdd(s, &f, &v, add, namespaceOf(c, &f), scoped)
			}
			if sf.given() {
				if !del || replace != "" {
					return errors.New("-l and --field-selector choose policies to --delete together; --replace FILE is one policy's new version: name it (POLICY-KIND/NAME)")
				}
				return impactOfDeleting(s, &f, &v, &sf, args, namespaceOf(c, &f), scoped)
			}
			if len(args) == 0 {
				return wrongArgs(c, args, 2)
			}
			arg, err := subjectArg(args)
			if err != nil {
				return err
			}
			if del && replace != "" {
				return errors.New("say what changes: --delete, or --replace FILE with the policy's new version, not both")
			}
			if !del && replace == "" {
				return needs(c, "--delete or --replace FILE (the policy's new version)")
			}
			if err := v.check(); err != nil {
				return err
			}
			var repl *unstructured.Unstructured
			if replace != "" {
				if repl, err = readOne(replace, s.In); err != nil {
					return err
				}
			}
			f.answersFromRecords = true
			// Only the targets below the policy's old and new targets
			// are computed, before the change and after it
			// (query.ImpactScope).
			var scope func(*engine.Result) []topology.NodeID
			if scoped {
				scope = query.ImpactScope(func(res *engine.Result) *policykind.Policy {
					subj, err := pickSubject(&f, res, arg, namespaceOf(c, &f), f.allNamespaces)
					if err != nil {
						return nil
					}
					return subj.Policy
				}, repl)
			}
			before, err := f.loadScoped(s, scope)
			if err != nil {
				return err
			}
			subj, err := pickSubject(&f, before, arg, namespaceOf(c, &f), f.allNamespaces)
			if kind, name, _ := strings.Cut(arg, "/"); err != nil && name != "" {
				// A policy of a kind the user cannot read: what its
				// deletion changes, from the records.
				if gk, ok := f.published.kindNamed(kind); ok {
					if !del {
						return fmt.Errorf("impact %s --replace: you cannot read %s objects, and the published effective policies do not hold the other policies' settings to merge the new version with; --delete can be answered", arg, gk.Kind)
					}
					im, found := f.published.impactOfDelete(gk, namespaceOf(c, &f), name)
					if !found {
						return fmt.Errorf("%s %s/%s affects none of the targets whose effective policies you can read", gk.Kind, namespaceOf(c, &f), name)
					}
					return v.print(s, im)
				}
			}
			if err != nil {
				return err
			}
			p := subj.Policy
			if p == nil {
				return fmt.Errorf("impact takes a policy (POLICY-KIND/NAME), not %s", before.Graph.Node(subj.Node).Ref)
			}
			// Computed below the policy's targets only (query.ImpactOf).
			im, after, err := query.ImpactOf(before, p, repl)
			if err != nil {
				return err
			}
			if !del {
				// The new version is admitted as the files' policies are
				// (load): say what the API server would say about it.
				for _, q := range after.Policies {
					if q.Kind == p.Kind && q.Namespace == p.Namespace && q.Name == p.Name {
						for _, w := range q.Warnings {
							fmt.Fprintf(s.Err, "warning: %s (%s %s): %s\n", replace, q.Kind.Kind, q.ID(), w)
						}
					}
				}
			}
			return v.print(s, im)
		},
	}
	f.bind(c)
	v.bind(c)
	c.Flags().BoolVar(&del, "delete", false, "what if the policy were deleted")
	c.Flags().StringVar(&replace, "replace", "", "what if the policy were replaced by the one in this file (- for stdin)")
	c.Flags().StringVar(&add, "add", "", "what if the policy in this file (- for stdin), which does not exist yet, were created")
	c.Flags().StringVarP(&sf.label, "selector", "l", "", "with POLICY-KIND and --delete: the policies to delete together, by label (e.g. -l team=baker); as kubectl")
	c.Flags().StringVar(&sf.field, "field-selector", "", "with POLICY-KIND and --delete: the policies to delete together, by metadata.name and metadata.namespace; as kubectl")
	c.ValidArgsFunction = completeSubject(&f, true)
	return c
}

// impactOfDeleting answers `impact POLICY-KIND -l SELECTOR --delete`:
// what deleting together the policies of the kind the selectors choose,
// in namespace ns (every namespace with -A), would change.
func impactOfDeleting(s Streams, f *sourceFlags, v *viewFlag, sf *selectorFlags, args []string, ns string, scoped bool) error {
	if len(args) != 1 || strings.Contains(args[0], "/") {
		return errors.New("-l and --field-selector choose among the policies of a kind: give POLICY-KIND alone (strata impact retrypolicy -l team=baker --delete)")
	}
	if err := v.check(); err != nil {
		return err
	}
	sel, err := query.ParseSelector(sf.label, sf.field)
	if err != nil {
		return err
	}
	choose := func(res *engine.Result) ([]*policykind.Policy, error) {
		k, err := query.ResolveKind(res, f.kindAlias(args[0]))
		if err != nil {
			return nil, err
		}
		if k.Policy == nil {
			return nil, fmt.Errorf("impact takes a policy kind, not %s", k.Topology.Kind)
		}
		var ps []*policykind.Policy
		for _, subj := range query.Subjects(res, k, "", ns, f.allNamespaces, sel) {
			ps = append(ps, subj.Policy)
		}
		return ps, nil
	}
	var scope func(*engine.Result) []topology.NodeID
	if scoped {
		// Only the targets below the chosen policies' are computed.
		scope = query.DeletionScope(func(res *engine.Result) []*policykind.Policy {
			ps, _ := choose(res)
			return ps
		})
	}
	before, err := f.loadScoped(s, scope)
	if err != nil {
		return err
	}
	ps, err := choose(before)
	if err != nil {
		return err
	}
	if len(ps) == 0 {
		where := "in namespace " + ns
		if f.allNamespaces {
			where = "in any namespace"
		}
		return fmt.Errorf("no %s %s is chosen by the selectors: nothing to delete", args[0], where)
	}
	im, _, err := query.ImpactOfDeleting(before, ps)
	if err != nil {
		return err
	}
	return v.print(s, im)
}

// readOne reads the one object of a YAML or JSON file (or stdin), as -f
// reads files (files.Documents): numbers that are integers are int64,
// as the API server decodes them, so that the schema's integer fields
// and CEL rules see integers.
func readOne(path string, stdin io.Reader) (*unstructured.Unstructured, error) {
	docs, err := files.Documents([]string{path}, stdin)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("%s: want exactly one object, the policy's new version; found %d", path, len(docs))
	}
	return docs[0].Object, nil
}

func newGraph(s Streams) *cobra.Command { return newGraphScoped(s, true) }

// newGraphScoped is graph; scoped false makes it run the complete engine,
// for tests to compare. Scoped, a diagram runs no effective policy
// (query.NoTargets), and an svg or html drawing those below the
// policies it colours (web.Plan).
func newGraphScoped(s Streams, scoped bool) *cobra.Command {
	var f sourceFlags
	var sf selectorFlags
	var format string
	var depth int
	c := &cobra.Command{
		Use:   "graph [KIND/NAME | KIND NAME] [--depth N] [-l SELECTOR] -o dot|mermaid|svg|html",
		Short: "Draw the topology with its policies (Graphviz DOT, Mermaid, SVG or a self-contained HTML page)",
		Long: `Draws every object, section and namespace of the hierarchy, with solid
edges from parents to children, and every policy with dashed edges to the
nodes it is attached to. Namespaces are clusters holding their objects and
policies. Node identifiers follow the objects' locators, so the same input
draws the same bytes. With -n, only that namespace is drawn, with the
nodes one edge away from it (the Gateway its routes attach to).

-l and --field-selector choose the policies drawn, by their labels, name
and namespace, as kubectl does (strata graph -l team=baker: where team
baker's policies attach), in every format; the objects are drawn as
without them.

With KIND/NAME (in namespace -n; with -A, in whichever namespace holds
it), only that object's neighbourhood is drawn: the nodes up to
--depth steps above and below it (default 2) and the policies attached to
them. -o svg and -o html draw it without Graphviz, laid out in columns by
hierarchy level and coloured by standing, as the web view does (strata
serve); a dozen neighbours of a kind per node and 300 boxes at most, the
rest counted in dashed boxes, however large the world.

  strata graph -f examples/gep-713/example-2 | dot -Tsvg > example-2.svg
  strata graph httproute/baker -n baker --depth 1 -o html -f examples/parable/ > baker.html`,
		Example: `  strata graph httproute/baker -n baker --depth 1 -o mermaid -f examples/parable/
  strata graph -f examples/gep-713/example-2 | dot -Tsvg > example-2.svg`,
		Args: arity(0, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				arg, err := subjectArg(args)
				if err != nil {
					return err
				}
				args = []string{arg}
			}
			switch format {
			case printer.DOT, printer.Mermaid:
			case "svg", "html":
				if len(args) == 0 {
					return fmt.Errorf("--output %s draws one object's neighbourhood: give KIND/NAME (or use dot or mermaid for everything)", format)
				}
			default:
				return fmt.Errorf("--output %q: want dot, mermaid, svg or html", format)
			}
			if depth < 0 {
				return fmt.Errorf("--depth %d: want 0 or more", depth)
			}
			sel, err := query.ParseSelector(sf.label, sf.field)
			if err != nil {
				return err
			}

			var scope func(*engine.Result) []topology.NodeID
			plan := &web.Plan{Depth: depth, Limits: web.DefaultLimits}
			if !sel.Empty() {
				plan.Keep = func(p *policykind.Policy) bool { return query.Chosen(p, sel) }
			}
			switch {
			case !scoped:
			case format == printer.DOT || format == printer.Mermaid:
				scope = query.NoTargets
			default:
				arg, ns := args[0], namespaceOf(cmd, &f)
				plan.Focus = func(res *engine.Result) (topology.NodeID, bool) {
					subj, err := pickSubject(&f, res, arg, ns, f.allNamespaces) // as below
					return subj.Node, err == nil && subj.Policy == nil
				}
				scope = plan.Scope
			}
			res, err := f.loadScoped(s, scope)
			if err != nil {
				return err
			}
			var subj query.Subject
			if len(args) == 1 {
				// With -A, wherever it is (as describe KIND/NAME -A).
				if subj, err = pickSubject(&f, res, args[0], namespaceOf(cmd, &f), f.allNamespaces); err != nil {
					return err
				}
				if subj.Policy != nil {
					return fmt.Errorf("%s is a policy: graph draws an object's neighbourhood (describe the policy instead)", args[0])
				}
			}
			var buf bytes.Buffer
			switch format {
			case "svg", "html":
				var g *web.Graph
				if g, err = plan.Neighbourhood(res, subj.Node); err != nil {
					return err
				}
				if format == "svg" {
					err = web.SVG(&buf, g)
				} else {
					err = web.HTML(&buf, g)
				}
			default:
				d := query.Map(res)
				if !sel.Empty() {
					d = query.ChosenPolicies(res, d, sel)
				}
				if len(args) == 1 {
					d = query.Around(res, d, subj.Node, depth)
				} else if ns := f.onlyNamespace(); ns != "" {
					d = query.Within(d, ns)
				}
				err = printer.PrintDiagram(&buf, d, format)
			}
			if err != nil {
				return err
			}
			_, err = s.Out.Write(buf.Bytes())
			return err
		},
	}
	f.bind(c)
	c.Flags().StringVarP(&format, "output", "o", printer.DOT, "output format: dot, mermaid, svg or html (svg and html need KIND/NAME)")
	c.Flags().IntVar(&depth, "depth", 2, "with KIND/NAME: how many steps above and below it to draw")
	c.Flags().StringVarP(&sf.label, "selector", "l", "", "selector (label query) to choose the policies drawn, supports '=', '==', '!=', 'in', 'notin' (e.g. -l team=baker); as kubectl")
	c.Flags().StringVar(&sf.field, "field-selector", "", "selector (field query) to choose the policies drawn: metadata.name and metadata.namespace (e.g. --field-selector metadata.namespace=baker); as kubectl")
	completeOutput(c, printer.DOT, printer.Mermaid, "svg", "html")
	c.ValidArgsFunction = completeObject(&f)
	return c
}
