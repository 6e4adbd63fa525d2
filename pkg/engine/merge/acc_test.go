package merge

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
)

// TestAccMatchesImmutable folds random stacks both ways, in place (Acc)
// and with Patch, Atomic and Restore on immutable Values, and requires
// the same values and sources after every step. The values are small
// over few keys so that steps collide: nulls, empty objects, scalars
// replaced by objects and back, pointers locked and later replaced.
func TestAccMatchesImmutable(t *testing.T) {
	srcs := testSources()
	for seed := range uint64(3000) {
		r := rand.New(rand.NewPCG(seed, 1))
		// Half the seeds have no nulls, so that values stay in normal
		// form and AtomicDefaults grafts in place.
		value := randomValues(r, seed%2 == 0)
		ref := Of(value(0), srcs[0])
		acc := NewAcc(ref)
		locked := map[string]bool{}
		locks := NewLocks()
		for step := range 12 {
			m := Of(value(0), srcs[r.IntN(len(srcs))])
			op := r.IntN(5)
			switch op {
			case 0, 1:
				ref = Restore(Patch(ref, m), ref, locked)
				acc.PatchDefaults(m, locks)
			case 2:
				ref = Restore(Atomic(ref, m), ref, locked)
				acc.AtomicDefaults(m, locks)
			case 3:
				ref = Patch(m, ref)
				acc.Replace(Patch(m, acc.Value()), locks)
			case 4:
				ref = m
				acc.Replace(m, locks)
			}
			for _, p := range lockSome(r, srcs, ref) {
				locked[p] = true
				locks.Lock(acc, p)
			}
			got := acc.Value()
			if !reflect.DeepEqual(got.Values, ref.Values) || !reflect.DeepEqual(got.Prov, ref.Prov) {
				t.Fatalf("seed %d step %d op %d: in place\n%v\n%v\nimmutable\n%v\n%v", seed, step, op, got.Values, got.Prov, ref.Values, ref.Prov)
			}
		}
	}
}

// TestRestoreShortcut folds random stacks as TestAccMatchesImmutable
// does and, at every defaults step under locks, requires Restore (which
// returns v itself when nothing locked would change) to equal restoreAll
// (which always copies and puts back). Both outcomes of the shortcut must
// occur often, or the comparison proves nothing.
func TestRestoreShortcut(t *testing.T) {
	srcs := testSources()
	var hits, misses int
	for seed := range uint64(3000) {
		r := rand.New(rand.NewPCG(seed, 2))
		value := randomValues(r, seed%2 == 0)
		ref := Of(value(0), srcs[0])
		locked := map[string]bool{}
		for step := range 12 {
			m := Of(value(0), srcs[r.IntN(len(srcs))])
			var v Value
			switch r.IntN(3) {
			case 0:
				v = Patch(ref, m)
			case 1:
				v = Atomic(ref, m)
			case 2:
				v = ref // a step that changed nothing
			}
			got, want := Restore(v, ref, locked), restore(v, ref, locked, nil, false)
			if len(locked) > 0 {
				if restored(v, ref, locked) {
					hits++
				} else {
					misses++
				}
			}
			if !reflect.DeepEqual(got.Values, want.Values) || !reflect.DeepEqual(got.Prov, want.Prov) {
				t.Fatalf("seed %d step %d: Restore\n%v\n%v\nrestoreAll\n%v\n%v", seed, step, got.Values, got.Prov, want.Values, want.Prov)
			}
			ref = got
			for _, p := range lockSome(r, srcs, ref) {
				locked[p] = true
			}
		}
	}
	// Values out of normal form (a source on an object that has fields,
	// as an override of an empty object leaves under a later patch):
	// Restore drops the source above or below a locked pointer.
	s1, s2 := srcs[1], srcs[2]
	odd := Value{Values: map[string]any{"a": map[string]any{"b": "v"}}, Prov: map[string]Source{"/a": s1, "/a/b": s2}}
	for _, p := range []string{"/a", "/a/b"} {
		locked := map[string]bool{p: true}
		if got, want := Restore(odd, odd, locked), restore(odd, odd, locked, nil, false); !reflect.DeepEqual(got.Prov, want.Prov) {
			t.Errorf("locked %s: Restore kept %v, restoreAll gives %v", p, got.Prov, want.Prov)
		}
	}
	if hits < 1000 || misses < 1000 {
		t.Fatalf("shortcut taken %d times, not taken %d times: the random stacks no longer exercise both", hits, misses)
	}
}

