package engine_test

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/strata-dev/strata/internal/enginetest"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/effective"
)

// run loads one of the bundled GEP-713 examples and runs the engine on it.
func run(t *testing.T, example string) *engine.Result {
	t.Helper()
	return enginetest.Run(t, nil, filepath.Join("..", "..", "examples", "gep-713", example))
}

// contextVia returns the resultant ColorPolicy spec for traffic to Service
// svc through the given Gateway and HTTPRoute ("g1 > r1 > b1").
func contextVia(t *testing.T, res *engine.Result, gw, route, svc string) map[string]any {
	t.Helper()
	for _, kr := range res.Kinds {
		e := kr.Effective
		for _, tg := range e.Targets {
			if res.Graph.Node(tg.Node).Ref.Name != svc {
				continue
			}
			for _, ctx := range tg.Contexts {
				var names []string
				for _, n := range ctx.Path {
					names = append(names, res.Graph.Node(n).Ref.Kind+"/"+res.Graph.Node(n).Ref.Name)
				}
				if slices.Contains(names, "Gateway/"+gw) && slices.Contains(names, "HTTPRoute/"+route) {
					return ctx.Result.Values
				}
			}
		}
	}
	t.Fatalf("no context %s > %s > %s", gw, route, svc)
	return nil
}

// affected lists the policies a Service is reported as affected by.
func affected(res *engine.Result, svc string) []string {
	for _, ts := range res.Outcome.Targets() {
		if res.Graph.Node(ts.Node).Ref.Name == svc {
			return ts.Policies
		}
	}
	return nil
}

// conditions returns the conditions of a policy's single ancestor.
func conditions(t *testing.T, res *engine.Result, policy string) []metav1.Condition {
	t.Helper()
	for _, ps := range res.Outcome.Policies {
		if ps.Policy.Name != policy {
			continue
		}
		if len(ps.Ancestors) != 1 {
			t.Fatalf("%s: want 1 ancestor, got %d", policy, len(ps.Ancestors))
		}
		return ps.Ancestors[0].Conditions
	}
	t.Fatalf("policy %s has no status", policy)
	return nil
}

// assertState checks Accepted=True and that exactly the given one of
// Enforced, PartiallyEnforced and Overridden is True, its message naming
// the other policies involved.
func assertState(t *testing.T, res *engine.Result, policy, state string, mentions ...string) {
	t.Helper()
	conds := conditions(t, res, policy)
	if !meta.IsStatusConditionTrue(conds, "Accepted") {
		t.Errorf("%s: want Accepted=True, got %+v", policy, conds)
	}
	for _, typ := range []string{"Enforced", "PartiallyEnforced", "Overridden"} {
		if got := meta.IsStatusConditionTrue(conds, typ); got != (typ == state) {
			t.Errorf("%s: %s=%v, want %v", policy, typ, got, typ == state)
		}
	}
	msg := meta.FindStatusCondition(conds, state).Message
	for _, m := range mentions {
		if !strings.Contains(msg, m) {
			t.Errorf("%s: %s message %q does not name %s", policy, state, msg, m)
		}
	}
}

func colors(kv ...string) map[string]any {
	m := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return map[string]any{"colors": m}
}

// Every numbered expected outcome of GEP-713 "Example 1. Direct Policy".
func TestGEP713Example1(t *testing.T) {
	res := run(t, "example-1")
	// 1. All traffic directed to Backend b1 must be colored red.
	if got := contextVia(t, res, "g1", "r1", "b1"); !reflect.DeepEqual(got, map[string]any{"color": "red"}) {
		t.Errorf("1: b1 = %v, want color red", got)
	}
	// 2. Status of Backend b1 should be reported as affected by p1.
	if got := affected(res, "b1"); !slices.Equal(got, []string{"default/p1"}) {
		t.Errorf("2: b1 affected by %v, want [default/p1]", got)
	}
	// 3. Status of Backend b2 should NOT be reported as affected by any policy.
	if got := affected(res, "b2"); got != nil {
		t.Errorf("3: b2 affected by %v, want none", got)
	}
	// 4. Status of ColorPolicy p1 must be reported as enforced.
	assertState(t, res, "p1", "Enforced")
	// 5. Status of ColorPolicy p2 must be reported as NOT enforced, due to
	// conflict with ColorPolicy p1.
	c := meta.FindStatusCondition(conditions(t, res, "p2"), "Accepted")
	if c == nil || c.Status != metav1.ConditionFalse || c.Reason != "Conflicted" || !strings.Contains(c.Message, "default/p1") {
		t.Errorf("5: p2 Accepted = %+v, want False/Conflicted naming default/p1", c)
	}
	if meta.FindStatusCondition(conditions(t, res, "p2"), "Enforced") != nil {
		t.Error("5: a rejected policy must carry no Enforced condition")
	}
}

