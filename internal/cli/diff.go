package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/sink/printer"
)

func newDiff(s Streams) *cobra.Command {
	var f sourceFlags
	var against []string
	var format string
	var exitCode bool
	c := &cobra.Command{
		Use:   "diff -f BASE... --against HEAD... [-n NS | -A] [-o yaml|json|markdown] [--exit-code]",
		Short: "Show what changes in the effective policies and statuses between two file sets (a pull request's base and head)",
		Long: `Runs the engine on two inputs, the files of -f (BASE, e.g. the checkout of
a pull request's base) and those of --against (HEAD, its head), and lists
every effective target and context whose effective spec changes, field by
field, as impact does for one policy: each field's value before and after
and the policy that set it. Targets and contexts that only one side has
are marked added or removed. Policies whose status changes (one that
becomes Conflicted, Overridden or not Accepted) or that only one side has
are listed after them.

Targets and contexts are matched by their objects' locators, so the two
sides need not share anything. -o markdown writes a summary for a review
comment: one line per field changing the same way on targets of one kind
in one namespace ("/attempts 3 -> 0 on 42 HTTPRoutes in baker (set by
baker/baker-retries)"), the status changes, then every target in a
collapsed <details> block, bounded to fit a comment. There and in the
human output, targets on which the change is the same print as one
block; -o yaml and json list each.

The exit code is 0 whatever changes (the diff is informational; strata
check is the gate), unless --exit-code: then 1 when anything changes, as
git diff --exit-code.

Every namespace is compared (-A is the default); -n NS lists only the
targets in NS and the policies in NS, with the cluster-scoped ones (as
effective -n and get policies -n choose them), and --exit-code looks at
those only.`,
		Example: `  strata diff -f base/deploy/ --against head/deploy/
  strata diff -f base/deploy/ --against head/deploy/ -o markdown > comment.md
  strata diff -f base/deploy/ --against head/deploy/ --exit-code -o json
  strata diff -f base/deploy/ --against head/deploy/ -n baker`,
		Args: arity(0, 0),
		RunE: func(c *cobra.Command, _ []string) error {
			switch format {
			case "", printer.YAML, printer.JSON, printer.Markdown:
			default:
				return fmt.Errorf("--output %q: want yaml, json or markdown (or nothing, for people)", format)
			}
			if len(f.files) == 0 || len(against) == 0 {
				return needs(c, "-f BASE... (before the change) and --against HEAD... (after it)")
			}
			if slices.Contains(f.files, "-") && slices.Contains(against, "-") {
				return errors.New("-f and --against cannot both read stdin (-)")
			}
			// The head is read as the base is, with the same flags, at the same time.
			hf := f
			hf.files = against
			m, err := f.mode() // the flags are read here, before the loads
			if err != nil {
				return err
			}
			var baseNotes, headNotes bytes.Buffer
			var head *engine.Result
			var headErr error
			headRead := make(chan any, 1) // nil, or the head's panic
			go func() {
				defer func() { headRead <- recover() }()
				head, headErr = hf.loadFrom(Streams{In: s.In, Out: s.Out, Err: &linePrefix{w: &headNotes, prefix: "head: "}}, m, nil)
			}()
			base, err := f.loadFrom(Streams{In: s.In, Out: s.Out, Err: &linePrefix{w: &baseNotes, prefix: "base: "}}, m, nil)
			if p := <-headRead; p != nil {
				panic(p)
			}
			if _, werr := s.Err.Write(baseNotes.Bytes()); werr != nil {
				return werr
			}
			if err != nil {
				return fmt.Errorf("base (-f): %w", err)
			}
			if _, werr := s.Err.Write(headNotes.Bytes()); werr != nil {
				return werr
			}
			if headErr != nil {
				return fmt.Errorf("head (--against): %w", headErr)
			}
			d := query.Diff(base, head)
			if ns := f.onlyNamespace(); ns != "" {
				d = d.Within(ns)
			}
			if err := printWith(s, func(w io.Writer) error {
				return printer.PrintDiff(w, d, format, printer.Human{Color: colorful(s.Out)})
			}); err != nil {
				return err
			}
			if exitCode && !d.Empty() {
				return fmt.Errorf("changes found (--exit-code): %d effective target(s), %d policy status(es)", d.Changed.Targets, len(d.Policies))
			}
			return nil
		},
	}
	f.bind(c)
	c.Flags().Lookup("all-namespaces").Usage = "compare every namespace: the default, stated (-n NS compares one)"
	c.Flags().StringSliceVar(&against, "against", nil, "the files after the change (HEAD): files, directories (recursive) or - for stdin, read as -f reads")
	c.Flags().StringVarP(&format, "output", "o", "", "output format: yaml, json or markdown (default: human-readable)")
	c.Flags().BoolVar(&exitCode, "exit-code", false, "exit with 1 when anything changes, 0 otherwise")
	return c
}

// linePrefix writes prefix at the start of every line written to w.
type linePrefix struct {
	w      io.Writer
	prefix string
	mid    bool // the last write ended inside a line
}

func (l *linePrefix) Write(p []byte) (int, error) {
	var buf bytes.Buffer
	for _, line := range bytes.SplitAfter(p, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if !l.mid {
			buf.WriteString(l.prefix)
		}
		buf.Write(line)
		l.mid = line[len(line)-1] != '\n'
	}
	if _, err := l.w.Write(buf.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}
