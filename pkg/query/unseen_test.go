package query_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-dev/strata/pkg/query"
)

var (
	retry   = query.GroupKind{Group: "policies.cupcakes.example", Kind: "RetryPolicy"}
	timeout = query.GroupKind{Group: "policies.cupcakes.example", Kind: "TimeoutPolicy"}
	crd     = query.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}
	pk      = query.GroupKind{Group: "strata.dev", Kind: "PolicyKind"}
)

// What a reader is told it could not see names the kinds, or the
// declarations when the kinds themselves are unknown, and what became of
// the records: none published (the controller down or not publishing),
// none reaching the object, or none readable.
func TestUnseenReason(t *testing.T) {
	for _, c := range []struct {
		name   string
		unseen query.Unseen
		reason string
		hint   string
	}{
		{"one kind, no record", query.Unseen{Kinds: []query.GroupKind{retry}},
			"you cannot list RetryPolicy objects, and no published EffectivePolicy record was found",
			"The policy controller publishes one next to every affected target: it may be down or stalled, or run with --effective-policies=false. Or ask for read access to those kinds."},
		{"kinds, records elsewhere", query.Unseen{Kinds: []query.GroupKind{retry, timeout}, Records: 12},
			"you cannot list RetryPolicy and TimeoutPolicy objects, and none of the 12 published EffectivePolicy records you can read reaches it",
			"The policy controller publishes one next to every affected target: either no policy of those kinds affects it, or its record is not published (the controller down or stalled). Or ask for read access to those kinds."},
		{"one record elsewhere", query.Unseen{Kinds: []query.GroupKind{retry}, Records: 1},
			"you cannot list RetryPolicy objects, and the one published EffectivePolicy record you can read does not reach it", ""},
		{"kinds unknown", query.Unseen{Declarations: []query.GroupKind{crd, pk}},
			"you cannot list CustomResourceDefinitions and PolicyKinds, which declare the policy kinds, and no published EffectivePolicy record was found", ""},
		{"both", query.Unseen{Kinds: []query.GroupKind{retry}, Declarations: []query.GroupKind{pk}},
			"you cannot list RetryPolicy objects, nor PolicyKinds, which declare the policy kinds, and no published EffectivePolicy record was found", ""},
		{"records forbidden", query.Unseen{Kinds: []query.GroupKind{retry}, RecordsForbidden: true},
			"you cannot list RetryPolicy objects, and you cannot list the published EffectivePolicy records either",
			"The EffectivePolicy viewer role (strata-effectivepolicy-viewer), aggregated into view, grants reading the records; or ask for read access to those kinds."},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.unseen.Reason(); got != c.reason {
				t.Errorf("Reason:\n got %q\nwant %q", got, c.reason)
			}
			if got := c.unseen.Hint(); c.hint != "" && got != c.hint {
				t.Errorf("Hint:\n got %q\nwant %q", got, c.hint)
			}
		})
	}
}

// Narrowed to kinds (describe --kind), a description can tell of the
// kinds it read, whatever it could not see of the others.
func TestUnseenOnly(t *testing.T) {
	u := &query.Unseen{Kinds: []query.GroupKind{retry}, Declarations: []query.GroupKind{crd}, Records: 3}
	for _, c := range []struct {
		name  string
		kinds []query.GroupKind
		want  *query.Unseen
	}{
		{"every kind", nil, u},
		{"a kind it could not read", []query.GroupKind{retry, timeout}, &query.Unseen{Kinds: []query.GroupKind{retry}, Records: 3}},
		{"a kind it read", []query.GroupKind{timeout}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if d := cmp.Diff(c.want, u.Only(c.kinds)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	if got := (*query.Unseen)(nil).Only([]query.GroupKind{retry}); got != nil {
		t.Errorf("nil.Only = %+v, want nil", got)
	}
	d := &query.Description{Unseen: u}
	if got := d.Only([]query.GroupKind{timeout}, ""); got.Unseen != nil {
		t.Errorf("Description.Only(TimeoutPolicy).Unseen = %+v, want nil", got.Unseen)
	}
}

func TestIncompleteError(t *testing.T) {
	u := &query.Unseen{Kinds: []query.GroupKind{retry}}
	e := &query.IncompleteError{Object: "HTTPRoute baker/baker", Unseen: u}
	if got, want := e.Error(), "cannot tell which policies affect HTTPRoute baker/baker: you cannot list RetryPolicy objects, and no published EffectivePolicy record was found"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	notSet := errors.New("no policy reaches HTTPRoute baker/baker")
	e = &query.IncompleteError{Object: "HTTPRoute baker/baker", Unseen: u, Err: notSet}
	if got, want := e.Error(), "no policy reaches HTTPRoute baker/baker, among the policies you can read; cannot tell of the others: you cannot list RetryPolicy objects, and no published EffectivePolicy record was found"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if !errors.Is(e, notSet) {
		t.Error("the answer's own error is not wrapped")
	}
}
