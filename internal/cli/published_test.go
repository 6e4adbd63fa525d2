package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	stratav1 "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/controller/policies"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/source/cluster"
	"github.com/strata-dev/strata/pkg/source/files"
)

// publishedParable is the parable twice: as an admin reads it (every
// policy), and as Ana does (no policy; the CRDs and PolicyKinds
// forbidden), with the records the controller publishes for it.
func publishedParable(t *testing.T) (admin, ana *engine.Result, seen query.Seen, p *query.Published) {
	t.Helper()
	src, err := files.Read([]string{discParable}, nil)
	if err != nil {
		t.Fatal(err)
	}
	admin, err = engine.Run(src.Snapshot, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var records []*stratav1.EffectivePolicy
	for _, ep := range policies.Records(admin) {
		// As stored: the JSON round trip the API server makes.
		b, err := json.Marshal(ep)
		if err != nil {
			t.Fatal(err)
		}
		var back stratav1.EffectivePolicy
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		records = append(records, &back)
	}
	blind := *src.Snapshot
	blind.Policies, blind.Declarations = []*unstructured.Unstructured{}, nil
	if ana, err = engine.Run(&blind, engine.Options{}); err != nil {
		t.Fatal(err)
	}
	objs := &cluster.Objects{Unreadable: []cluster.Unreadable{{GVK: cluster.CRDGVK}, {GVK: cluster.PolicyKindGVK}}}
	seen = seenOf(objs, cluster.Records{Items: records})
	if p = query.NewPublished(seen); p == nil {
		t.Fatal("no kind answered from the records")
	}
	return admin, ana, seen, p
}

// For every object of the parable, what Ana learns from the records about
// the policies is the admin's answer, less what the records do not hold
// (stack details, beaten policies): describe, explain of every field in
// force, get policies and impact --delete.
func TestPublishedAnswersAsAdmin(t *testing.T) {
	admin, ana, _, p := publishedParable(t)
	if got, want := p.Notice(), "HealthCheckPolicy, RateLimitPolicy, RetryPolicy, TimeoutPolicy read from the published effective policies: you cannot read HealthCheckPolicy, RateLimitPolicy, RetryPolicy, TimeoutPolicy objects"; got != want {
		t.Errorf("notice %q, want %q", got, want)
	}
	for _, arg := range []string{"httproute/baker", "service/baker", "httproute/whisk", "gateway/storefront"} {
		ns := "baker"
		if arg == "gateway/storefront" {
			ns = "infra"
		}
		t.Run("describe "+arg, func(t *testing.T) {
			want := query.Describe(admin, resolveT(t, admin, arg, ns))
			n := resolveT(t, ana, arg, ns)
			got := query.Describe(ana, n)
			p.Describe(got, ana, n)
			for _, kind := range []string{"HealthCheckPolicy", "RateLimitPolicy", "RetryPolicy", "TimeoutPolicy"} {
				if d := cmp.Diff(describeView(want, kind), describeView(got, kind)); d != "" {
					t.Errorf("%s (-admin +Ana):\n%s", kind, d)
				}
			}
		})
	}
	t.Run("explain", func(t *testing.T) {
		for _, field := range []string{"/codes", "/attempts", "/request", "/burst"} {
			want, err := query.Explain(admin, resolveT(t, admin, "httproute/baker", "baker"), field, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := p.Explain(ana, resolveT(t, ana, "httproute/baker", "baker"), field, "")
			if len(got) != len(want.Chains) {
				t.Fatalf("%s: %d chains, want %d", field, len(got), len(want.Chains))
			}
			for i := range got {
				w, g := want.Chains[i], got[i]
				if d := cmp.Diff([]any{w.PolicyKind, w.Target, w.Path, w.Value, w.SetBy}, []any{g.PolicyKind, g.Target, g.Path, g.Value, g.SetBy}); d != "" {
					t.Errorf("%s (-admin +Ana):\n%s", field, d)
				}
			}
		}
	})
	t.Run("get policies", func(t *testing.T) {
		want := query.Policies(admin, query.Filter{Namespace: "baker"})
		got := &query.PolicyList{}
		p.Policies(got, ana, "baker", false, nil)
		type row struct {
			Policy  query.PolicyRef
			Affects query.Count
			Status  string
		}
		rows := func(l *query.PolicyList) (out []row) {
			for _, s := range l.Items {
				out = append(out, row{s.PolicyRef, s.Affects, s.Status.Enforcement})
			}
			return out
		}
		if d := cmp.Diff(rows(want), rows(got)); d != "" {
			t.Errorf("(-admin +Ana):\n%s", d)
		}
	})
	t.Run("impact --delete", func(t *testing.T) {
		var retries *query.PolicyRef
		for _, pol := range admin.Policies {
			if pol.Name == "baker-retries" {
				after, err := query.Without(admin, pol)
				if err != nil {
					t.Fatal(err)
				}
				r := query.PolicyRef{Group: pol.Kind.Group, Kind: pol.Kind.Kind, Namespace: pol.Namespace, Name: pol.Name}
				retries = &r
				want := query.Compare(admin, after, r, query.ChangeDelete)
				got, found := p.ImpactOfDelete(schema.GroupKind{Group: r.Group, Kind: r.Kind}, "baker", "baker-retries")
				if !found {
					t.Fatal("baker-retries not found in the records")
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("(-admin +Ana):\n%s", d)
				}
			}
		}
		if retries == nil {
			t.Fatal("no baker-retries")
		}
		for _, c := range []struct {
			arg string
			del bool
			ok  bool
			err string
		}{
			{"retrypolicy/baker-retries", true, true, ""},
			{"retrypolicy/baker-retries", false, true, "impact retrypolicy/baker-retries --replace: you cannot read RetryPolicy objects"},
			{"retrypolicy/nope", true, true, "RetryPolicy baker/nope affects none of the targets whose effective policies you can read"},
			{"colorpolicy/baker-retries", true, false, ""},
		} {
			im, ok, err := p.Impact(c.arg, "baker", c.del)
			if ok != c.ok || (err == nil) != (c.err == "") || err != nil && !strings.HasPrefix(err.Error(), c.err) || c.ok && c.err == "" && im == nil {
				t.Errorf("Impact(%s, delete %v) = %v, %v, %v; want ok %v, error %q", c.arg, c.del, im != nil, ok, err, c.ok, c.err)
			}
		}
	})
}

func resolveT(t *testing.T, res *engine.Result, arg, ns string) topology.NodeID {
	t.Helper()
	subj, err := query.Resolve(res, arg, ns)
	if err != nil {
		t.Fatal(err)
	}
	return subj.Node
}
