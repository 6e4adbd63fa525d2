package printer_test

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/sink/printer"
)

// A description that could not see some policy kinds (query.Unseen)
// never says "No policy affects": with no policy it says it cannot tell,
// and with some it says others may be missing; each time why, and what
// to do.
func TestDescriptionUnseen(t *testing.T) {
	route := query.Ref{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Namespace: "baker", Name: "baker"}
	unseen := &query.Unseen{Kinds: []query.GroupKind{{Group: "policies.cupcakes.example", Kind: "RetryPolicy"}}}
	timeout := query.Affecting{Policy: query.PolicyRef{Group: "policies.cupcakes.example", Kind: "TimeoutPolicy", Namespace: "baker", Name: "baker-timeout"},
		Relation: query.Attached, AttachedTo: []query.Ref{route}, Results: map[string]int{"Enforced": 1}}
	for _, c := range []struct {
		name string
		d    query.Description
		want string
	}{
		{"nothing seen, nothing unseen", query.Description{Object: route},
			"HTTPRoute baker/baker\n\nNo policy affects HTTPRoute baker/baker.\n"},
		{"nothing seen", query.Description{Object: route, Unseen: unseen},
			"HTTPRoute baker/baker\n\nCannot tell which policies affect HTTPRoute baker/baker: you cannot list RetryPolicy objects, and no published EffectivePolicy record was found.\n" +
				"The policy controller publishes one next to every affected target: it may be down or stalled, or run with --effective-policies=false. Or ask for read access to those kinds.\n"},
		{"some seen", query.Description{Object: route, Policies: []query.Affecting{timeout}, Unseen: unseen},
			"HTTPRoute baker/baker\n\nPolicies (1):\n" +
				"  KIND           POLICY               RELATION  ATTACHED TO            RESULT\n" +
				"  TimeoutPolicy  baker/baker-timeout  Attached  HTTPRoute baker/baker  Enforced\n" +
				"\nOther policies may affect HTTPRoute baker/baker: you cannot list RetryPolicy objects, and no published EffectivePolicy record was found.\n" +
				"The policy controller publishes one next to every affected target: it may be down or stalled, or run with --effective-policies=false. Or ask for read access to those kinds.\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := printer.PrintHuman(&b, &c.d, printer.Human{}); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(c.want, b.String()); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}
