package cli

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/util/jsonpath"
	"k8s.io/kubectl/pkg/cmd/get"

	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/sink/effectivepolicy"
	"github.com/strata-dev/strata/pkg/sink/printer"
)

// listFlags are kubectl get's flags on a command that lists objects
// (get policies, kinds), so that a kubectl user is at home:
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
// table (status, effective): -o is yaml by default.
func newObjectFlags(c *cobra.Command) *listFlags {
	l := newListFlags()
	*l.print.OutputFormat = printer.YAML
	l.bind(c)
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
	_, err := l.check()
	return err
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

// check refuses an -o kubectl would refuse, before anything is read, then reads the selection.
func (l *listFlags) check() (query.Selector, error) {
	if l.human() || l.document() {
		return l.selection()
	}
	_, err := l.print.ToPrinter()
	if genericclioptions.IsNoCompatiblePrinterError(err) {
		format, _, _ := strings.Cut(l.format(), "=")
		allowed := l.print.AllowedFormats()
		return query.Selector{}, fmt.Errorf("--output %q: unknown format%s (formats: %s)", l.format(), query.DidYouMean(format, allowed), strings.Join(allowed, ", "))
	} else if err != nil {
		return query.Selector{}, err
	}
	return l.selection()
}

// plain reports whether no table flag is given: a terminal then gets Strata's table.
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

// order is the order --sort-by puts objects in, as positions; nil without it.
func (l *listFlags) order(objects []runtime.Object) ([]int, error) {
	field := *l.print.HumanReadableFlags.SortBy
	if field == "" || len(objects) == 0 {
		return nil, nil
	}
	sorted, err := unstructuredAll(objects)
	if err != nil {
		return nil, err
	}
	if err := sortable(field, sorted); err != nil {
		return nil, fmt.Errorf("--sort-by %s: %w", field, err)
	}
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

// sortable checks that kubectl's sorter can compare field's values in objects.
func sortable(field string, objects []runtime.Object) error {
	expr, err := get.RelaxedJSONPathExpression(field)
	if err != nil {
		return err
	}
	parser := jsonpath.New("sorting").AllowMissingKeys(true)
	if err := parser.Parse(expr); err != nil {
		return err
	}
	const hint = "sort by a string, number or time such as .metadata.name"
	var first any      // the first value found, of the type every other must have
	var firstIn string // the object it is in
	for _, o := range objects {
		u := o.(*unstructured.Unstructured)
		found, err := parser.FindResults(u.Object)
		if err != nil {
			return err
		}
		if len(found) == 0 || len(found[0]) == 0 {
			continue // the sorter puts objects without it first
		}
		v := found[0][0]
		for v.Kind() == reflect.Interface && !v.IsNil() {
			v = v.Elem()
		}
		if !v.IsValid() || v.Kind() == reflect.Interface {
			continue // null
		}
		in := u.GetKind() + " " + u.GetName()
		if u.GetNamespace() != "" {
			in = u.GetKind() + " " + u.GetNamespace() + "/" + u.GetName()
		}
		x := v.Interface()
		switch x.(type) {
		case string, int64, float64, int, int32:
		default:
			return fmt.Errorf("%s of %s is not a sortable field (%s); %s", field, in, typeName(x), hint)
		}
		switch {
		case first == nil:
			first, firstIn = x, in
		case reflect.TypeOf(first) != reflect.TypeOf(x):
			return fmt.Errorf("%s is %s in %s but %s in %s, which cannot be compared; %s", field, typeName(first), firstIn, typeName(x), in, hint)
		}
	}
	return nil
}

// typeName names the type of a value read from YAML or JSON, for messages.
func typeName(x any) string {
	switch x.(type) {
	case map[string]any:
		return "a map"
	case []any:
		return "a list"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case float64:
		return "a decimal number"
	case int64, int, int32:
		return "an integer"
	}
	return fmt.Sprintf("a %T", x)
}

// printObjects prints objects as a v1 List with the printer -o names, buffered.
func (l *listFlags) printObjects(s Streams, objects []runtime.Object) error {
	p, err := l.print.ToPrinter()
	if err != nil {
		return err
	}
	list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}}}
	convert := unstructuredAll
	if l.format() == "name" {
		convert = namesOnly
	}
	items, err := convert(objects)
	if err != nil {
		return err
	}
	list.Items = make([]unstructured.Unstructured, len(items))
	for i, u := range items {
		list.Items[i] = *u.(*unstructured.Unstructured)
	}
	return printWith(s, func(w io.Writer) error { return p.PrintObj(list, w) })
}

// printObject prints one object as itself, not in a List, as kubectl get does.
func (l *listFlags) printObject(s Streams, o runtime.Object) error {
	p, err := l.print.ToPrinter()
	if err != nil {
		return err
	}
	u, err := toUnstructured(o)
	if err != nil {
		return err
	}
	return printWith(s, func(w io.Writer) error { return p.PrintObj(u, w) })
}

// toUnstructured is o as an unstructured object, which every printer of kubectl's reads.
func toUnstructured(o runtime.Object) (*unstructured.Unstructured, error) {
	switch x := o.(type) {
	case *unstructured.Unstructured:
		return x, nil
	case *effectivepolicy.EffectivePolicy:
		m, err := effectivepolicy.Unstructured(x)
		if err != nil {
			return nil, err
		}
		return &unstructured.Unstructured{Object: m}, nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", o, err)
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// unstructuredAll is toUnstructured of every object, in their order.
func unstructuredAll(objects []runtime.Object) ([]runtime.Object, error) {
	out := make([]runtime.Object, len(objects))
	for i, o := range objects {
		u, err := toUnstructured(o)
		if err != nil {
			return nil, err
		}
		out[i] = u
	}
	return out, nil
}

// namesOnly is unstructuredAll for -o name: objects of kind, group and name alone.
func namesOnly(objects []runtime.Object) ([]runtime.Object, error) {
	out := make([]runtime.Object, len(objects))
	for i, o := range objects {
		if u, ok := o.(*unstructured.Unstructured); ok {
			out[i] = u
			continue
		}
		m, err := meta.Accessor(o)
		if err != nil {
			return nil, fmt.Errorf("encode %T: %w", o, err)
		}
		u := &unstructured.Unstructured{Object: map[string]any{}}
		u.GetObjectKind().SetGroupVersionKind(o.GetObjectKind().GroupVersionKind())
		u.SetName(m.GetName())
		if ns := m.GetNamespace(); ns != "" {
			u.SetNamespace(ns)
		}
		out[i] = u
	}
	return out, nil
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
