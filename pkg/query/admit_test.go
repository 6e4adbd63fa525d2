package query_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/query"
)

// obj reads one YAML object.
func obj(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(y), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

const retryOnBaker = `
apiVersion: policies.cupcakes.example/v1
kind: RetryPolicy
metadata: {name: baker-route-retries, namespace: baker, creationTimestamp: "2026-06-01T10:00:00Z"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: baker}]
  defaults: {attempts: 5}
`

// TestAdmit: what the admission webhook warns of, for each kind of
// write on the parable (issue "admission warnings": affects N targets in
// M namespaces, overrides fields of another policy, is overridden
// everywhere, conflicts, targets nothing, removes the policy in force).
func TestAdmit(t *testing.T) {
	res := run(t, parable)
	for _, tc := range []struct {
		name     string
		op       string
		object   string // the new object
		old      string // the stored object (update, delete)
		want     []string
		findings []string
		limit    int // room in status.ancestors, when set
	}{
		{name: "more ancestors than status has room for", op: query.OpCreate, object: retryOnBaker, limit: -1, want: []string{
			"has 1 ancestor: status.ancestors has room for 0, so 1 will not be listed (those with a problem are listed first)",
			"affects 1 target in 1 namespace",
			"overrides field /attempts of baker/baker-retries in 1 context",
		}},
		{name: "a route policy overrides the namespace's", op: query.OpCreate, object: retryOnBaker, want: []string{
			"affects 1 target in 1 namespace",
			"overrides field /attempts of baker/baker-retries in 1 context",
		}},
		{name: "a policy whose target does not exist", op: query.OpCreate, object: strings.Replace(retryOnBaker, "name: baker}", "name: bakery}", 1),
			findings: []string{"targetnotfound"}, want: []string{"targets nothing: spec.targetRefs[0]: HTTPRoute baker/bakery not found"}},
		{name: "a second health check on a Service that has one", op: query.OpCreate, object: `
apiVersion: policies.cupcakes.example/v1
kind: HealthCheckPolicy
metadata: {name: baker-health-2, namespace: baker, creationTimestamp: "2026-06-01T10:00:00Z"}
spec:
  targetRefs: [{group: "", kind: Service, name: baker}]
  path: /ready
`, findings: []string{"conflicted"}, want: []string{"conflicted: conflicts with baker/baker-health, which wins under the None merge strategy (older, then first by namespace/name)"}},
		{name: "a default under the Gateway's override", op: query.OpCreate, object: `
apiVersion: policies.cupcakes.example/v1
kind: RateLimitPolicy
metadata: {name: baker-burst, namespace: baker, creationTimestamp: "2026-06-01T10:00:00Z"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: baker}]
  defaults: {burst: 999}
`, findings: []string{"overridden"}, want: []string{"overridden everywhere: overridden by infra/storefront-burst-cap in its only context"}},
		{name: "deleting the namespace's retries", op: query.OpDelete, old: `
apiVersion: policies.cupcakes.example/v1
kind: RetryPolicy
metadata: {name: baker-retries, namespace: baker}
`, want: []string{"removes the policy in force on 42 targets: HTTPRoute baker/allergens, HTTPRoute baker/baker, HTTPRoute baker/batter and 39 more"}},
		{name: "an object of no policy kind", op: query.OpCreate, object: `
apiVersion: v1
kind: ConfigMap
metadata: {name: x, namespace: baker}
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch := query.Change{Operation: tc.op}
			if tc.object != "" {
				ch.Object = obj(t, tc.object)
			}
			if tc.old != "" {
				ch.Old = obj(t, tc.old)
			}
			var o query.AdmitOptions
			if tc.limit != 0 {
				o.Limit = func(*policykind.Kind) int { return max(tc.limit, 0) }
			}
			a, err := query.Admit(res, ch, o)
			if err != nil {
				t.Fatal(err)
			}
			var classes []string
			for _, f := range a.Findings {
				classes = append(classes, f.Class)
			}
			if diff := cmp.Diff(tc.findings, classes); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, a.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if a.Policy.Kind != "" {
				sameAsFullRun(t, res, ch, a)
			}
		})
	}
}

// sameAsFullRun checks Admit's scoped answer against a complete
// recomputation: the same impact, and the findings `strata check` gives
// the policy after the write.
func sameAsFullRun(t *testing.T, res *engine.Result, ch query.Change, a *query.Admission) {
	t.Helper()
	var old *policykind.Policy
	for _, p := range res.Policies {
		if p.Kind.Kind == a.Policy.Kind && p.Namespace == a.Policy.Namespace && p.Name == a.Policy.Name {
			old = p
		}
	}
	var after *engine.Result
	var err error
	change := query.ChangeReplace
	switch {
	case ch.Operation == query.OpDelete:
		change = query.ChangeDelete
		after, err = query.Without(res, old)
	case old == nil:
		change = query.ChangeCreate
		after, err = query.Adding(res, ch.Object)
	default:
		after, err = query.Replacing(res, old, ch.Object)
	}
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(query.Compare(res, after, a.Policy, change), a.Impact); diff != "" {
		t.Errorf("impact differs from a full run's (-full +scoped):\n%s", diff)
	}
	var want []query.Finding
	for _, f := range query.Check(after) {
		if f.Policy == a.Policy && ch.Operation != query.OpDelete {
			want = append(want, f)
		}
	}
	if diff := cmp.Diff(want, a.Findings); diff != "" {
		t.Errorf("findings differ from a full run's (-full +scoped):\n%s", diff)
	}
}

// TestAdmitScoped: on GEP-713's example 3 (policies on a GatewayClass, a
// Gateway, a Namespace and routes), every update and delete of every
// policy gets from Admit's scoped recomputation what a complete one
// gives.
func TestAdmitScoped(t *testing.T) {
	for _, dir := range []string{example3, parable} {
		res := run(t, dir)
		for _, p := range res.Policies {
			for _, op := range []string{query.OpUpdate, query.OpDelete} {
				t.Run(dir+"/"+op+"/"+p.ID(), func(t *testing.T) {
					ch := query.Change{Operation: op, Old: p.Object}
					if op == query.OpUpdate {
						u := p.Object.DeepCopy()
						// Drop the first targetRef: the policy leaves
						// some targets; with one, move it to the
						// targets of the next policy of its kind.
						refs, _, _ := unstructured.NestedSlice(u.Object, "spec", "targetRefs")
						if len(refs) > 1 {
							_ = unstructured.SetNestedSlice(u.Object, refs[1:], "spec", "targetRefs")
						} else if next := nextOfKind(res, p); next != nil {
							other, _, _ := unstructured.NestedSlice(next.Object.Object, "spec", "targetRefs")
							if len(other) > 0 {
								_ = unstructured.SetNestedSlice(u.Object, other, "spec", "targetRefs")
							}
						}
						ch.Object = u
					}
					a, err := query.Admit(res, ch, query.AdmitOptions{})
					if err != nil {
						t.Fatal(err)
					}
					sameAsFullRun(t, res, ch, a)
				})
			}
		}
	}
}

// nextOfKind is the policy after p among those of its kind, cyclically.
func nextOfKind(res *engine.Result, p *policykind.Policy) *policykind.Policy {
	kr := res.Of(p.Kind.Key())
	for i, q := range kr.Policies {
		if q == p && len(kr.Policies) > 1 {
			return kr.Policies[(i+1)%len(kr.Policies)]
		}
	}
	return nil
}

// TestImpactOf: `strata impact`'s scoped answer is Compare's of a complete
// recomputation, for deleting and for moving every policy of example 3
// and the parable.
func TestImpactOf(t *testing.T) {
	for _, dir := range []string{example3, parable} {
		res := run(t, dir)
		for _, p := range res.Policies {
			full, err := query.Without(res, p)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := query.ImpactOf(res, p, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(query.Compare(res, full, query.PolicyRefOf(p), query.ChangeDelete), got); d != "" {
				t.Errorf("%s delete (-full +scoped):\n%s", p.ID(), d)
			}
			if next := nextOfKind(res, p); next != nil {
				u := p.Object.DeepCopy()
				other, _, _ := unstructured.NestedSlice(next.Object.Object, "spec", "targetRefs")
				_ = unstructured.SetNestedSlice(u.Object, other, "spec", "targetRefs")
				full, err := query.Replacing(res, p, u)
				if err != nil {
					t.Fatal(err)
				}
				got, _, err := query.ImpactOf(res, p, u)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(query.Compare(res, full, query.PolicyRefOf(p), query.ChangeReplace), got); d != "" {
					t.Errorf("%s replace (-full +scoped):\n%s", p.ID(), d)
				}
			}
		}
	}
}

// ImpactOfDeleting several policies together, scoped below them, is
// what the complete recomputation without all of them says: for every
// two policies of a kind in turn, and for two of different kinds.
func TestImpactOfDeleting(t *testing.T) {
	compared, changing := 0, 0
	for _, dir := range []string{example3, parable} {
		res := run(t, dir)
		var sets [][]*policykind.Policy
		for i := 1; i < len(res.Policies); i++ {
			a, b := res.Policies[i-1], res.Policies[i]
			sets = append(sets, []*policykind.Policy{a, b}) // same kind or the boundary of two kinds
		}
		for _, ps := range sets {
			dirty := map[schema.GroupKind]bool{}
			gone := map[*policykind.Policy]bool{}
			for _, p := range ps {
				dirty[p.Kind.Key()], gone[p] = true, true
			}
			var objs []*unstructured.Unstructured
			for _, q := range res.Policies {
				if dirty[q.Kind.Key()] && !gone[q] {
					objs = append(objs, q.Object)
				}
			}
			full, err := res.Recompute(objs, dirty)
			if err != nil {
				t.Fatal(err)
			}
			want := query.Compare(res, full, query.PolicyRefOf(ps[0]), query.ChangeDelete)
			want.Also = []query.PolicyRef{query.PolicyRefOf(ps[1])}
			got, _, err := query.ImpactOfDeleting(res, ps)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s and %s deleted together (-full +scoped):\n%s", ps[0].ID(), ps[1].ID(), d)
			}
			compared++
			if len(got.Targets) > 0 {
				changing++
			}
		}
	}
	if compared < 20 || changing < 10 {
		t.Fatalf("only %d sets compared, %d changing something", compared, changing)
	}
}
