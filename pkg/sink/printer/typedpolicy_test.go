package printer

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/query"
)

// randomPolicyDescription is a PolicyDescription with every member
// present or absent, nil and empty slices and maps, and strings made of
// the pieces that change go-yaml's choices.
//
// Conditions are drawn from a few half the time, so that descriptions
// repeat them, in one item and across the items of a List, as a world's
// descriptions do (the emitter writes a repeated one again, again.go).
func randomPolicyDescription(r *rand.Rand) *query.PolicyDescription {
	str := func() string {
		if r.IntN(3) == 0 {
			return ""
		}
		return randomString(r, 4)
	}
	ref := func() strata.Ref {
		return strata.Ref{Group: str(), Kind: str(), Namespace: str(), Name: str(), SectionName: str(), Role: str()}
	}
	strs := func() []string {
		if r.IntN(4) == 0 {
			return nil
		}
		out := []string{}
		for range r.IntN(3) {
			out = append(out, str())
		}
		return out
	}
	d := &query.PolicyDescription{
		TypeMeta: query.TypeMeta{APIVersion: str(), Kind: str()},
		Policy: query.PolicySummary{
			PolicyRef: query.PolicyRef{Group: str(), Kind: str(), Namespace: str(), Name: str()},
			Class:     str(), Managed: r.IntN(2) == 0, Created: str(), Targets: strs(),
			Status:  query.StatusSummary{Accepted: str(), Reasons: strs(), Enforcement: str()},
			Affects: query.Count{Targets: r.IntN(1 << 20), Contexts: []int{0, 7, 1 << 53, -1}[r.IntN(4)]},
		},
	}
	if r.IntN(5) != 0 {
		d.Blocks = []query.Block{}
		for range r.IntN(3) {
			b := query.Block{Field: str(), Strategy: str()}
			if v, ok := randomValue(r, 1).(map[string]any); ok || r.IntN(3) != 0 {
				if !ok {
					v = map[string]any{}
				}
				b.Values = v
			}
			d.Blocks = append(d.Blocks, b)
		}
	}
	if r.IntN(5) != 0 {
		d.AttachedTo = []strata.Ref{}
		for range r.IntN(3) {
			d.AttachedTo = append(d.AttachedTo, ref())
		}
	}
	if r.IntN(3) == 0 {
		d.Rejected = []query.Rejection{}
		for range r.IntN(3) {
			d.Rejected = append(d.Rejected, query.Rejection{Policy: query.PolicyRef{Group: str(), Kind: str(), Namespace: str(), Name: str()}, Field: str(), Reason: str(), Message: str()})
		}
	}
	if r.IntN(5) != 0 {
		d.Ancestors = []query.AncestorStatus{}
		for range r.IntN(3) {
			a := query.AncestorStatus{Ancestor: ref()}
			if r.IntN(4) != 0 {
				a.Conditions = []query.Condition{}
				for range r.IntN(3) {
					c := query.Condition{Type: str(), Status: str(), Reason: str(), Message: str()}
					if r.IntN(2) == 0 {
						c = sharedConditions[r.IntN(len(sharedConditions))]
					}
					a.Conditions = append(a.Conditions, c)
				}
			}
			d.Ancestors = append(d.Ancestors, a)
		}
	}
	if r.IntN(5) != 0 {
		d.Reaches = []query.Reach{}
		for range r.IntN(4) {
			re := query.Reach{Target: ref()}
			if r.IntN(4) != 0 {
				re.Results = map[string]int{}
				for range r.IntN(4) {
					re.Results[[]string{"Enforced", "Overridden", "PartiallyEnforced", "item10", "item9", str()}[r.IntN(6)]] = r.IntN(100)
				}
			}
			d.Reaches = append(d.Reaches, re)
		}
	}
	return d
}

// sharedConditions are the conditions descriptions share
// (randomPolicyDescription): the usual words, an empty one, and strings
// that change go-yaml's choices.
var sharedConditions = []query.Condition{
	{Type: "Accepted", Status: "True", Reason: "Accepted", Message: "accepted"},
	{Type: "Enforced", Status: "False", Reason: "NotApplicable", Message: "the policy is Overridden"},
	{Type: "Overridden", Status: "True", Reason: "Overridden", Message: "overridden by ns-0000/color-000100 in all 60 contexts"},
	{},
	{Type: "yes", Status: "123", Reason: "- x", Message: "a: b\nc"},
}

// TestTypedPolicyDescriptionIsGoYAML: a PolicyDescription, and a
// PolicyList, written from its Go fields (typedpolicy.go) prints as
// go-yaml prints its JSON, whole and as the items of a List, at the top
// and nested.
func TestTypedPolicyDescriptionIsGoYAML(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 67))
	for i := range 1000 {
		d := randomPolicyDescription(r)
		var want, got bytes.Buffer
		if err := goYAML(&want, d); err != nil {
			t.Fatalf("description %d: go-yaml: %v", i, err)
		}
		if err := Print(&got, d, YAML); err != nil {
			t.Fatalf("description %d: %v", i, err)
		}
		if got.String() != want.String() {
			t.Fatalf("description %d: emitter differs from go-yaml:\n--- go-yaml\n%s\n--- emitter\n%s", i, want.String(), got.String())
		}
		assertSameYAML(t, fmt.Sprintf("list %d", i), []any{d, *d, map[string]any{"x": d}, randomPolicyDescription(r)})
	}
	assertSameYAML(t, "nil", []any{(*query.PolicyDescription)(nil), &query.PolicyDescription{}})
	// A PolicyList: its items are descriptions' summaries.
	for i := range 300 {
		l := &query.PolicyList{TypeMeta: query.TypeMeta{APIVersion: randomString(r, 2), Kind: randomString(r, 2)}}
		if r.IntN(5) != 0 {
			l.Items = []query.PolicySummary{}
			for range r.IntN(4) {
				l.Items = append(l.Items, randomPolicyDescription(r).Policy)
			}
		}
		var want, got bytes.Buffer
		if err := goYAML(&want, l); err != nil {
			t.Fatalf("list %d: go-yaml: %v", i, err)
		}
		if err := Print(&got, l, YAML); err != nil {
			t.Fatalf("list %d: %v", i, err)
		}
		if got.String() != want.String() {
			t.Fatalf("list %d: emitter differs from go-yaml:\n--- go-yaml\n%s\n--- emitter\n%s", i, want.String(), got.String())
		}
		assertSameYAML(t, fmt.Sprintf("list of lists %d", i), []any{l, *l, map[string]any{"x": l}})
	}
	assertSameYAML(t, "nil list", []any{(*query.PolicyList)(nil), &query.PolicyList{}})
}
