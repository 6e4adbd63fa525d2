package thp

import (
	"math"
	"runtime"
	"slices"
	"testing"
)

func TestSelected(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"always [madvise] never\n", "madvise"},
		{"[always] madvise never\n", "always"},
		{"always madvise [never]\n", "never"},
		{"always madvise never\n", ""},
		{"[always", ""},
		{"", ""},
	} {
		if got := selected(c.in); got != c.want {
			t.Errorf("selected(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSize(t *testing.T) {
	const limit = 1664 << 20 // the CLI's commandMemoryLimit
	for _, c := range []struct {
		name         string
		input, limit int64
		mode, env    string
		want         int64
	}{
		{"performance world", 15 << 20, limit, "madvise", "", 480 << 20},
		{"the JSON List of it: half the limit", 46 << 20, limit, "madvise", "", limit / 2},
		{"no limit: a gibibyte at most", 256 << 20, math.MaxInt64, "madvise", "", 1 << 30},
		{"a small limit", 15 << 20, 100 << 20, "madvise", "", 50 << 20},
		{"just large enough", 1 << 20, limit, "madvise", "", 32 << 20},
		{"too small to pay", 1<<20 - 1, limit, "madvise", "", 0},
		{"kernel gives them unasked", 15 << 20, limit, "always", "", 0},
		{"kernel gives none", 15 << 20, limit, "never", "", 0},
		{"mode unreadable", 15 << 20, limit, "", "", 0},
		{"turned off", 15 << 20, limit, "madvise", "off", 0},
		{"turned off, any case", 15 << 20, limit, "madvise", "OFF", 0},
		{"another value is the default", 15 << 20, limit, "madvise", "on", 480 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := size(c.input, c.limit, c.mode, c.env); got != c.want {
				t.Errorf("size = %d, want %d", got, c.want)
			}
		})
	}
}

// TestHeldCountsWhatWasUsed: memory a process used, dead or freed, counts,
// so Reserve leaves a process that is no longer fresh alone.
func TestHeldCountsWhatWasUsed(t *testing.T) {
	parts := make([][]byte, 32)
	for i := range parts {
		parts[i] = make([]byte, 4<<20)
	}
	runtime.KeepAlive(parts)
	parts = nil
	if got := held(); got < 128<<20 {
		t.Errorf("held() = %d MiB with 128 MiB of dead objects, want at least 128", got>>20)
	}
	runtime.GC()
	if got := held(); got < 128<<20 {
		t.Errorf("held() = %d MiB after freeing 128 MiB, want at least 128", got>>20)
	}
}

func TestJoined(t *testing.T) {
	const m = 1 << 20
	for _, c := range []struct {
		name   string
		pieces [][2]uintptr // start, length
		want   [][2]uintptr // start, end
	}{
		{"one", [][2]uintptr{{8 * m, 4 * m}}, [][2]uintptr{{8 * m, 12 * m}}},
		{"adjacent, unsorted", [][2]uintptr{{12 * m, 4 * m}, {8 * m, 4 * m}}, [][2]uintptr{{8 * m, 16 * m}}},
		{"a small gap is joined", [][2]uintptr{{8 * m, 4 * m}, {12*m + 32<<10, 4 * m}}, [][2]uintptr{{8 * m, 16*m + 32<<10}}},
		{"a piece's gap is not", [][2]uintptr{{8 * m, 4 * m}, {16 * m, 4 * m}}, [][2]uintptr{{8 * m, 12 * m}, {16 * m, 20 * m}}},
		{"a short last piece", [][2]uintptr{{8 * m, 4 * m}, {12 * m, m}}, [][2]uintptr{{8 * m, 13 * m}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := joined(c.pieces); !slices.Equal(got, c.want) {
				t.Errorf("joined = %#x, want %#x", got, c.want)
			}
		})
	}
}
