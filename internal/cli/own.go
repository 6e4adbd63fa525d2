package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// ownCommands makes cobra's own commands and unknown commands answer as Strata's do.
func ownCommands(root *cobra.Command) {
	// The root runs so that its arguments are validated here, not by cobra.
	root.Args = func(c *cobra.Command, args []string) error {
		if len(args) > 0 {
			return unknownCommand(c, args[0])
		}
		return nil
	}
	root.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	// A runnable root would get the usage line "strata [flags]" too.
	root.SetUsageTemplate(strings.Replace(root.UsageTemplate(), "Usage:{{if .Runnable}}", "Usage:{{if and .Runnable .HasParent}}", 1))

	root.SetHelpCommand(&cobra.Command{
		Use:   "help [COMMAND...]",
		Short: "Help about any command",
		Long:  "Prints the help of a command: help describe, help get policies.",
		Example: `  strata help describe
  strata help get policies`,
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := root.Find(args)
			if err != nil || len(rest) > 0 && cmd.HasSubCommands() {
				parent, name := root, args[0]
				if cmd != nil && len(rest) > 0 {
					parent, name = cmd, rest[0]
				}
				return unknownCommand(parent, name)
			}
			cmd.InitDefaultHelpFlag()
			cmd.InitDefaultVersionFlag()
			return cmd.Help()
		},
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			cmd, _, err := root.Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
	})

	root.InitDefaultCompletionCmd("completion")
	for _, comp := range root.Commands() {
		if comp.Name() != "completion" {
			continue
		}
		var shells []string
		for _, sh := range comp.Commands() {
			shells = append(shells, sh.Name())
			sh.Args = arity(0, 0)
			sh.Example = fmt.Sprintf("  strata completion %s > strata.%s", sh.Name(), sh.Name())
		}
		comp.Use = "completion SHELL"
		comp.Example = "  strata completion bash > /etc/bash_completion.d/strata"
		comp.Args = func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return withExample(c, fmt.Sprintf("strata completion: unknown shell %q: one of %s", args[0], strings.Join(shells, ", ")))
			}
			return nil
		}
		comp.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	}
}

// unknownCommand is the error for a command name parent does not have.
func unknownCommand(parent *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, parent.CommandPath())
	if parent.SuggestionsMinimumDistance <= 0 {
		parent.SuggestionsMinimumDistance = 2 // cobra's default, which it sets only on its own path
	}
	if s := parent.SuggestionsFor(name); len(s) > 0 {
		msg += fmt.Sprintf(": did you mean %q?", s[0])
	}
	return fmt.Errorf("%s (%s --help lists the commands)", msg, parent.CommandPath())
}
