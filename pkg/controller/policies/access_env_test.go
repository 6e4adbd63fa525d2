package policies_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/strata-dev/strata/internal/testenv"
	"github.com/strata-dev/strata/pkg/controller/policies"
)

// TestAccess runs the controller as its ServiceAccount under config/rbac
// and config/samples' ColorPolicy role, with one more policy CRD
// labelled for GEP-713 for which no role exists. The controller does not
// wait for an informer that can never sync: ColorPolicies get their
// status, the other kind is reported in strata_kind_unreadable; once a
// ClusterRole grants it, the next access recheck reads it, without a
// restart.
func TestAccess(t *testing.T) {
	c := newCluster(t)
	if err := rbacv1.AddToScheme(c.scheme); err != nil { // the test's admin writes the roles
		t.Fatal(err)
	}
	lost := decode(t, `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: lostpolicies.policies.lost.example
  labels: {gateway.networking.k8s.io/policy: Direct}
spec:
  group: policies.lost.example
  scope: Namespaced
  names: {kind: LostPolicy, listKind: LostPolicyList, plural: lostpolicies, singular: lostpolicy}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`)
	c.apply(append(objects(t, example(3)...), lost...)...)

	var roles []*rbacv1.ClusterRole
	var rest []*unstructured.Unstructured
	files := []string{filepath.Join("..", "..", "..", "config", "samples", "colorpolicies_clusterrole.yaml")}
	for _, f := range []string{"service_account.yaml", "role.yaml", "role_binding.yaml"} {
		files = append(files, filepath.Join("..", "..", "..", "config", "rbac", f))
	}
	for _, o := range objects(t, files...) {
		if o.GetKind() != "ClusterRole" {
			rest = append(rest, o)
			continue
		}
		r := &rbacv1.ClusterRole{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, r); err != nil {
			t.Fatal(err)
		}
		roles = append(roles, r)
	}
	c.ensureNamespace("strata-system")
	c.apply(rest...)
	aggregate := func() {
		t.Helper()
		for _, r := range roles {
			if err := testenv.Aggregate(r, roles...); err != nil {
				t.Fatal(err)
			}
			have := &rbacv1.ClusterRole{}
			if err := c.client.Get(t.Context(), client.ObjectKeyFromObject(r), have); apierrors.IsNotFound(err) {
				err = c.client.Create(t.Context(), r.DeepCopy())
				if err != nil {
					t.Fatal(err)
				}
				continue
			} else if err != nil {
				t.Fatal(err)
			}
			have.Rules = r.Rules
			if err := c.client.Update(t.Context(), have); err != nil {
				t.Fatal(err)
			}
		}
	}
	aggregate()

	r := c.startAs(c.env.Impersonating("system:serviceaccount:strata-system:strata-controller"),
		policies.Options{AccessRecheck: 100 * time.Millisecond})
	c.eventually("example 3's policies get status", c.policyHas("p3", "g2", "Enforced", "Enforced"))
	unreadable := func(want float64) func() error {
		return func() error {
			if got := r.gauge("strata_kind_unreadable", "LostPolicy.policies.lost.example"); got != want {
				return fmt.Errorf("strata_kind_unreadable{LostPolicy} = %v, want %v", got, want)
			}
			return nil
		}
	}
	c.eventually("LostPolicy reported", unreadable(1))

	// The platform team adds the role docs/install.md asks for.
	roles = append(roles, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "strata-controller-lostpolicies", Labels: map[string]string{"strata.dev/aggregate-to-controller": "true"}},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"policies.lost.example"}, Resources: []string{"lostpolicies"}, Verbs: []string{"get", "list", "watch"}}},
	})
	aggregate()
	c.eventually("LostPolicy read once granted", unreadable(0))
}

// gauge is the value of a gauge's series with one label value (0 when
// the series is absent).
func (r *running) gauge(name, label string) float64 {
	mfs, _ := r.reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetValue() == label {
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	return 0
}
