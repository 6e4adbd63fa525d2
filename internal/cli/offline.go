package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/sink/effectivepolicy"
	"github.com/strata-dev/strata/pkg/sink/printer"
	"github.com/strata-dev/strata/pkg/sink/status"
)

// warnOmitted warns of the conditions a fragment leaves out for want of
// room (docs/status.md, "Room").
func warnOmitted(s Streams, fr *status.Fragment) {
	for _, o := range fr.Omitted {
		name := fr.Name
		if fr.Namespace != "" {
			name = fr.Namespace + "/" + name
		}
		fmt.Fprintf(s.Err, "warning: %s %s: %s (annotation %s)\n", fr.GVK.Kind, name, o.Text(), hierarchy.OmittedAnnotation)
	}
}

// print buffers the output so that an error never leaves half a document on stdout.
func print(s Streams, v any, format string) error {
	return printWith(s, func(w io.Writer) error { return printer.Print(w, v, format) })
}

// printWith writes to stdout what write writes, once it has written it all without an error.
func printWith(s Streams, write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	_, err := buf.WriteTo(s.Out)
	return err
}

// printEach writes a List of n items in format, an item at a time (issue 11).
func printEach(s Streams, n int, item func(int) any, format string) error {
	return printEachBy(s, n, func() func(int) any { return item }, format)
}

// printEachBy is printEach with an item function per rendering goroutine.
func printEachBy(s Streams, n int, worker func() func(int) any, format string) error {
	bw := bufio.NewWriterSize(s.Out, 64<<10)
	lw, err := printer.NewListWriter(bw, format)
	if err != nil {
		return err
	}
	if err := lw.ItemsBy(n, worker); err != nil {
		return err
	}
	if err := lw.Close(); err != nil {
		return err
	}
	return bw.Flush()
}

func newStatus(s Streams) *cobra.Command {
	orig := s
	s, out := watchable(s)
	var f sourceFlags
	var now string
	var l *listFlags
	c := &cobra.Command{
		Use:   "status [-f PATH... | --with-file PATH...]",
		Short: "Print the status Strata would write: policy ancestors and <Kind>Affected conditions on targets",
		Long: `Reads objects from files or a live cluster and prints a v1 List of every
policy of a kind Strata manages, with the status.ancestors Strata would
write, followed by every affected target with its <Kind>Affected condition
(or annotation). With -n, only that namespace's objects (and cluster-scoped
ones).

Conditions need a lastTransitionTime; offline there is no clock worth
trusting, so changed conditions are stamped with --now, by default the
newest creationTimestamp in the input. Conditions whose status did not
change keep the time they already have. Same input, same bytes.

-o takes kubectl's formats too: name, jsonpath, go-template and
custom-columns print the same objects; --sort-by orders them.`,
		Example: `  strata status -f examples/parable/
  strata status -n frosting -f examples/parable/ -o custom-columns=KIND:.kind,NAME:.metadata.name`,
		Args: arity(0, 0),
		RunE: func(c *cobra.Command, _ []string) error {
			if err := l.checkObjects(c); err != nil {
				return err
			}
			res, err := f.load(s)
			if err != nil {
				return err
			}
			t, err := stampTime(now, res)
			if err != nil {
				return err
			}
			sel, _ := l.selection()
			policies, fragments := status.PolicyObjects(res, t), status.Fragments(res, t)
			// A document is printed from the parts, without making the objects' maps.
			document := l.document() && !l.sorted()
			var items []any
			var objects []runtime.Object
			for _, p := range policies {
				u := &unstructured.Unstructured{Object: p.Source} // its metadata is the object's
				if !f.inNamespace(u.GetNamespace()) || !sel.Empty() && !sel.Matches(u.GetLabels(), u.GetNamespace(), u.GetName()) {
					continue
				}
				if document {
					items = append(items, p)
				} else {
					objects = append(objects, p.Object())
				}
			}
			for _, fr := range fragments {
				if !f.inNamespace(fr.Namespace) || !sel.Empty() && !sel.Matches(nil, fr.Namespace, fr.Name) {
					continue
				}
				warnOmitted(s, fr)
				if document {
					items = append(items, fr)
				} else {
					objects = append(objects, fr.Object())
				}
			}
			if document {
				return printEach(s, len(items), func(i int) any { return items[i] }, l.format())
			}
			return printObjects(s, l, objects, func(o runtime.Object) any { return o.(*unstructured.Unstructured).Object })
		},
	}
	f.bind(c)
	l = newObjectFlags(c)
	c.Flags().StringVar(&now, "now", "", "RFC 3339 time for changed conditions (default: newest creationTimestamp in the input)")
	withWatch(c, orig, out, &f)
	return c
}

