//go:build !linux

// Command faults measures page faults and memory latency on Linux
// (main.go); elsewhere it says so.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "faults: Linux only (it measures madvise's huge and small pages)")
	os.Exit(1)
}
