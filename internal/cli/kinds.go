package cli

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/policykind/builtin"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/sink/printer"
)

// SourceAnnotation says where a printed PolicyKind's declaration came from.
const SourceAnnotation = "strata.dev/declared-by"

func newKinds(s Streams) *cobra.Command {
	var f sourceFlags
	l := newListFlags()
	var catalogue bool
	c := &cobra.Command{
		Use:   "kinds [-f PATH... | --with-file PATH... | --builtin]",
		Short: "List the policy kinds Strata knows and where each is declared: a PolicyKind, a labelled CRD, or the built-in catalogue",
		Long: `Lists the policy kinds of the input (files with -f, else the live cluster):
each kind, its class, whether Strata manages it, its target and
effective target kinds, its default strategy and where its declaration
comes from: a PolicyKind object, a CRD labelled
gateway.networking.k8s.io/policy, or Strata's built-in catalogue (the
policy kinds of Gateway API, Envoy Gateway, Kuadrant and NGINX Gateway
Fabric, used for kinds the input uses but does not declare; a PolicyKind
overrides an entry).

-o wide adds the kind's CRD in the input (name, storage version, scope,
short names; - when none was read), its controller and how many
policies of it the input holds.

--builtin lists the whole catalogue without reading any input. -o yaml
or json prints the declarations as PolicyKind objects, defaults filled
in, annotated with their source: a starting point for a PolicyKind of
your own.`,
		Example: `  strata kinds --builtin
  strata kinds -f examples/catalogue
  strata kinds --builtin -o yaml > policykinds.yaml`,
		Args: arity(0, 0),
		RunE: func(*cobra.Command, []string) error {
			sel, err := l.check()
			if err != nil {
				return err
			}
			var kinds []*policykind.Kind
			var counts map[schema.GroupKind]int
			var crds map[schema.GroupKind]*unstructured.Unstructured
			if catalogue {
				if len(f.files) > 0 || len(f.withFiles) > 0 {
					return fmt.Errorf("--builtin reads no input: drop -f and --with-file")
				}
				entries, err := builtin.Catalogue()
				if err != nil {
					return err
				}
				for _, e := range entries {
					k, err := policykind.Compile(e.Declaration)
					if err != nil {
						return fmt.Errorf("%s: %w", e.Source(), err)
					}
					k.Source, k.Labels = e.Source(), e.Declaration.Labels
					kinds = append(kinds, k)
				}
				sort.Slice(kinds, func(i, j int) bool {
					return kinds[i].Group+"/"+kinds[i].Kind < kinds[j].Group+"/"+kinds[j].Kind
				})
			} else {
				res, err := f.loadScoped(s, query.NoTargets)
				if err != nil {
					return err
				}
				kinds = res.PolicyKinds()
				counts = map[schema.GroupKind]int{}
				for _, p := range res.Policies {
					counts[p.Kind.Key()]++
				}
				crds = kindCRDs(f.read.Snapshot.CRDs, f.read.Snapshot.PolicyCRDs)
			}
			decls := kindDeclarations(kinds)
			if !sel.Empty() {
				var keptKinds []*policykind.Kind
				var kept []policykind.Declaration
				for i, d := range decls {
					if sel.Matches(d.Labels, "", d.Name) {
						keptKinds, kept = append(keptKinds, kinds[i]), append(kept, d)
					}
				}
				kinds, decls = keptKinds, kept
			}
			objects := make([]runtime.Object, len(decls))
			for i := range decls {
				objects[i] = &decls[i]
			}
			order, err := l.order(objects)
			if err != nil {
				return err
			}
			kinds, objects = reorder(kinds, order), reorder(objects, order)
			switch {
			case l.document():
				return print(s, printer.List(reorder(kindItems(decls), order)), l.format())
			case !l.human():
				return l.printObjects(s, objects)
			case len(kinds) == 0:
				_, err := io.WriteString(s.Out, "No policy kind is declared or used by the input.\n")
				return err
			}
			t := &metav1.Table{ColumnDefinitions: kindColumns}
			for i, k := range kinds {
				crd := crdColumns(crds[k.Key()])
				policies := "-"
				if counts != nil {
					policies = strconv.Itoa(counts[k.Key()])
				}
				t.Rows = append(t.Rows, metav1.TableRow{
					Cells: []any{k.Kind, dash(k.Group), string(k.Class), strconv.FormatBool(k.Managed),
						kindNames(targetKindsOf(k)), effectiveNames(k), k.Default.String(), k.Source,
						crd[0], crd[1], crd[2], crd[3], dash(k.ControllerName), policies},
					Object: runtime.RawExtension{Object: objects[i]},
				})
			}
			return printWith(s, func(w io.Writer) error { return printer.PrintTable(w, t, l.tableOptions()) })
		},
	}
	f.bind(c)
	l.bind(c)
	c.Flags().BoolVar(&catalogue, "builtin", false, "list the built-in catalogue instead of reading an input")
	return c
}