func newEffective(s Streams) *cobra.Command {
	var f sourceFlags
	var l *listFlags
	c := &cobra.Command{
		Use:   "effective [-f PATH... | --with-file PATH...]",
		Short: "Print the effective policy of every target, in every context, with the source of each field",
		Long: `Prints a v1 List of EffectivePolicy objects: the effective policy of every
target, in every context, with the source of each field. With -n, only
that namespace's targets (and cluster-scoped ones).

-o takes kubectl's formats too: name, jsonpath, go-template and
custom-columns print the same objects; --sort-by orders them.`,
		Example: `  strata effective -f examples/parable/
  strata effective -A -f examples/parable/ -l strata.dev/target-kind=Service -o name
  strata effective -n frosting -f examples/parable/ -o custom-columns=TARGET:.target.name,KINDS:.policies[*].kind`,
		Args: arity(0, 0),
		RunE: func(c *cobra.Command, _ []string) error {
			if err := l.checkObjects(c); err != nil {
				return err
			}
			res, err := f.loadScoped(s, namespaceScope(f.onlyNamespace()))
			if err != nil {
				return err
			}
			sel, _ := l.selection()
			n, at := effectivepolicy.Indexed(res)
			chosen := func(i int, scratch *effectivepolicy.Scratch) *effectivepolicy.EffectivePolicy {
				if e := at(i, scratch); f.inNamespace(e.Namespace) && sel.Matches(e.Labels, e.Namespace, e.Name) {
					return e
				}
				return nil
			}
			if l.document() && !l.sorted() {
				// Streamed: a batch of EffectivePolicies in memory at a time.
				return printEachBy(s, n, func() func(int) any {
					var scratch effectivepolicy.Scratch
					return func(i int) any {
						if e := chosen(i, &scratch); e != nil {
							return e
						}
						return nil
					}
				}, l.format())
			}
			var objects []runtime.Object
			for i := range n {
				if e := chosen(i, nil); e != nil {
					objects = append(objects, e)
				}
			}
			return printObjects(s, l, objects, func(o runtime.Object) any { return o })
		},
	}
	f.bind(c)
	l = newObjectFlags(c)
	return c
}

// printObjects prints the objects of status or effective as the flags ask, in --sort-by's order.
func printObjects(s Streams, l *listFlags, objects []runtime.Object, item func(runtime.Object) any) error {
	if !l.document() && l.sorted() {
		var err error
		if objects, err = unstructuredAll(objects); err != nil {
			return err
		}
	}
	order, err := l.order(objects)
	if err != nil {
		return err
	}
	objects = reorder(objects, order)
	if !l.document() {
		return l.printObjects(s, objects)
	}
	return printEach(s, len(objects), func(i int) any { return item(objects[i]) }, l.format())
}

// namespaceScope is the scope of a command about the targets of one namespace.
func namespaceScope(ns string) func(*engine.Result) []topology.NodeID {
	if ns == "" {
		return func(r *engine.Result) []topology.NodeID {
			out := make([]topology.NodeID, len(r.Graph.Nodes))
			for i := range out {
				out[i] = topology.NodeID(i)
			}
			return out
		}
	}
	return func(r *engine.Result) []topology.NodeID {
		out := []topology.NodeID{}
		for i, n := range r.Graph.Nodes {
			if n.Ref.Namespace == ns || n.Ref.Namespace == "" {
				out = append(out, topology.NodeID(i))
			}
		}
		return out
	}
}

// stampTime is --now, or the newest creationTimestamp of the input.
func stampTime(flag string, res *engine.Result) (metav1.Time, error) {
	if flag != "" {
		t, err := time.Parse(time.RFC3339, flag)
		if err != nil {
			return metav1.Time{}, fmt.Errorf("--now: %w", err)
		}
		return metav1.NewTime(t.UTC()), nil
	}
	return metav1.NewTime(newest(res)), nil
}

// newest is the newest creationTimestamp of the input, strata status's default stamp.
func newest(res *engine.Result) time.Time {
	t := time.Unix(0, 0).UTC()
	for _, p := range res.Policies {
		if p.Created.After(t) {
			t = p.Created
		}
	}
	for i := range res.Graph.Nodes {
		if o, ok := res.Graph.Nodes[i].Object.(metav1.Object); ok {
			if c := o.GetCreationTimestamp(); c.After(t) {
				t = c.Time
			}
		}
	}
	return t.UTC()
}
