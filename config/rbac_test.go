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

	"github.com/strata-dev/strata/internal/testenv"
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
			granted := grants(t, objs)
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
// webhook's, config/webhook/role.yaml, and the optional viewer role of
// config/view), one row per
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
	// The webhook's role, which config/webhook adds, and the optional
	// Gateway API reads for view (config/view).
	for _, file := range []string{filepath.Join("webhook", "role.yaml"), filepath.Join("view", "gateway_api_viewer_role.yaml")} {
		more, err := decodeFile(file)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, more...)
	}
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

// TestViewRoleReadsGatewayAPI: config/view's optional role lets a holder
// of view read every Gateway API kind of hierarchy.Table, so that strata
// describe of any of them works with view alone, and Gateway API's own
// policy kind BackendTLSPolicy (the built-in catalogue's), and grants
// nothing but reads: it is aggregated into every namespace's view.
func TestViewRoleReadsGatewayAPI(t *testing.T) {
	objs, err := kustomizeBuild("view")
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 || objs[0].GetKind() != "ClusterRole" {
		t.Fatalf("config/view: want one ClusterRole, got %d objects", len(objs))
	}
	for _, l := range []string{"view", "edit", "admin"} {
		if v := objs[0].GetLabels()["rbac.authorization.k8s.io/aggregate-to-"+l]; v != "true" {
			t.Errorf("ClusterRole %s: label rbac.authorization.k8s.io/aggregate-to-%s is %q, want \"true\"", objs[0].GetName(), l, v)
		}
	}
	var role rbacv1.ClusterRole
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(objs[0].Object, &role); err != nil {
		t.Fatal(err)
	}
	granted := map[[3]string]bool{}
	for _, r := range role.Rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					if !slices.Contains([]string{"get", "list", "watch"}, v) {
						t.Errorf("ClusterRole %s grants %s on %s: only reads belong in view", role.Name, v, res)
					}
					granted[[3]string{g, res, v}] = true
				}
			}
		}
	}
	resources := []string{"backendtlspolicies"}
	for _, row := range hierarchy.Table {
		if row.Group == "gateway.networking.k8s.io" {
			resources = append(resources, row.Resource)
		}
	}
	for _, res := range resources {
		for _, v := range []string{"get", "list", "watch"} {
			if !granted[[3]string{"gateway.networking.k8s.io", res, v}] {
				t.Errorf("ClusterRole %s does not grant %s on %s", role.Name, v, res)
			}
		}
	}
}

// TestRBACGrantsGatewayAPIPolicies: every CRD of Gateway API's standard
// and experimental channels that carries GEP-713's policy label
// (BackendTLSPolicy, XBackendTrafficPolicy) is a kind the controller
// watches as soon as the CRD is installed, so config/rbac grants get,
// list and watch on it. Without the rule the controller leaves the kind
// out and reports it (pkg/controller/policies access.go); with the rule,
// nothing is left out on a cluster installed as documented.
func TestRBACGrantsGatewayAPIPolicies(t *testing.T) {
	objs, err := decodeFile(filepath.Join("rbac", "role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	granted := grants(t, objs)
	found := 0
	for _, channel := range []string{"standard", "experimental"} {
		paths, err := testenv.ChannelCRDPaths(channel)
		if err != nil {
			t.Fatal(err)
		}
		crds, err := filepath.Glob(filepath.Join(paths[0], "gateway.networking.*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range crds {
			docs, err := decodeFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, crd := range docs {
				if _, ok := crd.GetLabels()["gateway.networking.k8s.io/policy"]; crd.GetKind() != "CustomResourceDefinition" || !ok {
					continue
				}
				found++
				group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
				plural, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
				for _, v := range []string{"get", "list", "watch"} {
					if !granted[[3]string{group, plural, v}] {
						t.Errorf("%s channel: %s.%s carries the policy label, but config/rbac grants no %s on it", channel, plural, group, v)
					}
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("no labelled policy CRD in Gateway API's channels: the test reads the wrong folder")
	}
}

// grants are the (group, resource, verb) triples the ClusterRoles among
// objs grant.
func grants(t *testing.T, objs []*unstructured.Unstructured) map[[3]string]bool {
	t.Helper()
	granted := map[[3]string]bool{}
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
	return granted
}