// kindColumns are the columns of `strata kinds`.
var kindColumns = []metav1.TableColumnDefinition{
	{Name: "Kind", Type: "string"},
	{Name: "Group", Type: "string"},
	{Name: "Class", Type: "string"},
	{Name: "Managed", Type: "string"},
	{Name: "Targets", Type: "string"},
	{Name: "Effective Targets", Type: "string"},
	{Name: "Default", Type: "string"},
	{Name: "Source", Type: "string"},
	// -o wide: the kind's CRD in the input, its controller and its policy count.
	{Name: "CRD", Type: "string", Priority: 1},
	{Name: "Version", Type: "string", Priority: 1},
	{Name: "Scope", Type: "string", Priority: 1},
	{Name: "Short Names", Type: "string", Priority: 1},
	{Name: "Controller", Type: "string", Priority: 1},
	{Name: "Policies", Type: "string", Priority: 1},
}

// kindCRDs are the CRDs read, by the group and kind they serve.
func kindCRDs(lists ...[]*unstructured.Unstructured) map[schema.GroupKind]*unstructured.Unstructured {
	out := map[schema.GroupKind]*unstructured.Unstructured{}
	for _, l := range lists {
		for _, crd := range l {
			g, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
			k, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "kind")
			out[schema.GroupKind{Group: g, Kind: k}] = crd
		}
	}
	return out
}

// crdColumns are a CRD's name, storage version, scope and short names.
func crdColumns(crd *unstructured.Unstructured) [4]string {
	if crd == nil {
		return [4]string{"-", "-", "-", "-"}
	}
	version := "-"
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		if m, ok := v.(map[string]any); ok && m["storage"] == true {
			version, _ = m["name"].(string)
		}
	}
	scope, _, _ := unstructured.NestedString(crd.Object, "spec", "scope")
	short, _, _ := unstructured.NestedStringSlice(crd.Object, "spec", "names", "shortNames")
	return [4]string{crd.GetName(), version, dash(scope), dash(strings.Join(short, ","))}
}

// kindItems are declarations as the items of a List.
func kindItems(decls []policykind.Declaration) []any {
	items := make([]any, len(decls))
	for i, d := range decls {
		items[i] = d
	}
	return items
}

// kindDeclarations are the kinds as PolicyKind objects, annotated with their source.
func kindDeclarations(kinds []*policykind.Kind) []policykind.Declaration {
	out := make([]policykind.Declaration, 0, len(kinds))
	for _, k := range kinds {
		d := policykind.Declaration{
			TypeMeta: metav1.TypeMeta{APIVersion: policykind.Group + "/" + policykind.Version, Kind: policykind.KindName},
			ObjectMeta: metav1.ObjectMeta{
				Name:        query.Resource(k) + "." + k.Group,
				Labels:      k.Labels,
				Annotations: map[string]string{SourceAnnotation: k.Source},
			},
			Spec: k.Spec,
		}
		out = append(out, d)
	}
	return out
}

func targetKindsOf(k *policykind.Kind) []schema.GroupKind {
	var out []schema.GroupKind
	for _, gk := range k.TargetKinds {
		out = append(out, schema.GroupKind{Group: gk.Group, Kind: gk.Kind})
	}
	return out
}

// kindNames writes kinds as a person reads them; "any" for none.
func kindNames(gks []schema.GroupKind) string {
	if len(gks) == 0 {
		return "any"
	}
	var names []string
	for _, gk := range gks {
		switch gk.Group {
		case "", "gateway.networking.k8s.io":
			names = append(names, gk.Kind)
		default:
			names = append(names, gk.Kind+"."+gk.Group)
		}
	}
	return strings.Join(names, ",")
}

// effectiveNames are the effective target kinds, or "= targets".
func effectiveNames(k *policykind.Kind) string {
	if len(k.EffectiveKinds()) == 0 {
		return "= targets"
	}
	return kindNames(k.EffectiveKinds())
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
