package cli

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	stratav1 "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/source/cluster"
)

// What describe cannot see on the parable, for a reader who may not list
// the policy kinds: nothing when a published record reaches the object
// (its own, one of a target below it, or one whose path passes through
// it), else the hidden kinds, with what became of the records.
func TestUnseen(t *testing.T) {
	_, ana, seen, _ := publishedParable(t)
	all := seen.Records
	where := func(pred func(*stratav1.EffectivePolicy) bool) []*stratav1.EffectivePolicy {
		var out []*stratav1.EffectivePolicy
		for _, r := range all {
			if pred(r) {
				out = append(out, r)
			}
		}
		return out
	}
	inNamespace := func(ns string) []*stratav1.EffectivePolicy {
		return where(func(r *stratav1.EffectivePolicy) bool { return r.Namespace == ns })
	}
	// The records of baker but the route baker/baker's own: the Service
	// behind it still has one, whose paths pass through the route.
	notTheRoute := where(func(r *stratav1.EffectivePolicy) bool {
		return r.Namespace == "baker" && !(r.Target.Kind == "HTTPRoute" && r.Target.Name == "baker")
	})
	declarations := seenOf(&cluster.Objects{Unreadable: []cluster.Unreadable{{GVK: cluster.CRDGVK}, {GVK: cluster.PolicyKindGVK}}}, cluster.Records{})
	retry := schema.GroupKind{Group: "policies.cupcakes.example", Kind: "RetryPolicy"}
	kinds := seenOf(&cluster.Objects{
		Kinds:      []cluster.PolicyGVK{{GroupVersionKind: retry.WithVersion("v1"), Namespaced: true}},
		Unreadable: []cluster.Unreadable{{GVK: retry.WithVersion("v1")}},
	}, cluster.Records{})
	unknown := &query.Unseen{Declarations: []query.GroupKind{
		{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}, {Group: "strata.dev", Kind: "PolicyKind"}}}
	with := func(u query.Unseen, records int, forbidden bool) *query.Unseen {
		u.Records, u.RecordsForbidden = records, forbidden
		return &u
	}
	for _, c := range []struct {
		name      string
		seen      query.Seen
		records   []*stratav1.EffectivePolicy
		forbidden bool
		arg, ns   string
		want      *query.Unseen
	}{
		{"every kind read", query.Seen{}, nil, false, "httproute/baker", "baker", nil},
		{"the route's record", declarations, all, false, "httproute/baker", "baker", nil},
		{"a record through the route", declarations, notTheRoute, false, "httproute/baker", "baker", nil},
		{"records of a namespace", declarations, inNamespace("baker"), false, "namespace/baker", "", nil},
		{"a Gateway above the records", declarations, inNamespace("baker"), false, "gateway/storefront", "infra", nil},
		{"no record", declarations, nil, false, "httproute/baker", "baker", unknown},
		{"records elsewhere", declarations, inNamespace("frosting"), false, "httproute/baker", "baker", with(*unknown, len(inNamespace("frosting")), false)},
		{"records forbidden", declarations, nil, true, "httproute/baker", "baker", with(*unknown, 0, true)},
		{"a named kind", kinds, nil, false, "service/baker", "baker", &query.Unseen{Kinds: []query.GroupKind{{Group: retry.Group, Kind: retry.Kind}}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			seen := c.seen
			seen.Records, seen.RecordsForbidden = c.records, c.forbidden
			got := seen.Unseen(ana, resolveT(t, ana, c.arg, c.ns))
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// The kinds that could not be listed are told apart: policy kinds by
// name, the declaring kinds (behind which kinds hide unnamed), and the
// topology kinds, which are no policy kind at all.
func TestSeenOf(t *testing.T) {
	retry := schema.GroupVersionKind{Group: "policies.cupcakes.example", Version: "v1", Kind: "RetryPolicy"}
	route := schema.GroupVersionKind{Group: "gateway.networking.k8s.io", Version: "v1", Kind: "HTTPRoute"}
	objs := &cluster.Objects{
		Kinds:      []cluster.PolicyGVK{{GroupVersionKind: retry}},
		Unreadable: []cluster.Unreadable{{GVK: cluster.CRDGVK}, {GVK: route}, {GVK: retry}},
	}
	records := cluster.Records{Forbidden: true}
	want := query.Seen{Declared: []schema.GroupKind{retry.GroupKind()}, HiddenKinds: []schema.GroupKind{retry.GroupKind()},
		HiddenDeclarations: []schema.GroupKind{cluster.CRDGVK.GroupKind()}, RecordsForbidden: true}
	if d := cmp.Diff(want, seenOf(objs, records)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if seenOf(&cluster.Objects{Unreadable: []cluster.Unreadable{{GVK: route}}}, cluster.Records{}).Hidden() {
		t.Error("a topology kind counts as a hidden policy kind")
	}
}
