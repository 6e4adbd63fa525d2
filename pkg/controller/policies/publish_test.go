package policies

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/sink/effectivepolicy"
	"github.com/strata-dev/strata/pkg/source/files"
)

// parable runs the engine on examples/parable with RetryPolicy's
// visibility set to v.
func parable(t testing.TB, v policykind.Visibility) *engine.Result {
	t.Helper()
	src, err := files.Read([]string{"../../../examples/parable"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range src.Snapshot.Declarations {
		if d.Spec.Kind == "RetryPolicy" {
			d.Spec.Visibility = v
		}
	}
	res, err := engine.Run(src.Snapshot, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The record of HTTPRoute baker/baker for RetryPolicy, as each visibility
// publishes it (PolicyKind spec.visibility).
func TestPublishVisibility(t *testing.T) {
	retries := effectivepolicy.Source{Namespace: "baker", Name: "baker-retries", Result: "Enforced",
		AttachedTo: []effectivepolicy.Ref{{Kind: "Namespace", Name: "baker"}}}
	cases := []struct {
		visibility policykind.Visibility
		// spec and sources of the one context; nil contexts for Kind.
		spec      string
		fields    map[string]string
		sources   []effectivepolicy.Source
		contexts  int
		count     int32
		published string
	}{
		{"", `{"attempts":3,"backoff":"250ms","codes":[500,502,503,504]}`,
			map[string]string{"/attempts": "baker/baker-retries", "/backoff": "baker/baker-retries", "/codes": "baker/baker-retries"},
			[]effectivepolicy.Source{retries}, 1, 0, ""},
		{policykind.VisibilitySettings, `{"attempts":3,"backoff":"250ms","codes":[500,502,503,504]}`,
			map[string]string{"/attempts": "baker/baker-retries", "/backoff": "baker/baker-retries", "/codes": "baker/baker-retries"},
			[]effectivepolicy.Source{retries}, 1, 0, ""},
		{policykind.VisibilityNames, `{}`, nil, []effectivepolicy.Source{retries}, 1, 0, "Names"},
		{policykind.VisibilityKind, "", nil, nil, 0, 1, "Kind"},
	}
	for _, tc := range cases {
		t.Run(string(tc.visibility), func(t *testing.T) {
			var got *effectivepolicy.KindPolicies
			for _, ep := range Records(parable(t, tc.visibility)) {
				if ep.Namespace != "baker" || ep.Target.Name != "baker" || ep.Target.Kind != "HTTPRoute" {
					continue
				}
				for i := range ep.Policies {
					if ep.Policies[i].Kind == "RetryPolicy" {
						got = &ep.Policies[i]
					}
				}
			}
			if got == nil {
				t.Fatal("no RetryPolicy record for HTTPRoute baker/baker")
			}
			if got.Visibility != tc.published || got.PolicyCount != tc.count || len(got.Contexts) != tc.contexts {
				t.Fatalf("visibility %q, count %d, %d contexts; want %q, %d, %d", got.Visibility, got.PolicyCount, len(got.Contexts), tc.published, tc.count, tc.contexts)
			}
			if tc.contexts == 0 {
				return
			}
			c := got.Contexts[0]
			if string(c.ResultantPolicy.Raw) != tc.spec {
				t.Errorf("resultantPolicy %s, want %s", c.ResultantPolicy.Raw, tc.spec)
			}
			if d := cmp.Diff(tc.fields, c.FieldSources, cmpEmpty); d != "" {
				t.Errorf("fieldSources (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.sources, c.Sources); d != "" {
				t.Errorf("sources (-want +got):\n%s", d)
			}
		})
	}
}

var cmpEmpty = cmp.Comparer(func(a, b map[string]string) bool { return equality.Semantic.DeepEqual(a, b) })

// Targets of different kinds with one namespace and name (the parable's
// HTTPRoute baker/baker and Service baker/baker) get one object each.
func TestPublishNames(t *testing.T) {
	names := map[string]string{}
	for _, ep := range Records(parable(t, "")) {
		key := ep.Namespace + "/" + ep.Name
		if prev, dup := names[key]; dup {
			t.Errorf("%s names both %s and %s", key, prev, ep.Target.Kind)
		}
		names[key] = ep.Target.Kind
	}
	for key, kind := range map[string]string{"baker/baker.httproute": "HTTPRoute", "baker/baker.service": "Service", "baker/whisk.httproute": "HTTPRoute", "infra/storefront": ""} {
		if got, ok := names[key]; kind != "" && got != kind || kind == "" && ok {
			t.Errorf("%s: target kind %q, want %q", key, got, kind)
		}
	}
}

// A target with more contexts than an object may hold is published as a
// summary that says how many contexts it leaves out; kinds after the
// bound keep their entry, with every context counted as left out.
func TestPublishBound(t *testing.T) {
	ctxs := func(n int) []effectivepolicy.Context {
		out := make([]effectivepolicy.Context, n)
		for i := range out {
			out[i] = effectivepolicy.Context{Path: []effectivepolicy.Ref{{Kind: "Gateway", Name: fmt.Sprint(i)}}, ResultantPolicy: emptyObject()}
		}
		return out
	}
	big := emptyObject()
	big.Raw = []byte(fmt.Sprintf(`{"rules":%q}`, strings.Repeat("a", MaxPublishedBytes/2)))
	cases := []struct {
		name       string
		kinds      []effectivepolicy.KindPolicies
		kept, omit []int
	}{
		{"fits", []effectivepolicy.KindPolicies{{Kind: "A", Contexts: ctxs(10)}}, []int{10}, []int{0}},
		{"too many contexts", []effectivepolicy.KindPolicies{{Kind: "A", Contexts: ctxs(200)}, {Kind: "B", Contexts: ctxs(100)}, {Kind: "C", Contexts: ctxs(3)}},
			[]int{200, MaxPublishedContexts - 200, 0}, []int{0, 300 - MaxPublishedContexts, 3}},
		{"too many bytes", []effectivepolicy.KindPolicies{{Kind: "A", Contexts: []effectivepolicy.Context{{ResultantPolicy: big}, {ResultantPolicy: big}, {ResultantPolicy: big}}}},
			[]int{1}, []int{2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := bound(tc.kinds)
			size := 0
			for i, kp := range got {
				if len(kp.Contexts) != tc.kept[i] || int(kp.OmittedContexts) != tc.omit[i] {
					t.Errorf("%s: %d contexts, %d omitted; want %d, %d", kp.Kind, len(kp.Contexts), kp.OmittedContexts, tc.kept[i], tc.omit[i])
				}
				b, _ := json.Marshal(kp)
				size += len(b)
			}
			if size > MaxPublishedBytes+4096 {
				t.Errorf("published %d bytes, bound %d", size, MaxPublishedBytes)
			}
		})
	}
}

// BenchmarkPublish measures the fanout of EffectivePolicy objects on the
// performance requirement's world (internal/synth scale 1: 20,000
// HTTPRoutes, 20,000 Services, 5,000 policies): how many objects, how many
// bytes, and how many writes one policy change costs (objects created,
// changed or deleted between the desired sets before and after), for a
// policy on a Namespace, on a Gateway and on a route. Counts, not time, are
// the point:
//
//	go test -run '^$' -bench Publish -benchtime 1x ./pkg/controller/policies
func BenchmarkPublish(b *testing.B) {
	snap := synth.Snapshot(1, 1)
	res, err := engine.Run(snap, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		Records(res)
	}
	before := Records(res)
	total, largest, summaries := 0, 0, 0
	for _, ep := range before {
		raw, err := json.Marshal(ep)
		if err != nil {
			b.Fatal(err)
		}
		total += len(raw)
		largest = max(largest, len(raw))
		for _, kp := range ep.Policies {
			if kp.OmittedContexts > 0 {
				summaries++
				break
			}
		}
	}
	b.ReportMetric(float64(len(before)), "objects")
	b.ReportMetric(float64(total), "bytes")
	b.ReportMetric(float64(largest), "largest-bytes")
	b.ReportMetric(float64(summaries), "summaries")
	// One policy deleted, per level: the writes are the objects whose
	// content differs.
	for _, level := range []string{"Namespace", "Gateway", "HTTPRoute"} {
		victim := -1
		for i, p := range snap.Policies {
			refs, _, _ := unstructured.NestedSlice(p.Object, "spec", "targetRefs")
			if len(refs) > 0 && refs[0].(map[string]any)["kind"] == level {
				victim = i
				break
			}
		}
		if victim < 0 {
			continue
		}
		gk := snap.Policies[victim].GroupVersionKind().GroupKind()
		var rest []*unstructured.Unstructured
		for i, p := range snap.Policies {
			if i != victim && p.GroupVersionKind().GroupKind() == gk {
				rest = append(rest, p)
			}
		}
		after, err := res.Recompute(rest, map[schema.GroupKind]bool{gk: true})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(writes(before, Records(after))), "writes/delete-on-"+level)
	}
}

// writes counts what writeEffectivePolicies would write to go from one
// desired set to the other.
func writes(before, after []*effectivepolicy.EffectivePolicy) int {
	old := map[client.ObjectKey]*effectivepolicy.EffectivePolicy{}
	for _, ep := range before {
		old[client.ObjectKeyFromObject(ep)] = ep
	}
	n := 0
	for _, ep := range after {
		k := client.ObjectKeyFromObject(ep)
		if o, ok := old[k]; !ok || !equality.Semantic.DeepEqual(o.Policies, ep.Policies) {
			n++
		}
		delete(old, k)
	}
	return n + len(old)
}
