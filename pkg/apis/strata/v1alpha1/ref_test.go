package v1alpha1

import "testing"

// TestRefKeyString pins the locator (Key) and the human form (String) of
// a ref with and without each optional part.
func TestRefKeyString(t *testing.T) {
	for _, tc := range []struct {
		ref       Ref
		key, text string
	}{
		{Ref{Kind: "Namespace", Name: "baker"}, "Namespace:baker", "Namespace baker"},
		{Ref{Group: "gateway.networking.k8s.io", Kind: "GatewayClass", Name: "strata"}, "GatewayClass.gateway.networking.k8s.io:strata", "GatewayClass strata"},
		{Ref{Group: "gateway.networking.k8s.io", Kind: "Gateway", Namespace: "infra", Name: "storefront", SectionName: "https"}, "Gateway.gateway.networking.k8s.io:infra/storefront#https", "Gateway infra/storefront#https"},
		{Ref{Kind: "Service", Namespace: "ns", Name: "foo", Role: "frontend"}, "Service:ns/foo@frontend", "Service ns/foo (frontend)"},
		{Ref{Kind: "Service", Namespace: "ns", Name: "foo", SectionName: "http", Role: "frontend"}, "Service:ns/foo#http@frontend", "Service ns/foo#http (frontend)"},
	} {
		if got := tc.ref.Key(); got != tc.key {
			t.Errorf("%+v: Key %q, want %q", tc.ref, got, tc.key)
		}
		if got := tc.ref.String(); got != tc.text {
			t.Errorf("%+v: String %q, want %q", tc.ref, got, tc.text)
		}
	}
}

// TestRefKeyOneAllocation pins Key to one allocation: keys are made for
// every node and every context path of large worlds.
func TestRefKeyOneAllocation(t *testing.T) {
	r := Ref{Group: "gateway.networking.k8s.io", Kind: "Gateway", Namespace: "infra", Name: "storefront", SectionName: "https"}
	if n := testing.AllocsPerRun(100, func() { _ = r.Key() }); n != 1 {
		t.Errorf("Key allocates %v times, want 1", n)
	}
	if got, want := string(r.AppendKey([]byte("x>"))), "x>"+r.Key(); got != want {
		t.Errorf("AppendKey = %q, want %q", got, want)
	}
}
