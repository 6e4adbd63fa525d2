package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// arity checks a command's number of arguments, saying what it takes and its first example.
func arity(minArgs, maxArgs int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) < minArgs || len(args) > maxArgs {
			return wrongArgs(c, args, maxArgs)
		}
		var missing []string
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if req := f.Annotations[cobra.BashCompOneRequiredFlag]; len(req) > 0 && req[0] == "true" && !f.Changed {
				missing = append(missing, "--"+f.Name)
			}
		})
		if len(missing) > 0 {
			return needs(c, strings.Join(missing, " and "))
		}
		return nil
	}
}

// wrongArgs is arity's error for args, to a command that takes at most maxArgs.
func wrongArgs(c *cobra.Command, args []string, maxArgs int) error {
	what := "no arguments"
	if maxArgs > 0 {
		what = takes(c)
	}
	got := "none"
	if len(args) > 0 {
		got = fmt.Sprintf("%d (%s)", len(args), strings.Join(args, " "))
		if len(args) == 1 {
			got = fmt.Sprintf("%q", args[0])
		}
	}
	return withExample(c, fmt.Sprintf("%s takes %s, got %s", c.CommandPath(), what, got))
}

// needs is the error for a command line without a flag the command needs: its usage and first example.
func needs(c *cobra.Command, what string) error {
	return withExample(c, fmt.Sprintf("%s needs %s: %s %s", c.CommandPath(), what, c.CommandPath(), takes(c)))
}

// takes is what a command takes: the words of its Use line after its name.
func takes(c *cobra.Command) string {
	return strings.TrimSpace(strings.TrimPrefix(c.Use, c.Name()))
}

// withExample is msg followed by the command's first example.
func withExample(c *cobra.Command, msg string) error {
	if ex := firstExample(c); ex != "" {
		msg += "; e.g. " + ex
	}
	return fmt.Errorf("%s", msg)
}

// firstExample is the first line of a command's examples.
func firstExample(c *cobra.Command) string {
	line, _, _ := strings.Cut(strings.TrimSpace(c.Example), "\n")
	return strings.TrimSpace(line)
}
