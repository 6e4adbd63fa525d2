package effectivepolicy

import (
	"reflect"
	"runtime"
	"testing"
)

// TestScratchRecords: a record made in a reused Scratch is the record made
// in memory of its own, in worlds whose targets have a few contexts or
// many (the two ways sortedContexts sorts), and once the Scratch has
// grown to the largest record it makes every record without allocating
// its contexts, paths or sources again.
func TestScratchRecords(t *testing.T) {
	for _, w := range contextWorlds(t) {
		sizes := w.sizes
		n, at := Indexed(w.res)
		var s Scratch
		contexts := 0
		for i := range n {
			fresh := at(i, nil)
			reused := at(i, &s)
			if !reflect.DeepEqual(fresh, reused) {
				t.Fatalf("%+v: record %d made in a Scratch differs:\n%+v\nwant\n%+v", sizes, i, reused, fresh)
			}
			for _, kp := range fresh.Policies {
				contexts += len(kp.Contexts)
			}
		}
		// Every record made again, fresh and in the grown Scratch: what
		// is left in the Scratch is what a record holds of its own (a
		// section's name) and the keys that sort many contexts.
		fresh := allocated(func() {
			for i := range n {
				at(i, nil)
			}
		})
		reused := allocated(func() {
			for i := range n {
				at(i, &s)
			}
		})
		if reused > fresh/4 {
			t.Errorf("%+v: %d records of %d contexts took %d bytes in a grown Scratch, %d fresh; want at most a quarter", sizes, n, contexts, reused, fresh)
		}
	}
}

// allocated is how many bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestScratchSlabs: cut never lets an append to one part write over the
// next one of the slab.
func TestScratchSlabs(t *testing.T) {
	s := slab([]Ref(nil), 3)
	a, b := cut(&s, 2), cut(&s, 1)
	a = append(a, Ref{Name: "a0"}, Ref{Name: "a1"})
	b = append(b, Ref{Name: "b0"})
	a = append(a, Ref{Name: "a2"}) // beyond its room: moved, b untouched
	if b[0].Name != "b0" || len(a) != 3 || a[2].Name != "a2" {
		t.Errorf("a = %v, b = %v", a, b)
	}
	if reused := slab(s, 2); cap(reused) != 3 || len(reused) != 0 {
		t.Errorf("a slab that holds 2 was not reused: len %d cap %d", len(reused), cap(reused))
	}
	if grown := slab(s, 8); cap(grown) != 10 {
		t.Errorf("a slab grown to 8 has cap %d, want 10 (a quarter more)", cap(grown))
	}
}
