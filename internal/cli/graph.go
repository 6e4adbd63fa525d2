package cli

import (
	"bytes"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/sink/printer"
	"github.com/strata-dev/strata/pkg/sink/web"
)

func newGraph(s Streams) *cobra.Command { return newGraphScoped(s, true) }

// newGraphScoped is graph; scoped false makes it run the complete engine, for tests to compare.
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
			subject := ""
			if len(args) == 1 {
				subject = args[0]
			}
			req := query.GraphRequest{Subject: subject, Format: format, Depth: depth, Namespace: f.onlyNamespace()}
			if err := req.Check(); err != nil {
				return err
			}
			sel, err := query.ParseSelector(sf.label, sf.field)
			if err != nil {
				return err
			}
			req.Select = sel

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
				err = printer.PrintDiagram(&buf, req.Diagram(res, subj.Node), format)
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
