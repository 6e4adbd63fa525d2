// Command strata answers GEP-713 questions about Gateway API policies:
// which policies affect an object, what settings they put in force, and
// the status a policy controller should write. Installed as kubectl-strata
// it is also a kubectl plugin.
package main

import (
	"os"

	"github.com/strata-dev/strata/internal/cli"
)

func main() { os.Exit(cli.Run()) }
