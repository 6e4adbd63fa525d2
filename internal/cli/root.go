// Package cli is the strata command line: cobra commands that read a
// source, run the engine and hand the result to a printer.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Streams are the command's input and outputs, injectable for tests.
type Streams struct {
	In       io.Reader
	Out, Err io.Writer
}

// NewRoot builds the strata command, also a kubectl plugin as kubectl-strata.
func NewRoot(s Streams) *cobra.Command {
	root := &cobra.Command{
		Use:           "strata",
		Short:         "Gateway API policy attachment (GEP-713): effective policies and status",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.Version = versionOf(debug.ReadBuildInfo()).String()
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	root.AddCommand(newStatus(s), newEffective(s), newController(s), newDescribe(s), newExplain(s), newGet(s), newImpact(s), newDiff(s), newGraph(s), newRender(s), newCheck(s), newSimulate(s), newKinds(s), newServe(s), newVersion(s))
	ownCommands(root)
	return root
}

// Main runs the command line and returns the exit code: 0, or 1 with one line on stderr.
func Main(args []string, s Streams) int { return MainContext(context.Background(), args, s) }

// MainContext is Main with a context: long-running commands end when ctx does.
func MainContext(ctx context.Context, args []string, s Streams) int {
	root := NewRoot(s)
	root.SetContext(ctx)
	root.SetArgs(args)
	if c, _, err := root.Find(args); err == nil && c.Name() != "controller" {
		if os.Getenv("GOGC") == "" {
			defer debug.SetGCPercent(debug.SetGCPercent(commandGCPercent))
		}
		if os.Getenv("GOMEMLIMIT") == "" {
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(commandMemoryLimit))
		}
	}
	if err := root.Execute(); err != nil {
		msg := strings.ReplaceAll(err.Error(), "\n", "; ")
		fmt.Fprintf(s.Err, "error: %s\n", msg)
		return 1
	}
	return 0
}

// commandGCPercent is the garbage collector's GOGC while a command other than the controller runs.
const commandGCPercent = 400

// commandMemoryLimit is the soft memory limit of a command other than the controller (issue 11).
const commandMemoryLimit = 1664 << 20

// Run is Main for the real process.
func Run() int {
	return MainContext(context.Background(), os.Args[1:], Streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
}
