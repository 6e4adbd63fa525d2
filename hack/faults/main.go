//go:build linux

// Command faults measures what the first touches of a fresh heap cost on
// this machine, and its memory latency, so that a timing in
// docs/performance.md can be read against the state the machine was in.
//
// A strata command over the performance world fills about 400 MB of heap
// once; each page of it is faulted in on first touch. With huge pages
// (internal/thp) that costs 0.15 ms a MB when the memory the kernel hands
// out was freed a moment ago, and 1.5-2 ms a MB on a virtual machine that
// has since reported it free to its host, which must fault it in again;
// with small pages about 0.7 ms a MB either way (docs/performance.md,
// "Every command, twentieth pass"). A run right after another is warm; a
// run after a pause of a few seconds is cold:
//
//	go build -o /tmp/faults ./hack/faults
//	/tmp/faults -pages huge -pause 3s   # cold
//	/tmp/faults -pages huge             # warm, right after it
//	/tmp/faults -pages small -pause 3s
//
// It maps -mb of anonymous memory, advises huge or small pages on it,
// writes one byte in each 4 KiB page, and prints the time for each tenth
// and in all; then the latency of dependent loads over 128 MB, which
// moves with the load of the VM's neighbours while a CPU-bound loop does
// not.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

func main() {
	mb := flag.Int("mb", 400, "megabytes to touch")
	pages := flag.String("pages", "huge", "huge (MADV_HUGEPAGE) or small (MADV_NOHUGEPAGE)")
	pause := flag.Duration("pause", 0, "wait this long first, for a cold measurement")
	flag.Parse()
	if err := run(*mb, *pages, *pause); err != nil {
		fmt.Fprintln(os.Stderr, "faults:", err)
		os.Exit(1)
	}
}

func run(mb int, pages string, pause time.Duration) error {
	advice := map[string]int{"huge": unix.MADV_HUGEPAGE, "small": unix.MADV_NOHUGEPAGE}
	adv, ok := advice[pages]
	if !ok || mb < 10 {
		return fmt.Errorf("-pages %q -mb %d: want huge or small, and 10 MB or more", pages, mb)
	}
	time.Sleep(pause)
	const huge = 2 << 20
	m, err := unix.Mmap(-1, 0, mb<<20+huge, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return fmt.Errorf("map %d MB: %w", mb, err)
	}
	defer unix.Munmap(m)
	// From a huge page's boundary, so that every 2 MiB can be one page.
	m = m[(huge-int(uintptrOf(m))%huge)%huge:][:mb<<20]
	if err := unix.Madvise(m, adv); err != nil {
		return fmt.Errorf("madvise: %w", err)
	}
	tenth := len(m) / 10 / 4096 * 4096
	var parts []string
	start := time.Now()
	for from := 0; from+tenth <= len(m); from += tenth {
		t := time.Now()
		for i := from; i < from+tenth; i += 4096 {
			m[i] = 1
		}
		parts = append(parts, time.Since(t).Round(time.Millisecond).String())
	}
	all := time.Since(start)
	fmt.Printf("%s pages: %d MB in %v, %.2f ms a MB (each tenth: %s)\n", pages, mb, all.Round(time.Millisecond), float64(all.Microseconds())/1000/float64(mb), strings.Join(parts, " "))
	fmt.Printf("memory latency: %.0f ns a dependent load over 128 MB\n", latency())
	return nil
}

// latency is the mean time of a load whose address the one before gave,
// over a random cycle through 128 MB (Sattolo's shuffle makes one cycle
// of all the slots): mostly cache and TLB misses.
func latency() float64 {
	const n = 32 << 20 // uint32s
	next := make([]uint32, n)
	for i := range next {
		next[i] = uint32(i)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := n - 1; i > 0; i-- {
		j := r.IntN(i)
		next[i], next[j] = next[j], next[i]
	}
	const loads = 4_000_000
	at := uint32(0)
	t := time.Now()
	for range loads {
		at = next[at]
	}
	d := time.Since(t)
	if at == ^uint32(0) { // never: keeps the loop
		fmt.Println()
	}
	return float64(d.Nanoseconds()) / loads
}

// uintptrOf is the address of b's first byte.
func uintptrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }
