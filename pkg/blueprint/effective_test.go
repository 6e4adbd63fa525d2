package blueprint

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
	"github.com/strata-dev/strata/pkg/blueprint/render"
	"github.com/strata-dev/strata/pkg/blueprint/values"
)

// TestValuesObjectName: the values object of a route with a long name,
// rendered for a Gateway with a long name, still has a valid name, and
// two such routes get two names.
func TestValuesObjectName(t *testing.T) {
	gw := &gwv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web"}}
	gw.Name = strings.Repeat("g", 253)
	names := map[string]bool{}
	for _, r := range []string{strings.Repeat("r", 253), strings.Repeat("r", 252) + "s", "short"} {
		route := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: r}}
		in := render.Input{Blueprint: &bpv1.GatewayClassBlueprint{ObjectMeta: metav1.ObjectMeta{Name: "bp"}}, Gateway: gw, Route: route}
		v := &values.Values{Parent: values.Parent{Kind: "HTTPRoute", Namespace: "team", Name: r, Class: "internet"}, Values: map[string]any{}}
		u, err := ValuesObject(in, v)
		if err != nil {
			t.Fatal(err)
		}
		if errs := validation.IsDNS1123Subdomain(u.GetName()); len(errs) > 0 {
			t.Errorf("route %.10s...: name %s: %v", r, u.GetName(), errs)
		}
		if names[u.GetName()] {
			t.Errorf("name %s given twice", u.GetName())
		}
		names[u.GetName()] = true
	}
}