// TestPatchDefaults folds random stacks with PatchDefaults, which writes
// Patch's new maps in place, and requires after every step what
// Restore(Patch(...)) gives, and the values it started from unchanged
// (the folds of other contexts share them; CI runs this under -race,
// which also sees a write of the value a map already holds).
func TestPatchDefaults(t *testing.T) {
	srcs := testSources()
	for seed := range uint64(3000) {
		r := rand.New(rand.NewPCG(seed, 3))
		value := randomValues(r, seed%2 == 0)
		ref := Of(value(0), srcs[0])
		locked := map[string]bool{}
		for step := range 12 {
			m := Of(value(0), srcs[r.IntN(len(srcs))])
			before, mBefore := deepCopyValue(ref), deepCopyValue(m)
			// Two folds from the same values at once, as the workers of
			// one computation do: under -race, a write into a map of
			// ref or m (even of the value it holds) is reported.
			var other Value
			done := make(chan struct{})
			go func() { other = PatchDefaults(ref, m, locked); close(done) }()
			got, want := PatchDefaults(ref, m, locked), Restore(Patch(ref, m), ref, locked)
			<-done
			if !reflect.DeepEqual(other.Values, got.Values) {
				t.Fatalf("seed %d step %d: two PatchDefaults of the same values differ", seed, step)
			}
			if !reflect.DeepEqual(got.Values, want.Values) || !reflect.DeepEqual(got.Prov, want.Prov) {
				t.Fatalf("seed %d step %d: PatchDefaults\n%v\n%v\nRestore(Patch)\n%v\n%v", seed, step, got.Values, got.Prov, want.Values, want.Prov)
			}
			if !reflect.DeepEqual(before, deepCopyValue(ref)) || !reflect.DeepEqual(mBefore, deepCopyValue(m)) {
				t.Fatalf("seed %d step %d: PatchDefaults changed its arguments", seed, step)
			}
			ref = got
			for _, p := range lockSome(r, srcs, ref) {
				locked[p] = true
			}
		}
	}
}

// deepCopyValue copies a Value's maps and lists, to tell whether a step
// wrote into the values it was given.
func deepCopyValue(v Value) Value {
	var cp func(x any) any
	cp = func(x any) any {
		switch y := x.(type) {
		case map[string]any:
			out := make(map[string]any, len(y))
			for k, e := range y {
				out[k] = cp(e)
			}
			return out
		case []any:
			out := make([]any, len(y))
			for i, e := range y {
				out[i] = cp(e)
			}
			return out
		}
		return x
	}
	vals, _ := cp(v.Values).(map[string]any)
	prov := make(map[string]Source, len(v.Prov))
	for p, s := range v.Prov {
		prov[p] = s
	}
	return Value{Values: vals, Prov: prov}
}

// lockSome is, every other step, the pointers of one random source in v
// (sorted), which a fold then locks as an overrides block does.
func lockSome(r *rand.Rand, srcs []*testSource, v Value) []string {
	if r.IntN(2) != 0 {
		return nil
	}
	s := srcs[r.IntN(len(srcs))]
	ptrs := make([]string, 0, len(v.Prov))
	for p, q := range v.Prov {
		if q == s {
			ptrs = append(ptrs, p)
		}
	}
	sort.Strings(ptrs)
	return ptrs
}

// testSources are six sources p0..p5.
func testSources() []*testSource {
	srcs := make([]*testSource, 6)
	for i := range srcs {
		srcs[i] = &testSource{Name: fmt.Sprintf("p%d", i)}
	}
	return srcs
}

// randomValues makes random values, small over few keys so that steps
// collide: nulls (when nulls is true), empty objects, scalars replaced
// by objects and back, lists.
func randomValues(r *rand.Rand, nulls bool) func(depth int) map[string]any {
	keys := []string{"a", "b", "c", "x/y", "t~"}
	var value func(depth int) map[string]any
	value = func(depth int) map[string]any {
		m := map[string]any{}
		for range r.IntN(4) {
			k := keys[r.IntN(len(keys))]
			switch x := r.IntN(6); {
			case x == 0 && nulls:
				m[k] = nil
			case x == 1 && depth < 3:
				m[k] = value(depth + 1)
			case x == 2:
				m[k] = []any{"l", int64(r.IntN(3))}
			default:
				m[k] = fmt.Sprintf("v%d", r.IntN(3))
			}
		}
		return m
	}
	return value
}

// testSource is an opaque Source for the tests of this package.
type testSource struct{ Name string }

func (s *testSource) ID() string { return s.Name }
