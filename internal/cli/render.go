package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
	"github.com/strata-dev/strata/pkg/blueprint"
	"github.com/strata-dev/strata/pkg/blueprint/render"
	"github.com/strata-dev/strata/pkg/blueprint/values"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/hierarchy/typed"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/sink/printer"
	"github.com/strata-dev/strata/pkg/source/files"
)

// renderFlags are the flags of `strata render`.
type renderFlags struct {
	files          []string
	field          string
	output         string
	values         bool
	noValuesObject bool
	controllerName string
	namespace      string
}

// newRender is `strata render`: the blueprint controller's render, offline.
func newRender(s Streams) *cobra.Command {
	var f renderFlags
	var allNamespaces bool
	kube := genericclioptions.NewConfigFlags(true)
	c := &cobra.Command{
		Use:   "render [gateway/NAME | gateway NAME | httproute/NAME | httproute NAME] [-n NS | -A] [-f PATH...] [--values [--field PTR]]",
		Short: "Render GatewayClassBlueprints for Gateways and HTTPRoutes, as the controller would apply them",
		Long: `Reads GatewayClasses, GatewayClassBlueprints, GatewayClassConfigs,
GatewayConfigs, Gateways, HTTPRoutes and Namespaces from files (-f) or,
without -f, from the cluster of the kubeconfig (kubectl's flags), merges the
values of every Gateway (and attached HTTPRoute) of a class served by the
blueprint controller with the precedence of 002, renders the blueprint's
templates and prints the objects the controller would apply, in the order
it applies them. Objects already rendered (labelled
blueprints.strata.dev/parent-*) in the files are the .Resources templates
read (on a cluster: the objects each parent's inventory annotation names).
CustomResourceDefinitions in the files tell the scope of their kinds (on a
cluster, the API server does).

With --values, prints the merged values of every Gateway and HTTPRoute
instead, each with the config (or blueprint) that set it and the ones it
beat: the question "why does my Gateway get this value?".

With a Gateway or HTTPRoute argument, only that parent is rendered (or its
values printed); --field with --values narrows to one value (a JSON pointer,
e.g. /service/type) and prints every source that set it, the winner first.

A render that fails (a template error, a refused object) prints nothing
and names the template, the line and the value path.`,
		Example: `  strata render gateway/shop -n team-a -f examples/blueprints
  strata render gateway/shop -n team-a --values --field /replicas -f examples/blueprints`,
		Args: arity(0, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.field != "" && !f.values {
				return errors.New("--field needs --values")
			}
			if f.field != "" {
				ptr, err := query.FieldPointer(f.field)
				if err != nil {
					return err
				}
				f.field = ptr
			}
			var arg string
			if len(args) > 0 {
				var err error
				if arg, err = subjectArg(args); err != nil {
					return err
				}
			}
			switch f.output {
			case printer.YAML, printer.JSON:
			case "":
				f.output = printer.YAML
			default:
				return fmt.Errorf("--output %q: want yaml or json", f.output)
			}
			w, scope, from, err := readWorld(f.files, kube, s, f.controllerName)
			if err != nil {
				return err
			}
			classes, jobs := blueprint.Plan(w, f.controllerName, f.namespace)
			if arg != "" {
				ns := "default"
				if *kube.Namespace != "" {
					ns = *kube.Namespace
				} else if len(f.files) == 0 {
					if n, _, err := kube.ToRawKubeConfigLoader().Namespace(); err == nil && n != "" {
						ns = n
					}
				}
				if jobs, err = only(jobs, arg, ns, allNamespaces); err != nil {
					return err
				}
			}
			if f.values {
				format := ""
				if cmd.Flags().Changed("output") {
					format = f.output
				}
				return printValues(s, jobs, format, from, f.field)
			}
			return printRendered(s, w, classes, jobs, scope, f)
		},
	}
	c.Flags().StringSliceVarP(&f.files, "filename", "f", nil, "files or directories (recursive) to read; - for stdin")
	c.Flags().StringVarP(&f.output, "output", "o", printer.YAML, "output format: yaml or json")
	c.Flags().BoolVar(&f.values, "values", false, "print the merged values with their sources instead of the objects")
	c.Flags().BoolVar(&f.noValuesObject, "no-values-objects", false, "leave out the EffectivePolicy of merged values the controller applies with each render (as strata controller --no-blueprint-values-objects)")
	c.Flags().StringVar(&f.field, "field", "", "with --values: one value, as a JSON pointer (/service/type) or a dotted path (service.type), as explain --field")
	c.ValidArgsFunction = func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 || strings.Contains(toComplete, "/") {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return prefixed([]string{"gateway", "httproute"}, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
	completeOutput(c, printer.YAML, printer.JSON)
	c.Flags().BoolVarP(&allNamespaces, "all-namespaces", "A", false, "with gateway/NAME or httproute/NAME: the one of that name in whichever namespace holds it")
	kube.AddFlags(c.Flags())
	c.Flags().StringVar(&f.controllerName, "controller-name", blueprint.DefaultControllerName, "GatewayClass controllerName of the blueprint controller")
	c.Flags().StringVar(&f.namespace, "controller-namespace", blueprint.DefaultNamespace, "the controller's namespace: GatewayClassConfigs there are global")
	_ = c.RegisterFlagCompletionFunc("field", completeRenderField(&f, kube, &allNamespaces))
	return c
}

// readWorld reads the World of files, or else of the kubeconfig's cluster.
func readWorld(paths []string, kube *genericclioptions.ConfigFlags, s Streams, controllerName string) (blueprint.World, render.Scope, string, error) {
	if len(paths) == 0 {
		return liveWorld(kube, s, controllerName)
	}
	w, scope, err := fileWorld(paths, s)
	return w, scope, strings.Join(paths, ", "), err
}

// fileWorld reads the World of files, with the Scope of their kinds.
func fileWorld(paths []string, s Streams) (blueprint.World, render.Scope, error) {
	docs, err := files.Documents(paths, s.In)
	if err != nil {
		return blueprint.World{}, nil, err
	}
	w, crds, err := blueprintWorld(docs)
	if err != nil {
		return blueprint.World{}, nil, err
	}
	for _, e := range render.IgnoredCRDs(crds) {
		fmt.Fprintf(s.Err, "warning: %v\n", e)
	}
	return w, render.StaticScope(crds), nil
}

// liveWorld reads the World of the kubeconfig's cluster, as the controller's cache holds it.
func liveWorld(kube *genericclioptions.ConfigFlags, s Streams, controllerName string) (blueprint.World, render.Scope, string, error) {
	var w blueprint.World
	cl, err := connectCluster(kube, s)
	if err != nil {
		if errors.Is(err, errNoKubeconfig) {
			return w, nil, "", fmt.Errorf("no cluster to read: %w; to read files, give -f (--filename)", err)
		}
		return w, nil, "", err
	}
	ctx := context.Background()
	from := "cluster " + cl.host
	lists := []struct {
		list client.ObjectList
		into func(client.ObjectList)
	}{
		{&bpv1.GatewayClassBlueprintList{}, func(l client.ObjectList) { w.Blueprints = ptrs(l.(*bpv1.GatewayClassBlueprintList).Items) }},
		{&bpv1.GatewayClassConfigList{}, func(l client.ObjectList) { w.ClassConfigs = ptrs(l.(*bpv1.GatewayClassConfigList).Items) }},
		{&bpv1.GatewayConfigList{}, func(l client.ObjectList) { w.GatewayConfigs = ptrs(l.(*bpv1.GatewayConfigList).Items) }},
		{&gwv1.GatewayClassList{}, func(l client.ObjectList) { w.GatewayClasses = ptrs(l.(*gwv1.GatewayClassList).Items) }},
		{&gwv1.GatewayList{}, func(l client.ObjectList) { w.Gateways = ptrs(l.(*gwv1.GatewayList).Items) }},
		{&gwv1.HTTPRouteList{}, func(l client.ObjectList) { w.HTTPRoutes = ptrs(l.(*gwv1.HTTPRouteList).Items) }},
		{&corev1.NamespaceList{}, func(l client.ObjectList) { w.Namespaces = ptrs(l.(*corev1.NamespaceList).Items) }},
	}
	for _, l := range lists {
		if err := cl.client.List(ctx, l.list); err != nil {
			gvk, _ := apiutil.GVKForObject(l.list, cl.client.Scheme())
			return w, nil, "", fmt.Errorf("%s: list %s: %w", from, strings.TrimSuffix(gvk.Kind, "List"), err)
		}
		l.into(l.list)
	}
	var parents []client.Object
	for _, gw := range w.Gateways {
		parents = append(parents, gw)
	}
	for _, r := range w.HTTPRoutes {
		parents = append(parents, r)
	}
	for _, p := range parents {
		for _, u := range blueprint.Inventoried(p.GetAnnotations(), controllerName) {
			if err := cl.client.Get(ctx, client.ObjectKeyFromObject(u), u); err != nil {
				if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
					continue
				}
				return w, nil, "", fmt.Errorf("%s: get %s %s/%s: %w", from, u.GetKind(), u.GetNamespace(), u.GetName(), err)
			}
			u.SetManagedFields(nil)
			w.Children = append(w.Children, u)
		}
	}
	return w, render.MapperScope(cl.mapper), from, nil
}

func ptrs[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// blueprintWorld sorts documents into a blueprint.World, each decoded into its Go type.
func blueprintWorld(docs []files.Document) (blueprint.World, []*unstructured.Unstructured, error) {
	var w blueprint.World
	var crds []*unstructured.Unstructured
	// targets holds the Gateway API and core objects a render reads.
	var targets snapshot.Snapshot
	type id struct {
		gk        schema.GroupKind
		namespace string
		name      string
	}
	first := map[id]string{}
	for _, d := range docs {
		gk := d.Object.GroupVersionKind().GroupKind()
		row, inTable := hierarchy.Lookup(gk)
		target := inTable && len(row.Configs) > 0
		if target || gk == crdKind || gk.Group == bpv1.Group && blueprintKinds[gk.Kind] {
			k := id{gk, d.Object.GetNamespace(), d.Object.GetName()}
			if at, dup := first[k]; dup {
				what := gk.Kind + " " + k.name
				if k.namespace != "" {
					what = gk.Kind + " " + k.namespace + "/" + k.name
				}
				return w, nil, fmt.Errorf("%s: %s is also defined at %s; give each object once", d.Where(), what, at)
			}
			first[k] = d.Where()
		}
		var err error
		switch {
		case gk == schema.GroupKind{Group: bpv1.Group, Kind: bpv1.BlueprintKind}:
			err = decodeInto(d, &w.Blueprints)
		case gk == schema.GroupKind{Group: bpv1.Group, Kind: bpv1.ClassConfigKind}:
			err = decodeInto(d, &w.ClassConfigs)
		case gk == schema.GroupKind{Group: bpv1.Group, Kind: bpv1.ConfigKind}:
			err = decodeInto(d, &w.GatewayConfigs)
		case gk == crdKind:
			crds = append(crds, d.Object)
		case target:
			k := typed.Kinds[gk]
			obj := k.New()
			if err = decodeStrict(d, obj); err == nil {
				k.Add(&targets, obj)
			}
		default:
			if _, ok := d.Object.GetLabels()[render.LabelParentKind]; ok {
				w.Children = append(w.Children, d.Object)
			}
		}
		if err != nil {
			return w, nil, fmt.Errorf("%s: %w", d.Where(), err)
		}
	}
	w.GatewayClasses, w.Gateways, w.HTTPRoutes, w.Namespaces = targets.GatewayClasses, targets.Gateways, targets.HTTPRoutes, targets.Namespaces
	return w, crds, nil
}

// crdKind is a CustomResourceDefinition's: a render checks objects against CRDs.
var crdKind = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// blueprintKinds are the kinds of group strata.dev/blueprints a render reads.
var blueprintKinds = map[string]bool{bpv1.BlueprintKind: true, bpv1.ClassConfigKind: true, bpv1.ConfigKind: true}

// decodeInto converts a document to its Go type, strictly (decodeStrict), and appends it to list.
func decodeInto[T any](d files.Document, list *[]*T) error {
	obj := new(T)
	if err := decodeStrict(d, obj); err != nil {
		return err
	}
	*list = append(*list, obj)
	return nil
}

// decodeStrict converts a document to its Go type obj, refusing unknown or mistyped fields.
func decodeStrict(d files.Document, obj any) error {
	b, err := json.Marshal(d.Object.Object)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(obj)
}

// printRendered renders every job and prints the objects only if all succeed.
func printRendered(s Streams, w blueprint.World, classes []blueprint.ClassPlan, jobs []blueprint.Job, scope render.Scope, f renderFlags) error {
	kinds := render.Kinds{Scope: scope, Types: clientgoscheme.Scheme}
	format := f.output
	var problems []string
	used := map[string]bool{}
	for _, gw := range w.Gateways {
		used[string(gw.Spec.GatewayClassName)] = true
	}
	for _, cp := range classes {
		if cp.Err != nil && used[cp.Class.Name] {
			problems = append(problems, fmt.Sprintf("GatewayClass %s: %v", cp.Class.Name, cp.Err))
		}
	}
	var objs []any
	var buf bytes.Buffer
	for _, j := range jobs {
		if j.Err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", j.Parent, j.Err))
			continue
		}
		out, err := render.Render(j.Input, kinds)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", j.Parent, err))
			continue
		}
		rendered := out.Objects
		what := make([]string, len(rendered))
		for i, t := range out.Templates {
			what[i] = "template " + t
		}
		if !f.noValuesObject {
			ep, err := blueprint.ValuesObject(j.Input, j.Values)
			if err != nil {
				return err
			}
			rendered = append(slices.Clip(rendered), ep)
			what = append(what, "merged values")
		}
		for i, o := range rendered {
			objs = append(objs, o.Object)
			if format == printer.YAML {
				b, err := yaml.Marshal(o.Object)
				if err != nil {
					return err
				}
				fmt.Fprintf(&buf, "---\n# %s, %s\n%s", j.Parent, what[i], b)
			}
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	if format == printer.JSON {
		return print(s, map[string]any{"apiVersion": "v1", "kind": "List", "items": objs}, format)
	}
	_, err := s.Out.Write(buf.Bytes())
	return err
}

// valuesDoc is the -o yaml|json form of --values (schema in docs/cli.md).
type valuesDoc struct {
	Parent  values.Parent  `json:"parent"`
	Values  map[string]any `json:"values"`
	Leaves  []values.Leaf  `json:"leaves"`
	Configs []configDoc    `json:"configs"`
}

type configDoc struct {
	Kind      string        `json:"kind"`
	Namespace string        `json:"namespace"`
	Name      string        `json:"name"`
	Level     values.Level  `json:"level"`
	Result    string        `json:"result"`
	Lost      []values.Lost `json:"lost,omitempty"`
}

// only keeps the jobs of the parent KIND/NAME, in ns or, with all, the one namespace holding it.
func only(jobs []blueprint.Job, arg, ns string, all bool) ([]blueprint.Job, error) {
	kind, name, ok := strings.Cut(arg, "/")
	if !ok || name == "" {
		return nil, fmt.Errorf("%q: want gateway/NAME or httproute/NAME", arg)
	}
	switch gk, _ := query.HierarchyKind(kind); gk {
	case hierarchy.GatewayKind, hierarchy.HTTPRouteKind:
		kind = gk.Kind
	default:
		return nil, fmt.Errorf("%q: blueprints render Gateways and HTTPRoutes, not %s", arg, kind)
	}
	var out []blueprint.Job
	elsewhere := map[string]bool{}
	for _, j := range jobs {
		if j.Parent.Kind != kind || j.Parent.Name != name {
			continue
		}
		if j.Parent.Namespace == ns {
			out = append(out, j)
		} else {
			elsewhere[j.Parent.Namespace] = true
		}
	}
	if len(out) == 0 && all && len(elsewhere) == 1 {
		for n := range elsewhere {
			return only(jobs, arg, n, false)
		}
	}
	if len(out) == 0 {
		hint := ""
		if len(elsewhere) > 0 {
			hint = fmt.Sprintf(" (found in namespace %s: use -n)", strings.Join(slices.Sorted(maps.Keys(elsewhere)), ", "))
		}
		return nil, fmt.Errorf("%s %s/%s: not found, or not of a GatewayClass served by the blueprint controller (or, for a route, not attached to such a Gateway)%s", kind, ns, name, hint)
	}
	return out, nil
}

// printValues prints merged values: a table per parent for people (format ""), or yaml or json.
func printValues(s Streams, jobs []blueprint.Job, format string, from string, field string) error {
	var docs []valuesDoc
	var problems []string
	for _, j := range jobs {
		if j.Err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", j.Parent, j.Err))
			continue
		}
		d := valuesDoc{Parent: j.Parent, Values: j.Values.Values, Leaves: j.Values.Leaves, Configs: []configDoc{}}
		if field != "" {
			d.Leaves = nil
			for _, l := range j.Values.Leaves {
				if l.Pointer == field || strings.HasPrefix(l.Pointer, field+"/") {
					d.Leaves = append(d.Leaves, l)
				}
			}
			if len(d.Leaves) == 0 {
				var ptrs []string
				for _, l := range j.Values.Leaves {
					ptrs = append(ptrs, l.Pointer)
				}
				problems = append(problems, fmt.Sprintf("%s: no value at %s%s", j.Parent, field, query.DidYouMean(field, ptrs)))
				continue
			}
		}
		if d.Values == nil {
			d.Values = map[string]any{}
		}
		for _, a := range j.Values.Applied {
			d.Configs = append(d.Configs, configDoc{Kind: a.Config.Kind, Namespace: a.Config.Namespace, Name: a.Config.Name, Level: a.Level, Result: a.Result(), Lost: a.Lost})
		}
		docs = append(docs, d)
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	if len(docs) == 0 {
		return fmt.Errorf("no Gateway of a class served by the blueprint controller in %s", from)
	}
	if format != "" {
		return print(s, docs, format)
	}
	var buf bytes.Buffer
	for i, d := range docs {
		if i > 0 {
			buf.WriteString("\n")
		}
		fmt.Fprintf(&buf, "%s (GatewayClass %s)\n", d.Parent, d.Parent.Class)
		tw := tabwriter.NewWriter(&buf, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  FIELD\tVALUE\tSET BY\tLEVEL\tBEATEN")
		for _, l := range d.Leaves {
			v, _ := yaml.Marshal(l.Value)
			beaten := "-"
			if len(l.Beaten) > 0 {
				names := make([]string, len(l.Beaten))
				for k, b := range l.Beaten {
					names[k] = b.String()
				}
				beaten = strings.Join(names, ", ")
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%s\n", l.Pointer, strings.TrimSpace(flowValue(l.Value, v)), l.Source, int(l.Source.Level), beaten)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	_, err := s.Out.Write(buf.Bytes())
	return err
}

// flowValue prints a value on one line: scalars as YAML, lists and maps as JSON (flow style).
func flowValue(v any, y []byte) string {
	switch v.(type) {
	case []any, map[string]any:
		b, err := json.Marshal(v)
		if err == nil {
			return string(b)
		}
	}
	return string(y)
}

// explainValues is `strata explain KIND/NAME --field PTR --kind BlueprintValues`.
func explainValues(s Streams, f *sourceFlags, format, arg, ns, ptr string) error {
	if len(f.withFiles) > 0 {
		return fmt.Errorf("--kind %s reads files (-f) or a cluster, not both (--with-file)", blueprint.ValuesKind)
	}
	w, _, from, err := readWorld(f.files, f.kube, s, blueprint.DefaultControllerName)
	if err != nil {
		return err
	}
	_, jobs := blueprint.Plan(w, blueprint.DefaultControllerName, blueprint.DefaultNamespace)
	if jobs, err = only(jobs, arg, ns, f.allNamespaces); err != nil {
		return err
	}
	return printValues(s, jobs, format, from, ptr)
}
