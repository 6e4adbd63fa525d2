package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/source/files"
)

// impactOfAdd answers `impact --add FILE`: what creating the policy in FILE would change.
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
	before, err := f.loadScopedIf(s, scoped, query.ImpactScope(func(*engine.Result) *policykind.Policy { return nil }, u))
	if err != nil {
		return err
	}
	gvk := u.GroupVersionKind()
	k := before.KindOf(gvk.Group, gvk.Kind)
	if k == nil {
		return fmt.Errorf("%s: %s is not a policy kind of the input (strata kinds lists them)", file, gvk.GroupKind())
	}
	if u.GetCreationTimestamp().Time.IsZero() {
		// Created now, as a new policy would be (GEP-713 "Conflict resolution rules": the older wins).
		u.SetCreationTimestamp(metav1.NewTime(time.Now().UTC().Truncate(time.Second)))
	}
	im, after, err := query.ImpactOfAdding(before, u)
	if err != nil {
		if strings.Contains(err.Error(), "exists already") {
			return fmt.Errorf("%w: use impact %s/%s --replace %s", err, strings.ToLower(k.Kind), u.GetName(), file)
		}
		return err
	}
	warnAdmitted(s, after, k.Key(), u.GetNamespace(), u.GetName(), file)
	return v.print(s, im)
}

func newImpact(s Streams) *cobra.Command { return newImpactScoped(s, true) }

// newImpactScoped is impact; scoped false runs the complete engine, for tests.
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
			if err := (query.ImpactRequest{Args: args, Delete: del, Replace: replace, Add: add, Selected: sf.given()}).Check(); err != nil {
				return err
			}
			if add != "" {
				return impactOfAdd(s, &f, &v, add, namespaceOf(c, &f), scoped)
			}
			if sf.given() {
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
			before, err := f.loadScopedIf(s, scoped, query.ImpactScope(func(res *engine.Result) *policykind.Policy {
				subj, err := pickSubject(&f, res, arg, namespaceOf(c, &f), f.allNamespaces)
				if err != nil {
					return nil
				}
				return subj.Policy
			}, repl))
			if err != nil {
				return err
			}
			subj, err := pickSubject(&f, before, arg, namespaceOf(c, &f), f.allNamespaces)
			if err != nil {
				// A policy of a kind the user cannot read: what its deletion changes, from the records.
				if im, ok, perr := f.published.Impact(arg, namespaceOf(c, &f), del); ok && perr != nil {
					return perr
				} else if ok {
					return v.print(s, im)
				}
				return err
			}
			p := subj.Policy
			if p == nil {
				return fmt.Errorf("impact takes a policy (POLICY-KIND/NAME), not %s", before.Graph.Node(subj.Node).Ref)
			}
			im, after, err := query.ImpactOf(before, p, repl)
			if err != nil {
				return err
			}
			if !del {
				warnAdmitted(s, after, p.Kind.Key(), p.Namespace, p.Name, replace)
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

// warnAdmitted says what the API server would say about the policy written.
func warnAdmitted(s Streams, after *engine.Result, gk schema.GroupKind, ns, name, file string) {
	for _, q := range after.Policies {
		if q.Kind.Key() == gk && q.Namespace == ns && q.Name == name {
			for _, w := range q.Warnings {
				fmt.Fprintf(s.Err, "warning: %s (%s %s): %s\n", file, q.Kind.Kind, q.ID(), w)
			}
		}
	}
}

// impactOfDeleting answers `impact POLICY-KIND -l SELECTOR --delete`.
func impactOfDeleting(s Streams, f *sourceFlags, v *viewFlag, sf *selectorFlags, args []string, ns string, scoped bool) error {
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
	before, err := f.loadScopedIf(s, scoped, query.DeletionScope(func(res *engine.Result) []*policykind.Policy {
		ps, _ := choose(res)
		return ps
	}))
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

// readOne reads the one object of a YAML or JSON file (or stdin), integers as int64 as -f reads them.
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
