package query_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/query"
)

// gatewayAPIPlurals reads the plural of every kind the pinned
// sigs.k8s.io/gateway-api module ships a CRD for (its experimental
// channel, a superset of the standard one), by kind.
func gatewayAPIPlurals(t *testing.T) map[string]string {
	t.Helper()
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/gateway-api").Output()
	if err != nil {
		t.Fatalf("locate sigs.k8s.io/gateway-api: %v", err)
	}
	files, err := filepath.Glob(filepath.Join(strings.TrimSpace(string(dir)), "config", "crd", "experimental", "gateway.networking.k8s.io_*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Gateway API CRDs in the module (%v)", err)
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(b, &crd); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if crd.Kind == "CustomResourceDefinition" {
			out[crd.Spec.Names.Kind] = crd.Spec.Names.Plural
		}
	}
	return out
}

// Every kind of the hierarchy table answers to kubectl's resource.group
// form, and its resource is the one the Gateway API CRDs (or, for the
// core kinds, the API server) serve; Plural guesses it by the English
// rule for a kind whose CRD is not known (Gateway: gateways, not
// gatewaies).
func TestHierarchyKindResourceGroup(t *testing.T) {
	crds := gatewayAPIPlurals(t)
	core := map[string]string{"Namespace": "namespaces", "Service": "services"}
	for _, row := range hierarchy.Table {
		t.Run(row.Kind, func(t *testing.T) {
			want, ok := crds[row.Kind]
			if row.Group == hierarchy.CoreGroup {
				want, ok = core[row.Kind]
			}
			if !ok {
				t.Fatalf("no CRD of %s in the gateway-api module", row.GroupKind)
			}
			if row.Resource != want {
				t.Errorf("hierarchy.Table's resource of %s is %q, its CRD's plural %q", row.Kind, row.Resource, want)
			}
			if got := query.Plural(row.Kind); got != want {
				t.Errorf("Plural(%q) = %q, want %q", row.Kind, got, want)
			}
			if !row.Targetable {
				return // not a kind a user names
			}
			names := []string{strings.ToLower(row.Kind), want, strings.ToUpper(want)}
			if row.Group != hierarchy.CoreGroup {
				names = append(names, want+"."+row.Group, strings.ToLower(row.Kind)+"."+row.Group, row.Kind+"."+strings.ToUpper(row.Group),
					// kubectl's resource.version.group and kind.version.group.
					want+"."+row.Version+"."+row.Group, row.Kind+".v1beta1."+row.Group)
			}
			for _, n := range names {
				if gk, ok := query.HierarchyKind(n); !ok || gk != row.GroupKind {
					t.Errorf("HierarchyKind(%q) = %v, %v; want %v", n, gk, ok, row.GroupKind)
				}
			}
			// What sits between resource and group must be a version.
			for _, n := range []string{want + ".vbeta." + row.Group, want + ".x." + row.Group, want + ".v1", want + ".v1."} {
				if gk, ok := query.HierarchyKind(n); ok {
					t.Errorf("HierarchyKind(%q) = %v, want no kind", n, gk)
				}
			}
		})
	}
}

func TestPlural(t *testing.T) {
	for kind, want := range map[string]string{
		"Gateway":      "gateways",
		"GatewayClass": "gatewayclasses",
		"Policy":       "policies",
		"RetryPolicy":  "retrypolicies",
		"Key":          "keys",
		"Proxy":        "proxies",
		"Mesh":         "meshes",
		"Box":          "boxes",
		"HTTPRoute":    "httproutes",
	} {
		if got := query.Plural(kind); got != want {
			t.Errorf("Plural(%q) = %q, want %q", kind, got, want)
		}
	}
}

// A policy kind whose CRD is known answers to the CRD's plural
// (spec.names.plural), whatever the English rule would guess, alone or
// as resource.group.
func TestPolicyKindCRDPlural(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"kind.yaml", "scenario.yaml"} {
		b, err := os.ReadFile(filepath.Join(example3, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "kind.yaml" {
			b = []byte(strings.Replace(string(b), "plural: colorpolicies", "plural: colours", 1))
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := run(t, dir)
	for _, name := range []string{"colours", "Colours.policies.controller.io", "colorpolicy", "colorpolicy.policies.controller.io",
		"colours.v1alpha1.policies.controller.io", "ColorPolicy.v1.policies.controller.io"} {
		k, err := query.ResolveKind(res, name)
		if err != nil || k.Policy == nil || k.Policy.Kind != "ColorPolicy" {
			t.Errorf("ResolveKind(%q) = %+v, %v; want ColorPolicy", name, k, err)
		}
	}
	for _, name := range []string{"colorpolicies", "colorpolicies.v1.policies.controller.io", "colours.one.policies.controller.io"} {
		if _, err := query.ResolveKind(res, name); err == nil {
			t.Errorf("ResolveKind(%q) answers, want an unknown kind", name)
		}
	}
}

// Two policy kinds of one kind name in two groups: the bare name is
// ambiguous to ResolveKind and ResolvePolicyKind alike, and the error
// names both; kind.group and resource.version.group choose one.
func TestAmbiguousPolicyKind(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"kind.yaml", "scenario.yaml"} {
		b, err := os.ReadFile(filepath.Join(example3, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if f == "kind.yaml" {
			other := strings.ReplaceAll(string(b), "policies.controller.io", "other.controller.io")
			if err := os.WriteFile(filepath.Join(dir, "other-kind.yaml"), []byte(other), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	res := run(t, dir)
	want := `kind "ColorPolicy" is ambiguous: write one of colorpolicy.other.controller.io, colorpolicy.policies.controller.io`
	if _, err := query.ResolveKind(res, "ColorPolicy"); err == nil || err.Error() != want {
		t.Errorf("ResolveKind(ColorPolicy) = %v, want %s", err, want)
	}
	if _, err := query.ResolvePolicyKind(res, "ColorPolicy"); err == nil || err.Error() != want {
		t.Errorf("ResolvePolicyKind(ColorPolicy) = %v, want %s", err, want)
	}
	for name, group := range map[string]string{
		"colorpolicy.other.controller.io":         "other.controller.io",
		"colorpolicies.v1.policies.controller.io": "policies.controller.io",
	} {
		k, err := query.ResolvePolicyKind(res, name)
		if err != nil || k.Group != group {
			t.Errorf("ResolvePolicyKind(%q) = %v, %v; want the kind of %s", name, k, err, group)
		}
	}
}
