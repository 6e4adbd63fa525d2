package thp

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestReserveAdvisesTheHeapThatFollows checks both halves of the trick:
// the block's range carries the advice (VmFlags "hg" in smaps) after the
// block is collected, and the heap's next large object is placed in it.
// It fails if the runtime stops reusing a freed block's pages first, which
// would leave Reserve advising memory nobody uses. It runs in a process
// of its own, as Reserve does at a command's start: in this one, earlier
// tests (or -count) may have left free runs of pages below the block,
// which the next object would take first.
func TestReserveAdvisesTheHeapThatFollows(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestReserveAdvisesTheHeapThatFollows$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), childEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v in a fresh process:\n%s", err, out)
		}
		if strings.Contains(string(out), "--- SKIP") {
			t.Skipf("in a fresh process:\n%s", out)
		}
		return
	}
	runs, err := reserve(64 << 20)
	if errors.Is(err, unix.EINVAL) {
		t.Skip("kernel built without transparent huge pages")
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range runs {
		flags, err := vmFlags(s[0], s[1])
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range flags {
			if !strings.Contains(" "+f+" ", " hg ") {
				t.Errorf("run [%#x, %#x): a mapping's VmFlags are %q, without hg", s[0], s[1], f)
			}
		}
	}
	if len(runs) != 1 || runs[0][1]-runs[0][0] < 64<<20 {
		t.Errorf("16 pieces of 4 MiB in a fresh heap make runs %#x, want one of 64 MiB or a little more", runs)
	}
	next := make([]byte, 8<<20)
	at := uintptr(unsafe.Pointer(unsafe.SliceData(next)))
	if !covered(runs, at, at+uintptr(len(next))) {
		t.Errorf("the next 8 MiB object [%#x, %#x) is outside the advised runs %#x", at, at+uintptr(len(next)), runs)
	}
}

// covered reports whether spans cover [lo, hi).
func covered(spans [][2]uintptr, lo, hi uintptr) bool {
	spans = slices.Clone(spans)
	slices.SortFunc(spans, func(a, b [2]uintptr) int { return cmp.Compare(a[0], b[0]) })
	for _, s := range spans {
		if s[0] <= lo && lo < s[1] {
			lo = s[1]
		}
	}
	return lo >= hi
}

// childEnv marks the process TestReserveAdvisesTheHeapThatFollows runs
// its checks in.
const childEnv = "STRATA_THP_TEST_CHILD"

// vmFlags are the VmFlags lines of the mappings that cover [lo, hi) in
// /proc/self/smaps; an error if some of the range is not mapped.
func vmFlags(lo, hi uintptr) ([]string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	covered, in := lo, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var from, to uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &from, &to); n == 2 && strings.Contains(line, " ") {
			in = from < hi && to > lo
			if in && from <= covered {
				covered = max(covered, to)
			}
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			out = append(out, strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if covered < hi {
		return nil, fmt.Errorf("[%#x, %#x) is mapped only up to %#x", lo, hi, covered)
	}
	return out, nil
}
