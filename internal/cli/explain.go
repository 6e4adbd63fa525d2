package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/strata-dev/strata/pkg/blueprint"
	"github.com/strata-dev/strata/pkg/query"
)

func newExplain(s Streams) *cobra.Command { return newExplainScoped(s, true) }

// newExplainScoped is explain; scoped false makes it run the complete engine, for tests to compare.
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
			f.answersFromRecords = true
			res, err := f.loadScopedIf(s, scoped && !f.allNamespaces, subjectScope(&f, arg, ns))
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
			x, err := query.RunExplain(res, query.ExplainRequest{Node: subj.Node, Arg: arg, Field: ptr, Kind: kind, KindAlias: f.kindAlias}, f.seen, f.published)
			if err != nil {
				return err
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
			out := policyKindsOf(f)
			if blueprintsIn(f) {
				out = append(out, strings.ToLower(blueprint.ValuesKind))
			}
			return prefixed(out, toComplete), cobra.ShellCompDirectiveNoFileComp
		}
	})
	return c
}
