// Package thp asks Linux for transparent huge pages for the heap a
// one-shot command is about to fill.
//
// A strata command reads a world, computes on it, prints and exits. On the
// 20,000-route world `strata status` fills about 400 MB of heap once, and
// since Go 1.21.4 the runtime asks for no huge pages for its heap
// (golang/go#61718, #64342: in long-running servers the advice let
// allocations stall on the kernel's compaction). Where the kernel's THP
// mode is `madvise`, as on this project's CI machines, that heap is then
// 95,000 pages of 4 KiB, each faulted in on first touch and each a TLB
// entry: 0.6-0.8 s of system time and about 0.7 s of user time of a 1.5 s
// run on a virtual machine (docs/performance.md, "Every command, ninth
// pass"). The JVM's -XX:+UseTransparentHugePages gives its heap the same
// advice.
//
// Reserve allocates a block as large as the heap is expected to grow (in
// pieces of 4 MiB), advises MADV_HUGEPAGE on it and lets the collector
// free it at once. The advice belongs to the address range, not to the
// block: the runtime's page allocator hands out the lowest free pages
// first, so the objects the command allocates next fill the block's
// range, and each 2 MiB of it is one fault and one TLB entry. Nothing of
// the block is touched, so a block larger than what is used costs address
// space only. Only a process that has just started gains: in one that
// has used its memory, the pages are touched already.
//
// The gain depends on where the kernel finds its huge pages. On a virtual
// machine that reports free memory to its host, a 2 MiB page freed a
// moment ago costs 0.3 ms to fault in, one freed seconds ago (reported,
// and discarded by the host) 3-4 ms, against about 1.5 ms for the same
// memory in small pages either way: a command run right after another
// is 0.13-0.30 s faster with the advice, one run after a pause 0.05-0.24
// s slower (docs/performance.md, "Every command, twentieth pass"). Env
// turns it off for the second kind of use.
package thp

import (
	"cmp"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"sync/atomic"
	"unsafe"
)

// Env is the environment variable that turns the advice off
// (STRATA_THP=off), for a host where faulting huge pages in stalls on
// compaction or on the host behind a virtual machine.
const Env = "STRATA_THP"

const (
	// minInput is the smallest input worth a reservation: its heap is
	// about 30 MB, a few thousand small pages.
	minInput = 1 << 20
	// perInputByte is how much heap a byte of input is expected to
	// become, at most: 26 for the performance world's YAML (15 MB read,
	// 395 MB of RSS for `status`, 424 MB for `effective`), 8 for the
	// same world as an indented JSON List (46 MB). Reserving too much
	// costs address space; too little leaves the rest of the heap in
	// small pages.
	perInputByte = 32
	// maxReserve bounds the block whatever the input.
	maxReserve = 1 << 30
)

// reserved says the process has reserved its block: the heap is the
// process's, and a second block would be made of the first one's pages,
// already touched, which the advice does not turn into huge pages.
var reserved atomic.Bool

// Reserve readies the heap for a command about to read input bytes, once
// a process, when the kernel gives huge pages only where asked (its mode
// is madvise), STRATA_THP is not off and the process holds little
// memory yet (it has just started). It reports whether it did.
func Reserve(input int64) bool {
	n := size(input, debug.SetMemoryLimit(-1), mode(), os.Getenv(Env))
	if n == 0 || held() > freshHeap || !reserved.CompareAndSwap(false, true) {
		return false
	}
	_, err := reserve(n)
	return err == nil
}

// size is the block to reserve for input bytes under the memory limit,
// the kernel's THP mode and the value of Env; 0 is none. Half the limit
// at most: the block's pages, freed, still count against it until the
// runtime returns them.
func size(input, limit int64, mode, env string) int64 {
	if strings.EqualFold(env, "off") || mode != "madvise" || input < minInput {
		return 0
	}
	return min(input*perInputByte, maxReserve, limit/2)
}

// freshHeap is the most memory a process may hold from the system for
// Reserve to work: a command's process holds about 20 MB when it reads
// its input. A process that has held more has freed pages, touched in
// small pages, which the runtime zeroes when it hands them out again,
// and dead objects it has not swept yet: a block laid over them (a
// benchmark's process, between two commands) cost a second of clearing,
// for pages the advice no longer changes.
const freshHeap = 64 << 20

// held is how much memory the runtime holds from the system: heap, free
// or not, stacks and its own.
func held() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// piece is the size of the block's parts, the runtime's unit of heap
// growth. One object of the whole size would be zeroed whole, touching
// every page small, if it began on a freed page; parts that land on freed
// pages are zeroed alone, and the others are fresh memory, which the
// runtime does not clear.
const piece = 4 << 20

// reserve allocates n bytes in pieces, advises huge pages on them and
// collects them; it returns the advised ranges, which the heap reuses.
// The collector is off while the pieces are allocated: the heap growing
// from a few megabytes to n started three collections of a heap with
// nothing to collect, and with them the reservation took 13-18 ms of a
// command's start instead of 7-12 (docs/performance.md, "Every command,
// tenth pass"). The one collection after frees the pieces.
func reserve(n int64) ([][2]uintptr, error) {
	gc := debug.SetGCPercent(-1)
	runs, err := block(n)
	debug.SetGCPercent(gc)
	runtime.GC() // the pieces are garbage once block returns
	return runs, err
}

// block allocates the pieces and advises the runs they make; the pieces
// are unreachable once it returns.
func block(n int64) (runs [][2]uintptr, err error) {
	parts := make([][]byte, 0, (n+piece-1)/piece)
	for ; n > 0; n -= piece {
		parts = append(parts, make([]byte, min(n, piece)))
	}
	runs = make([][2]uintptr, 0, len(parts))
	for _, p := range parts {
		runs = append(runs, [2]uintptr{uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p))})
	}
	runs = joined(runs)
	for _, r := range runs {
		if e := advise(r[0], r[1]-r[0]); e != nil && err == nil {
			err = e
		}
	}
	runtime.KeepAlive(parts)
	return runs, err
}

// joined turns pieces (start, length) into the runs [start, end) they
// make, sorted, with the gaps of less than a piece between them: the
// pages of an object the runtime placed between two pieces while
// allocating them, which are heap too and which the heap's later objects
// span (in a test, an 8 MiB object over a 32 KiB gap). A gap that small
// lies within the runtime's arenas, which it reserves 64 MiB at a time.
func joined(pieces [][2]uintptr) [][2]uintptr {
	slices.SortFunc(pieces, func(a, b [2]uintptr) int { return cmp.Compare(a[0], b[0]) })
	var runs [][2]uintptr
	for _, p := range pieces {
		if k := len(runs) - 1; k >= 0 && p[0] >= runs[k][1] && p[0]-runs[k][1] < piece {
			runs[k][1] = max(runs[k][1], p[0]+p[1])
			continue
		}
		runs = append(runs, [2]uintptr{p[0], p[0] + p[1]})
	}
	return runs
}

// mode is the kernel's THP mode ("always", "madvise", "never"), the
// bracketed word of /sys/kernel/mm/transparent_hugepage/enabled; "" when
// it cannot be read.
func mode() string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return ""
	}
	return selected(string(b))
}

// selected is the bracketed word of a sysfs choice ("always [madvise]
// never" is madvise).
func selected(s string) string {
	_, after, ok := strings.Cut(s, "[")
	if !ok {
		return ""
	}
	word, _, ok := strings.Cut(after, "]")
	if !ok {
		return ""
	}
	return word
}
