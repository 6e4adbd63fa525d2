package config

import (
	"path/filepath"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
)

// TestRBACGrantsEveryRow checks that the controller's ClusterRoles in
// config/rbac (which the chart's equal, rule for rule: hack/chart's
// TestChartRBACMatchesConfig) grant what each row of hierarchy.Table
// needs: get, list and watch on its resource (the controller's informers
// read every kind of the table), and for a targetable kind patch where its
// <Kind>Affected condition goes (GEP-713 "Target object status"): the
// status subresource, or the object itself for an annotation. The YAML is
// kept by hand (it is reviewed as a security boundary); this keeps it in
// step with the table.
func TestRBACGrantsEveryRow(t *testing.T) {
	fromKustomize, err := decodeFile(filepath.Join("rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for name, objs := range map[string][]*unstructured.Unstructured{"config/rbac/role.yaml": fromKustomize} {
		t.Run(name, func(t *testing.T) {
			granted := map[[3]string]bool{} // group, resource, verb
			for _, o := range objs {
				if o.GetKind() != "ClusterRole" {
					continue
				}
				var role rbacv1.ClusterRole
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &role); err != nil {
					t.Fatal(err)
				}
				for _, r := range role.Rules {
					for _, g := range r.APIGroups {
						for _, res := range r.Resources {
							for _, v := range r.Verbs {
								granted[[3]string{g, res, v}] = true
							}
						}
					}
				}
			}
			for _, row := range hierarchy.Table {
				need := [][2]string{{row.Resource, "get"}, {row.Resource, "list"}, {row.Resource, "watch"}}
				if row.Targetable {
					switch row.Conditions {
					case hierarchy.InStatusConditions, hierarchy.InRouteParents:
						need = append(need, [2]string{row.Resource + "/status", "patch"})
					case hierarchy.InAnnotation:
						need = append(need, [2]string{row.Resource, "patch"})
					}
				}
				for _, n := range need {
					if !granted[[3]string{row.Group, n[0], n[1]}] {
						t.Errorf("%s: no ClusterRole grants %s on %s (group %q)", row.Kind, n[1], n[0], row.Group)
					}
				}
			}
			if !slices.ContainsFunc(objs, func(o *unstructured.Unstructured) bool { return o.GetKind() == "ClusterRole" }) {
				t.Errorf("no ClusterRole")
			}
		})
	}
}
