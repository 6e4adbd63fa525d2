package query_test

import (
	"strings"
	"testing"

	"github.com/strata-dev/strata/pkg/query"
)

func TestImpactRequestCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    query.ImpactRequest
		want string // a part of the error; empty for none
	}{
		{"add alone", query.ImpactRequest{Add: "p.yaml"}, ""},
		{"add with a subject", query.ImpactRequest{Add: "p.yaml", Args: []string{"retrypolicy/r"}}, "--add FILE names the new policy itself"},
		{"add with delete", query.ImpactRequest{Add: "p.yaml", Delete: true}, "--add FILE names the new policy itself"},
		{"selected delete of a kind", query.ImpactRequest{Selected: true, Delete: true, Args: []string{"retrypolicy"}}, ""},
		{"selected replace", query.ImpactRequest{Selected: true, Replace: "p.yaml", Args: []string{"retrypolicy"}}, "choose policies to --delete together"},
		{"selected delete of a name", query.ImpactRequest{Selected: true, Delete: true, Args: []string{"retrypolicy/r"}}, "give POLICY-KIND alone"},
		{"selected delete without a kind", query.ImpactRequest{Selected: true, Delete: true}, "give POLICY-KIND alone"},
		{"one policy", query.ImpactRequest{Delete: true, Args: []string{"retrypolicy/r"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.r.Check()
			if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check() = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestGraphRequestCheck(t *testing.T) {
	for _, tc := range []struct {
		r    query.GraphRequest
		want string
	}{
		{query.GraphRequest{Format: "dot"}, ""},
		{query.GraphRequest{Format: "mermaid", Subject: "httproute/baker", Depth: 1}, ""},
		{query.GraphRequest{Format: "svg", Subject: "httproute/baker"}, ""},
		{query.GraphRequest{Format: "html"}, "draws one object's neighbourhood"},
		{query.GraphRequest{Format: "png"}, "want dot, mermaid, svg or html"},
		{query.GraphRequest{Format: "dot", Depth: -1}, "--depth -1"},
	} {
		err := tc.r.Check()
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: Check() = %v, want %q", tc.r, err, tc.want)
		}
	}
}
