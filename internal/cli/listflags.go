package cli

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/kubectl/pkg/cmd/get"

	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/sink/printer"
)

// listFlags are kubectl get's flags on a command that lists objects
// (get policies, kinds), so that a kubectl user is at home:
//
//	-o wide|name|yaml|json|jsonpath=...|jsonpath-file=...|go-template=...|
//	   go-template-file=...|custom-columns=...|custom-columns-file=...
//	--no-headers --show-labels -L/--label-columns --sort-by --template
//	-l/--selector --field-selector
//
// They are kubectl's own flag set (k8s.io/kubectl/pkg/cmd/get.PrintFlags)
// and printers (cli-runtime's NamePrinter, JSONPathPrinter,
// GoTemplatePrinter and table printer; kubectl's CustomColumnsPrinter and
// sorter), so their help, their errors and what they print are kubectl's.
// Two differences: -o yaml and -o json print the command's own document
// (a PolicyList, a List of PolicyKinds; docs/cli.md), and the table is
// Strata's (columns two spaces apart; wide adds columns). For name,
// jsonpath, go-template and custom-columns the objects printed are the
// listed objects themselves in a v1 List, as kubectl get prints them.
type listFlags struct {
	print                   *get.PrintFlags
	selector, fieldSelector string
}

func newListFlags() *listFlags { return &listFlags{print: get.NewGetPrintFlags()} }

func (l *listFlags) bind(c *cobra.Command) {
	l.print.AddFlags(c)
	l.bindSelectors(c)
}

// newObjectFlags are listFlags for a command that prints objects, not a
// table (status, effective): -o is yaml by default, and name, jsonpath,
// go-template and custom-columns print its objects; -l and
// --field-selector choose among them by their own labels, name and
// namespace.
func newObjectFlags(c *cobra.Command) *listFlags {
	l := newListFlags()
	*l.print.OutputFormat = printer.YAML
	l.print.AddFlags(c)
	l.bindSelectors(c)
	return l
}

// checkObjects is check for newObjectFlags: there is no table.
func (l *listFlags) checkObjects(c *cobra.Command) error {
	if _, err := l.selection(); err != nil {
		return err
	}
	if l.human() {
		return fmt.Errorf("--output %q: %s prints objects, not a table: want yaml, json, name, jsonpath=TEMPLATE, go-template=TEMPLATE or custom-columns=SPEC", l.format(), c.Name())
	}
	return l.check()
}

func (l *listFlags) bindSelectors(c *cobra.Command) {
	c.Flags().StringVarP(&l.selector, "selector", "l", "", "selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin' (e.g. -l key1=value1,key2=value2); as kubectl")
	c.Flags().StringVar(&l.fieldSelector, "field-selector", "", "selector (field query) to filter on: metadata.name and metadata.namespace, with '=', '==' and '!=' (e.g. --field-selector metadata.namespace=baker); as kubectl")
}

// format is -o.
func (l *listFlags) format() string { return *l.print.OutputFormat }

// human reports whether -o asks for a table.
func (l *listFlags) human() bool { return l.format() == "" || l.format() == "wide" }

// document reports whether -o asks for the command's own YAML or JSON.
func (l *listFlags) document() bool { return l.format() == printer.YAML || l.format() == printer.JSON }

// check refuses an -o kubectl would refuse, before anything is read.
func (l *listFlags) check() error {
	if l.human() || l.document() {
		return nil
	}
	_, err := l.print.ToPrinter()
	if genericclioptions.IsNoCompatiblePrinterError(err) {
		format, _, _ := strings.Cut(l.format(), "=")
		allowed := l.print.AllowedFormats()
		return fmt.Errorf("--output %q: unknown format%s (formats: %s)", l.format(), query.DidYouMean(format, allowed), strings.Join(allowed, ", "))
	}
	return err
}

// plain reports whether the table is the default one, without any of
// kubectl's table flags: then a terminal gets Strata's colored table.
func (l *listFlags) plain() bool {
	h := l.print.HumanReadableFlags
	return l.format() == "" && !*l.print.NoHeaders && !*h.ShowLabels && *h.SortBy == "" && len(*h.ColumnLabels) == 0
}

// sorted reports whether --sort-by is given.
func (l *listFlags) sorted() bool { return *l.print.HumanReadableFlags.SortBy != "" }

// selection is -l and --field-selector.
func (l *listFlags) selection() (query.Selector, error) {
	return query.ParseSelector(l.selector, l.fieldSelector)
}

// tableOptions are cli-runtime's table options the flags ask for.
func (l *listFlags) tableOptions() printers.PrintOptions {
	h := l.print.HumanReadableFlags
	return printers.PrintOptions{
		NoHeaders:    *l.print.NoHeaders,
		Wide:         l.format() == "wide",
		ShowLabels:   *h.ShowLabels,
		ColumnLabels: *h.ColumnLabels,
	}
}

// order is the order --sort-by puts objects in, as positions into objects
// (kubectl's sorter, a JSONPath into each object); nil without --sort-by.
// Every format is printed in this order.
func (l *listFlags) order(objects []runtime.Object) ([]int, error) {
	field := *l.print.HumanReadableFlags.SortBy
	if field == "" || len(objects) == 0 {
		return nil, nil
	}
	sorted := slices.Clone(objects)
	s, err := get.SortObjects(nil, sorted, field)
	if err != nil {
		return nil, fmt.Errorf("--sort-by %q: %w", field, err)
	}
	out := make([]int, len(objects))
	for i := range out {
		out[i] = s.OriginalPosition(i)
	}
	return out, nil
}

// printObjects prints objects as a v1 List with the printer -o names
// (name, jsonpath, go-template, custom-columns), buffered so that an error
// never leaves half an answer.
func (l *listFlags) printObjects(s Streams, objects []runtime.Object) error {
	p, err := l.print.ToPrinter()
	if err != nil {
		return err
	}
	list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}}}
	for _, o := range objects {
		u, err := toUnstructured(o)
		if err != nil {
			return err
		}
		list.Items = append(list.Items, *u)
	}
	var buf bytes.Buffer
	if err := p.PrintObj(list, &buf); err != nil {
		return err
	}
	_, err = s.Out.Write(buf.Bytes())
	return err
}

// toUnstructured is o as an unstructured object, which every printer of
// kubectl's reads.
func toUnstructured(o runtime.Object) (*unstructured.Unstructured, error) {
	if u, ok := o.(*unstructured.Unstructured); ok {
		return u, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", o, err)
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// reorder puts items in order (positions into items); nil order keeps them.
func reorder[T any](items []T, order []int) []T {
	if order == nil {
		return items
	}
	out := make([]T, len(order))
	for i, j := range order {
		out[i] = items[j]
	}
	return out
}
