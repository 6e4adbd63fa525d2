package cli

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/policykind/builtin"
	"github.com/strata-dev/strata/pkg/sink/printer"
)

// SourceAnnotation says, on a PolicyKind `strata kinds -o yaml` prints,
// where the declaration came from.
const SourceAnnotation = "strata.dev/declared-by"

func newKinds(s Streams) *cobra.Command {
	var f sourceFlags
	var format string
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

--builtin lists the whole catalogue without reading any input. -o yaml
or json prints the declarations as PolicyKind objects, defaults filled
in, annotated with their source: a starting point for a PolicyKind of
your own.`,
		Example: `  strata kinds --builtin
  strata kinds -f examples/catalogue
  strata kinds --builtin -o yaml > policykinds.yaml`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if format != "" && format != printer.YAML && format != printer.JSON {
				return fmt.Errorf("--output %q: want yaml or json", format)
			}
			var kinds []*policykind.Kind
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
					k.Source = e.Source()
					kinds = append(kinds, k)
				}
				// In the engine's order: group, then kind.
				sort.Slice(kinds, func(i, j int) bool {
					return kinds[i].Group+"/"+kinds[i].Kind < kinds[j].Group+"/"+kinds[j].Kind
				})
			} else {
				res, err := f.load(s)
				if err != nil {
					return err
				}
				kinds = res.PolicyKinds()
			}
			if format != "" {
				return print(s, kindList(kinds), format)
			}
			var buf bytes.Buffer
			tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "KIND\tGROUP\tCLASS\tMANAGED\tTARGETS\tEFFECTIVE TARGETS\tDEFAULT\tSOURCE")
			for _, k := range kinds {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%t\t%s\t%s\t%s\t%s\n", k.Kind, dash(k.Group), k.Class, k.Managed,
					kindNames(targetKindsOf(k)), effectiveNames(k), k.Default.String(), k.Source)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if len(kinds) == 0 {
				buf.Reset()
				buf.WriteString("No policy kind is declared or used by the input.\n")
			}
			_, err := s.Out.Write(buf.Bytes())
			return err
		},
	}
	f.bind(c)
	c.Flags().BoolVar(&catalogue, "builtin", false, "list the built-in catalogue instead of reading an input")
	c.Flags().StringVarP(&format, "output", "o", "", "output format: yaml or json (default: a table)")
	return c
}

// kindList is the kinds as a v1 List of PolicyKind objects.
func kindList(kinds []*policykind.Kind) map[string]any {
	items := make([]any, 0, len(kinds))
	for _, k := range kinds {
		d := policykind.Declaration{
			TypeMeta: metav1.TypeMeta{APIVersion: policykind.Group + "/" + policykind.Version, Kind: policykind.KindName},
			ObjectMeta: metav1.ObjectMeta{
				Name:        strings.ToLower(k.Kind) + "s." + k.Group,
				Annotations: map[string]string{SourceAnnotation: k.Source},
			},
			Spec: k.Spec,
		}
		items = append(items, d)
	}
	return printer.List(items)
}

func targetKindsOf(k *policykind.Kind) []schema.GroupKind {
	var out []schema.GroupKind
	for _, gk := range k.TargetKinds {
		out = append(out, schema.GroupKind{Group: gk.Group, Kind: gk.Kind})
	}
	return out
}

// kindNames writes kinds as a person reads them: Kind, or Kind.group for
// kinds outside Gateway API and the core group; "any" for none.
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

// effectiveNames are the effective target kinds, or "= targets" when the
// declared targets are their own effective targets.
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
