package printer

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/query"
)

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

// wideImpact is a random Impact with n targets or more, some of whose
// targets end
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

// impactCases are the Impacts both writers are compared on: nil, empty,
// 1,000 random ones, and wide ones whose targets are rendered on every
// core, by pointer and by value.
func impactCases(r *rand.Rand) []any {
	values := []any{(*query.Impact)(nil), &query.Impact{}, query.Impact{Targets: []query.TargetChange{}}}
	for range 1000 {
		values = append(values, randomImpact(r))
	}
	for _, n := range []int{64, 300, 2000} {
		values = append(values, wideImpact(r, n), *wideImpact(r, n))
	}
	return values
}

// TestTypedImpactIsGoYAML: an Impact printed whole in YAML from its
// fields is go-yaml's bytes for its JSON, as it was when it went the
// generic way (jsonTree), and so is one whose targets are rendered on
// every core.
func TestTypedImpactIsGoYAML(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	r := rand.New(rand.NewPCG(43, 47))
	for i, v := range impactCases(r) {
		var want, got bytes.Buffer
		if err := goYAML(&want, v); err != nil {
			t.Fatalf("impact %d: go-yaml: %v", i, err)
		}
		if err := Print(&got, v, YAML); err != nil {
			t.Fatalf("impact %d: %v", i, err)
		}
		if got.String() != want.String() {
			t.Fatalf("impact %d: emitter differs from go-yaml:\n--- go-yaml\n%s\n--- emitter\n%s", i, want.String(), got.String())
		}
	}
	// The List writer's items take the same way.
	for i := range 50 {
		assertSameYAML(t, fmt.Sprintf("list %d", i), []any{randomImpact(r), randomImpact(r)})
	}
	for i := range 3 {
		assertSameYAML(t, fmt.Sprintf("list of wide impacts %d", i), []any{wideImpact(r, 100), randomImpact(r), wideImpact(r, 300)})
	}
}

// TestTypedImpactIsJSON: the JSON writer's Impact is the round trip's
// bytes, whole and as an item of a List.
func TestTypedImpactIsJSON(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	r := rand.New(rand.NewPCG(53, 59))
	w := newJSONWriter(jsonPrefix)
	for i, v := range impactCases(r) {
		var want, got bytes.Buffer
		if err := marshalIndent(&want, v); err != nil {
			t.Fatalf("impact %d: %v", i, err)
		}
		if err := Print(&got, v, JSON); err != nil {
			t.Fatalf("impact %d: %v", i, err)
		}
		if got.String() != want.String() {
			t.Fatalf("impact %d: differs from the round trip:\n--- want\n%s\n--- got\n%s", i, want.String(), got.String())
		}
		wantItem, err := roundTrip(v)
		if err != nil {
			t.Fatalf("impact %d: %v", i, err)
		}
		gotItem, err := w.item(jsonItem(v), nil)
		if err != nil {
			t.Fatalf("impact %d: %v", i, err)
		}
		if !bytes.Equal(gotItem, wantItem) {
			t.Fatalf("impact %d as an item: differs from the round trip:\n--- want\n%s\n--- got\n%s", i, wantItem, gotItem)
		}
	}
}
