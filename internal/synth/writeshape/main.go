// Command writeshape writes a shape of internal/synth as YAML on stdout,
// so that the built strata binary can be measured on it, or the
// performance world at a scale (`world 1`: 20,000 HTTPRoutes and 5,000
// policies, the file BenchmarkEveryCommand reads):
//
//	go run ./internal/synth/writeshape routes 100000 > routes-100000.yaml
//	go run ./internal/synth/writeshape world 1 > world.yaml
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"

	"github.com/strata-dev/strata/internal/synth"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "writeshape:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: writeshape SHAPE N (shapes: %v), or writeshape world SCALE", synth.Shapes())
	}
	n, err := strconv.Atoi(args[1])
	if err != nil {
		return fmt.Errorf("size %q: %w", args[1], err)
	}
	w := bufio.NewWriter(os.Stdout)
	if args[0] == "world" {
		if err := synth.WriteYAML(w, synth.Snapshot(n, 1)); err != nil {
			return err
		}
		return w.Flush()
	}
	if err := synth.WriteShapeYAML(w, synth.Shape(args[0]), n); err != nil {
		return err
	}
	return w.Flush()
}
