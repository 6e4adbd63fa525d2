package printer

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"runtime"
	"testing"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/query"
)

// TestHumanImpactOnCores checks that an impact for people, whose blocks
// are rendered on every core, is the blocks written one after another,
// on one core and on four, with colors and without; and that a failing
// writer's error is returned.
func TestHumanImpactOnCores(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 73))
	for _, n := range []int{1, 63, 300, 2000} {
		im := wideImpact(r, n)
		im.Changed.Targets = len(im.Targets)
		for _, h := range []Human{{}, {Color: true}} {
			// The blocks one after another, on this goroutine.
			var want bytes.Buffer
			ew := &errWriter{w: &want}
			head := *im
			head.Targets = nil
			h.impact(ew, &head) // the first line alone

			for _, g := range groupImpact(im) {
				h.impactGroup(ew, im, g)
			}
			if ew.err != nil {
				t.Fatal(ew.err)
			}
			for _, procs := range []int{1, 4} {
				func() {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					var got bytes.Buffer
					if err := PrintHuman(&got, im, h); err != nil {
						t.Fatal(err)
					}
					if got.String() != want.String() {
						t.Fatalf("%d targets on %d cores (color %v): differs from the blocks one after another:\n--- want\n%.600s\n--- got\n%.600s", n, procs, h.Color, want.String(), got.String())
					}
				}()
			}
		}
		if err := PrintHuman(&failingWriter{after: 1000}, im, Human{}); err == nil && n > 10 {
			t.Errorf("%d targets: a failing writer's error is lost", n)
		}
	}
}

// failingWriter fails every write after the first after bytes.
type failingWriter struct{ after int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if f.after < len(p) {
		return 0, errors.New("disk full")
	}
	f.after -= len(p)
	return len(p), nil
}

// randomImpact is an Impact with every member set or left out at random,
// strings of every kind the emitter quotes, and before and after values
// of any shape (randomValue).
func randomImpact(r *rand.Rand) *query.Impact {
	str := func() string {
		if r.IntN(3) == 0 {
			return ""
		}
		return randomString(r, 4)
	}
	pref := func() query.PolicyRef {
		return query.PolicyRef{Group: str(), Kind: str(), Namespace: str(), Name: str()}
	}
	ref := func() strata.Ref {
		return strata.Ref{Group: str(), Kind: str(), Namespace: str(), Name: str(), SectionName: str(), Role: str()}
	}
	im := &query.Impact{
		TypeMeta: query.TypeMeta{APIVersion: str(), Kind: str()},
		Policy:   pref(),
		Change:   str(),
		Changed:  query.Count{Targets: r.IntN(1 << 20), Contexts: []int{0, 7, 1 << 53, 1<<53 + 1, 1 << 62, -1}[r.IntN(6)]},
	}
	if r.IntN(3) == 0 {
		im.Also = []query.PolicyRef{}
		for range r.IntN(3) {
			im.Also = append(im.Also, pref())
		}
	}
	if r.IntN(5) != 0 {
		im.Targets = []query.TargetChange{}
	}
	for range r.IntN(4) {
		t := query.TargetChange{PolicyKind: query.GroupKind{Group: str(), Kind: str()}, Target: ref()}
		if r.IntN(5) != 0 {
			t.Contexts = []query.ContextChange{}
		}
		for range r.IntN(3) {
			c := query.ContextChange{}
			if r.IntN(5) != 0 {
				c.Path = []strata.Ref{}
				for range r.IntN(3) {
					c.Path = append(c.Path, ref())
				}
			}
			if r.IntN(5) != 0 {
				c.Fields = []query.FieldChange{}
			}
			for range r.IntN(4) {
				f := query.FieldChange{Field: str(), BeforeSetBy: str(), AfterSetBy: str()}
				if r.IntN(4) != 0 {
					f.Before = randomValue(r, 2)
				}
				if r.IntN(4) != 0 {
					f.After = randomValue(r, 2)
				}
				c.Fields = append(c.Fields, f)
			}
			t.Contexts = append(t.Contexts, c)
		}
		im.Targets = append(im.Targets, t)
	}
	return im
}

// wideImpact is a random Impact with n targets or more, some of which end
// on a line break (the target's last field, its section name, in a block
// scalar that keeps its breaks), the last one always.
func wideImpact(r *rand.Rand, n int) *query.Impact {
	im := randomImpact(r)
	im.Targets = []query.TargetChange{}
	for len(im.Targets) < n {
		im.Targets = append(im.Targets, randomImpact(r).Targets...)
	}
	for i := range im.Targets {
		switch r.IntN(8) {
		case 0:
			im.Targets[i].Target.SectionName = "kept\n\n"
		case 1:
			im.Targets[i].Target.SectionName = "kept\n\u2028"
		case 2:
			im.Targets[i].Target.SectionName = "\n\n\n"
		}
	}
	im.Targets[len(im.Targets)-1].Target.SectionName = "last\n\n"
	return im
}
