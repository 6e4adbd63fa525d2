package config

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

// TestRBACDocumented: the RBAC tables of docs/install.md ("The RBAC
// model") list exactly the rules of the roles in config/rbac (and the
// webhook's, config/webhook/role.yaml), one row per
// rule, so the document that explains each grant cannot drift from what
// is granted. A row's first three cells are the API groups (backquoted;
// `""` is the core group; "none" for a non-resource URL), the resources
// or URLs (backquoted) and the verbs.
func TestRBACDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "install.md"))
	if err != nil {
		t.Fatal(err)
	}
	documented := documentedRules(t, string(doc))
	objs, err := kustomizeBuild("rbac")
	if err != nil {
		t.Fatal(err)
	}
	// The webhook's role, which config/webhook adds.
	hook, err := decodeFile(filepath.Join("webhook", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	objs = append(objs, hook...)
	var granted []string
	for _, o := range objs {
		if o.GetKind() != "ClusterRole" && o.GetKind() != "Role" {
			continue
		}
		var role rbacv1.ClusterRole // a Role's fields are a subset
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &role); err != nil {
			t.Fatal(err)
		}
		for _, r := range role.Rules {
			granted = append(granted, ruleKey(r.APIGroups, r.Resources, r.NonResourceURLs, r.Verbs))
		}
	}
	slices.Sort(granted)
	if len(granted) < 15 {
		t.Fatalf("only %d rules in config/rbac", len(granted))
	}
	if d := cmp.Diff(granted, documented); d != "" {
		t.Errorf("docs/install.md's RBAC tables and config/rbac differ (-config/rbac +docs):\n%s", d)
	}
}

// documentedRules reads the rows of the tables whose header starts with
// "| API groups |".
func documentedRules(t *testing.T, doc string) []string {
	t.Helper()
	quoted := regexp.MustCompile("`([^`]*)`")
	var rules []string
	inTable := false
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(line, "| API groups |"):
			inTable = true
			continue
		case !strings.HasPrefix(line, "|"):
			inTable = false
			continue
		case !inTable || strings.HasPrefix(line, "| ---"):
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 3 {
			t.Fatalf("docs/install.md: a row with %d cells: %s", len(cells), line)
		}
		var groups, resources, urls, verbs []string
		for _, m := range quoted.FindAllStringSubmatch(cells[0], -1) {
			groups = append(groups, strings.Trim(m[1], `"`))
		}
		for _, m := range quoted.FindAllStringSubmatch(cells[1], -1) {
			if strings.HasPrefix(m[1], "/") {
				urls = append(urls, m[1])
			} else {
				resources = append(resources, m[1])
			}
		}
		for _, v := range strings.Split(cells[2], ",") {
			verbs = append(verbs, strings.TrimSpace(v))
		}
		if len(resources)+len(urls) == 0 || (len(groups) == 0) != (len(urls) > 0) {
			t.Errorf("docs/install.md: cannot read the rule of the row %s", line)
		}
		rules = append(rules, ruleKey(groups, resources, urls, verbs))
	}
	slices.Sort(rules)
	return rules
}

// ruleKey is a rule as one comparable line, lists sorted.
func ruleKey(groups, resources, urls, verbs []string) string {
	s := func(l []string) string {
		l = slices.Clone(l)
		slices.Sort(l)
		return fmt.Sprintf("%q", l)
	}
	return fmt.Sprintf("groups %s resources %s urls %s verbs %s", s(groups), s(resources), s(urls), s(verbs))
}
