package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// arity checks a command's number of arguments and, when it is wrong,
// says what the command takes and shows its first example, instead of
// cobra's "accepts 1 arg(s), received 2": `strata describe takes
// (KIND/NAME | KIND NAME | KIND [-l SELECTOR]), not 3 arguments (a b c);
// e.g. strata describe httproute/baker -n baker -f examples/parable/`.
// The arguments a command takes are the words of its Use line after the
// command's name.
func arity(minArgs, maxArgs int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) >= minArgs && len(args) <= maxArgs {
			return nil
		}
		takes := strings.TrimSpace(strings.TrimPrefix(c.Use, c.Name()))
		what := "no arguments"
		if maxArgs > 0 {
			what = takes
		}
		got := "none"
		if len(args) > 0 {
			got = fmt.Sprintf("%d (%s)", len(args), strings.Join(args, " "))
			if len(args) == 1 {
				got = fmt.Sprintf("%q", args[0])
			}
		}
		msg := fmt.Sprintf("%s takes %s, got %s", c.CommandPath(), what, got)
		if ex := firstExample(c); ex != "" {
			msg += "; e.g. " + ex
		}
		return fmt.Errorf("%s", msg)
	}
}

// firstExample is the first line of a command's examples.
func firstExample(c *cobra.Command) string {
	line, _, _ := strings.Cut(strings.TrimSpace(c.Example), "\n")
	return strings.TrimSpace(line)
}
