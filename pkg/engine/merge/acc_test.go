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
	keys := []string{"a", "b", "c", "x/y", "t~"}
	srcs := make([]*testSource, 6)
	for i := range srcs {
		srcs[i] = &testSource{Name: fmt.Sprintf("p%d", i)}
	}
	// Half the seeds have no nulls, so that values stay in normal form
	// and AtomicDefaults grafts in place.
	nulls := false
	var value func(r *rand.Rand, depth int) map[string]any
	value = func(r *rand.Rand, depth int) map[string]any {
		m := map[string]any{}
		for range r.IntN(4) {
			k := keys[r.IntN(len(keys))]
			switch x := r.IntN(6); {
			case x == 0 && nulls:
				m[k] = nil
			case x == 1 && depth < 3:
				m[k] = value(r, depth+1)
			case x == 2:
				m[k] = []any{"l", int64(r.IntN(3))}
			default:
				m[k] = fmt.Sprintf("v%d", r.IntN(3))
			}
		}
		return m
	}
	for seed := range uint64(3000) {
		r := rand.New(rand.NewPCG(seed, 1))
		nulls = seed%2 == 0
		ref := Of(value(r, 0), srcs[0])
		acc := NewAcc(ref)
		locked := map[string]bool{}
		locks := NewLocks()
		for step := range 12 {
			m := Of(value(r, 0), srcs[r.IntN(len(srcs))])
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
			// Lock some pointers of one source, as an overrides block does.
			if r.IntN(2) == 0 {
				s := srcs[r.IntN(len(srcs))]
				ptrs := make([]string, 0, len(ref.Prov))
				for p, q := range ref.Prov {
					if q == s {
						ptrs = append(ptrs, p)
					}
				}
				sort.Strings(ptrs)
				for _, p := range ptrs {
					locked[p] = true
					locks.Lock(acc, p)
				}
			}
			got := acc.Value()
			if !reflect.DeepEqual(got.Values, ref.Values) || !reflect.DeepEqual(got.Prov, ref.Prov) {
				t.Fatalf("seed %d step %d op %d: in place\n%v\n%v\nimmutable\n%v\n%v", seed, step, op, got.Values, got.Prov, ref.Values, ref.Prov)
			}
		}
	}
}

// testSource is an opaque Source for the tests of this package.
type testSource struct{ Name string }

func (s *testSource) ID() string { return s.Name }
