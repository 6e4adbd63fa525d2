package gcpace

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// gogc is the process's GOGC (set back at once).
func gogc() int {
	g := debug.SetGCPercent(100)
	debug.SetGCPercent(g)
	return g
}

// withGOGC runs the test under GOGC g and puts the test binary's back.
func withGOGC(t *testing.T, g int) {
	t.Helper()
	old := debug.SetGCPercent(g)
	t.Cleanup(func() { debug.SetGCPercent(old) })
}

// sink keeps the last allocation reachable, so that allocate's garbage is
// not optimized away.
var sink []byte

// allocate makes garbage, a mebibyte at a time, until done is closed; it
// fails after limit mebibytes. It waits on the hold's release, not on a
// time: the collection that releases comes when the heap reaches its
// goal, however slow the machine.
func allocate(t *testing.T, done <-chan struct{}, limit int) {
	t.Helper()
	for i := range limit {
		select {
		case <-done:
			return
		default:
		}
		sink = make([]byte, 1<<20)
		if i%64 == 0 {
			runtime.Gosched() // let the cleanup goroutine run
		}
	}
	t.Fatalf("no release after %d MiB of garbage", limit)
}

func TestCollectionReleases(t *testing.T) {
	withGOGC(t, 400)
	runtime.GC()
	h := hold(64 << 20)
	if h == nil {
		t.Fatal("hold(64 MiB) left GOGC as it was")
	}
	if g := gogc(); g <= 400 {
		t.Fatalf("GOGC while held = %d, want above 400", g)
	}
	allocate(t, h.released, 4096)
	if g := gogc(); g != 400 {
		t.Errorf("GOGC after the first collection = %d, want 400 back", g)
	}
	h.release() // a second end changes nothing
	if g := gogc(); g != 400 {
		t.Errorf("GOGC after release = %d, want 400", g)
	}
}

// holdAt400 runs the test under GOGC 400, a command's, and holds its
// first collection back until first bytes; it fails the test when hold
// leaves GOGC as it was.
func holdAt400(t *testing.T, first uint64) *held {
	t.Helper()
	withGOGC(t, 400)
	h := hold(first)
	if h == nil {
		t.Fatalf("hold(%d MiB) left GOGC 400 as it was", first>>20)
	}
	return h
}

func TestForcedCollectionDoesNotRelease(t *testing.T) {
	h := holdAt400(t, 1<<40)
	defer h.release()
	held := gogc()
	if forceUntilCleanup(t, h) {
		t.Fatal("a forced collection ended the hold")
	}
	if g := gogc(); g != held {
		t.Errorf("GOGC after forced collections = %d, want %d (held)", g, held)
	}
	h.release()
	if g := gogc(); g != 400 {
		t.Errorf("GOGC after release = %d, want 400", g)
	}
}

func TestReleaseBeforeCollection(t *testing.T) {
	h := holdAt400(t, 1<<40)
	h.release()
	h.release()
	if g := gogc(); g != 400 {
		t.Errorf("GOGC after release = %d, want 400", g)
	}
	// The sentinel's cleanup, after the release, changes nothing.
	debug.SetGCPercent(250)
	forceUntilCleanup(t, h)
	if g := gogc(); g != 250 {
		t.Errorf("GOGC = %d after a cleanup that came after release, want 250 (left alone)", g)
	}
}

// forceUntilCleanup forces collections until a sentinel's cleanup has
// run for h, counted, not timed, and reports whether the hold has ended.
func forceUntilCleanup(t *testing.T, h *held) (done bool) {
	t.Helper()
	for range 1000 {
		runtime.GC()
		runtime.Gosched()
		h.mu.Lock()
		cleanups, done := h.cleanups, h.done
		h.mu.Unlock()
		if cleanups > 0 {
			return done
		}
	}
	t.Fatal("no sentinel's cleanup ran in 1,000 forced collections")
	return false
}

func TestHoldLeavesAlone(t *testing.T) {
	for _, c := range []struct {
		name  string
		gogc  int
		first uint64
	}{
		{"collector off", -1, 1 << 30},
		{"already late enough", 1 << 20, 64 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			withGOGC(t, c.gogc)
			if h := hold(c.first); h != nil {
				h.release()
				t.Fatalf("hold changed GOGC %d", c.gogc)
			}
			if g := gogc(); g != c.gogc {
				t.Errorf("GOGC = %d, want %d", g, c.gogc)
			}
			Hold(c.first)() // the no-op release
			if g := gogc(); g != c.gogc {
				t.Errorf("GOGC after release = %d, want %d", g, c.gogc)
			}
		})
	}
}