// Every numbered expected outcome of GEP-713 "Example 2. Defaults &
// Overrides".
func TestGEP713Example2(t *testing.T) {
	res := run(t, "example-2")
	for _, c := range []struct {
		n              string
		gw, route, svc string
		color          string
	}{
		{"1", "g1", "r1", "b1", "blue"},   // p2 beats the less specific defaults of p1
		{"2", "g1", "r2", "b1", "red"},    // p1's implicit defaults
		{"3", "g2", "r3", "b1", "yellow"}, // p3's overrides
		{"4", "g2", "r4", "b2", "yellow"}, // p3's overrides beat the more specific p4
	} {
		if got := contextVia(t, res, c.gw, c.route, c.svc); !reflect.DeepEqual(got, map[string]any{"color": c.color}) {
			t.Errorf("%s: %s > %s > %s = %v, want color %s", c.n, c.gw, c.route, c.svc, got, c.color)
		}
	}
	// 5. b1 is affected by p1, p2 and p3. 6. b2 by p3.
	if got := affected(res, "b1"); !slices.Equal(got, []string{"default/p1", "default/p2", "default/p3"}) {
		t.Errorf("5: b1 affected by %v", got)
	}
	if got := affected(res, "b2"); !slices.Equal(got, []string{"default/p3"}) {
		t.Errorf("6: b2 affected by %v", got)
	}
	assertState(t, res, "p1", "PartiallyEnforced", "default/p2") // 7
	assertState(t, res, "p2", "Enforced")                        // 8
	assertState(t, res, "p3", "Enforced")                        // 9
	assertState(t, res, "p4", "Overridden", "default/p3")        // 10
}

// Every numbered expected outcome of GEP-713 "Example 3. Merged specs".
// "dark:UNDEFINED" means the field is absent from the effective policy.
func TestGEP713Example3(t *testing.T) {
	res := run(t, "example-3")
	for _, c := range []struct {
		n              string
		gw, route, svc string
		want           map[string]any
	}{
		{"1", "g1", "r1", "b1", colors("light", "blue")},
		{"2", "g1", "r2", "b1", colors("dark", "brown", "light", "red")},
		{"3", "g2", "r3", "b1", colors("light", "yellow")},
		{"4", "g2", "r4", "b2", colors("dark", "olive", "light", "yellow")},
	} {
		if got := contextVia(t, res, c.gw, c.route, c.svc); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %s > %s > %s = %v, want %v", c.n, c.gw, c.route, c.svc, got, c.want)
		}
	}
	if got := affected(res, "b1"); !slices.Equal(got, []string{"default/p1", "default/p2", "default/p3"}) {
		t.Errorf("5: b1 affected by %v", got)
	}
	if got := affected(res, "b2"); !slices.Equal(got, []string{"default/p3", "default/p4"}) {
		t.Errorf("6: b2 affected by %v", got)
	}
	assertState(t, res, "p1", "PartiallyEnforced", "default/p2")                  // 7
	assertState(t, res, "p2", "Enforced")                                         // 8
	assertState(t, res, "p3", "Enforced")                                         // 9
	assertState(t, res, "p4", "PartiallyEnforced", "default/p3", "/colors/light") // 10
}

// The provenance of example 3's fourth context: p3 set light, p4 dark.
func TestGEP713Example3Provenance(t *testing.T) {
	res := run(t, "example-3")
	for _, kr := range res.Kinds {
		e := kr.Effective
		for _, tg := range e.Targets {
			if res.Graph.Node(tg.Node).Ref.Name != "b2" {
				continue
			}
			prov := tg.Contexts[0].Result.Prov
			if prov["/colors/light"].ID() != "default/p3" || prov["/colors/dark"].ID() != "default/p4" {
				t.Errorf("provenance = %v", prov)
			}
			st, others, lost := tg.Contexts[0].Standing(effective.PolicyOf(prov["/colors/dark"]))
			if st != effective.PartiallyEnforced || !slices.Equal(others, []string{"default/p3"}) || !slices.Equal(lost, []string{"/colors/light"}) {
				t.Errorf("p4 standing = %s %v %v", st, others, lost)
			}
			return
		}
	}
	t.Fatal("no effective policy for b2")
}
