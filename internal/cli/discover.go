package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/sink/printer"
)

// The discoverability commands (GEP-713): describe, explain, get policies, impact and graph.

// viewFlag is -o for the discoverability commands: people, yaml or json.
type viewFlag struct {
	format         string
	full           bool // every context (--full); kinds and field narrow it.
	kinds          []string
	field          string
	failIncomplete bool // --fail-incomplete: an answer that may leave policies out is an error.
}

// bindNarrow adds describe's --full, --kind and --field.
func (v *viewFlag) bindNarrow(c *cobra.Command) {
	c.Flags().BoolVar(&v.full, "full", false, "list every context and every parent and child, however many (without it, more than 20 contexts are summarized, or grouped by effect with --kind/--field, and more than 10 parents or children counted by kind)")
	c.Flags().StringSliceVar(&v.kinds, "kind", nil, "only these policy kinds (Kind or Kind.group; repeatable)")
	c.Flags().StringVar(&v.field, "field", "", "only this field of the effective policies: a JSON pointer (/attempts) or a dotted path")
}

// narrow applies --kind and --field to a description of an object.
func (v *viewFlag) narrow(f *sourceFlags, res *engine.Result, d *query.Description) (nd *query.Description, missing *query.FieldNotSetError, err error) {
	var kinds []query.GroupKind
	var names []string
	for _, name := range v.kinds {
		_, gk, err := query.PolicyKindNamed(res, name, f.kindAlias, f.published)
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

// bindFailIncomplete adds describe's --fail-incomplete.
func (v *viewFlag) bindFailIncomplete(c *cobra.Command) {
	c.Flags().BoolVar(&v.failIncomplete, "fail-incomplete", false, "exit with 1, after printing the answer, when it may leave policies out: a policy kind you cannot list, with no published EffectivePolicy record reaching the object to answer for it")
}

// incomplete is --fail-incomplete's error: nil unless a description among docs may leave policies out.
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

// print writes a discover document, buffered so an error never leaves half of it.
func (v *viewFlag) print(s Streams, doc any) error {
	if v.format == "" {
		bw := bufio.NewWriterSize(s.Out, 64<<10)
		if err := printer.PrintHuman(bw, doc, v.human(s)); err != nil {
			return err
		}
		return bw.Flush()
	}
	return print(s, doc, v.format)
}

// human is how the flags print a description for people.
func (v *viewFlag) human(s Streams) printer.Human {
	narrowed := len(v.kinds) > 0 || v.field != ""
	return printer.Human{Color: colorful(s.Out), Full: v.full, Narrowed: narrowed}
}

// colorful reports whether w is a terminal that wants colors (no NO_COLOR).
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

// namespaceOf is the namespace of a KIND/NAME argument: -n, the kubeconfig's, or "default".
func namespaceOf(c *cobra.Command, f *sourceFlags) string {
	if fl := c.Flags().Lookup("namespace"); fl != nil && fl.Value.String() != "" {
		return fl.Value.String()
	}
	if ns, all := f.namespaceScope(); !all && ns != "" {
		return ns
	}
	return "default"
}

// resolve finds what KIND/NAME names.
func resolve(f *sourceFlags, res *engine.Result, arg, ns string) (query.Subject, error) {
	arg = f.subjectAlias(arg)
	subj, err := query.Resolve(res, arg, ns)
	if err == nil {
		return subj, nil
	}
	kind, _, _ := strings.Cut(arg, "/")
	if k, kerr := query.ResolveKind(res, kind); kerr == nil {
		if rerr := f.readable(k.GroupKind()); rerr != nil {
			return query.Subject{}, rerr
		}
	}
	return query.Subject{}, err
}
