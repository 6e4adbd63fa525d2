package query_test

import (
	"testing"

	"github.com/strata-dev/strata/pkg/engine/topology"
)

// The documents name nodes by the API's Ref (query.Ref is
// v1alpha1.Ref); its Key and String must read as the node's, or a printed
// locator would not match the one a targetRef resolves to.
func TestAPIRefReadsAsNodeRef(t *testing.T) {
	for _, r := range []topology.Ref{
		{Group: "gateway.networking.k8s.io", Kind: "Gateway", Namespace: "infra", Name: "gw"},
		{Group: "gateway.networking.k8s.io", Kind: "Gateway", Namespace: "infra", Name: "gw", Section: "https"},
		{Group: "gateway.networking.k8s.io", Kind: "GatewayClass", Name: "eg"},
		{Kind: "Namespace", Name: "web"},
		{Kind: "Service", Namespace: "web", Name: "api"},
	} {
		a := r.API()
		if a.Key() != r.Key() || a.String() != r.String() {
			t.Errorf("%+v: API ref reads %q / %q, node ref %q / %q", r, a.Key(), a.String(), r.Key(), r.String())
		}
		if back := topology.FromAPI(a); back != r {
			t.Errorf("%+v: round trip gives %+v", r, back)
		}
	}
}
