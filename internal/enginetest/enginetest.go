// Package enginetest runs the engine on files or YAML text for tests, so
// every package's tests read their worlds the way `strata -f` does.
package enginetest

import (
	"io"
	"strings"
	"testing"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/source/files"
)

// Run reads paths (files, directories, "-" for stdin) and runs the engine
// with default options, failing the test on any error.
func Run(tb testing.TB, stdin io.Reader, paths ...string) *engine.Result {
	tb.Helper()
	src, err := files.Read(paths, stdin)
	if err != nil {
		tb.Fatal(err)
	}
	res, err := engine.Run(src.Snapshot, engine.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// RunYAML runs the engine on YAML documents given as text.
func RunYAML(tb testing.TB, docs ...string) *engine.Result {
	tb.Helper()
	return Run(tb, strings.NewReader(strings.Join(docs, "\n---\n")), "-")
}
