package blueprint

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseInventory reads the annotation's lines as InventoryAnnotation
// documents them: sorted, duplicates and lines that are not entries
// dropped, and written back the same.
func TestParseInventory(t *testing.T) {
	cases := []struct {
		name, controller, annotation, value string
		want                                Inventory
		wantString                          string
	}{{
		name:       "every form of line",
		annotation: InventoryAnnotation,
		value: "team-a/web=v1/ConfigMap/team-b/shop-routes\n" +
			"  apps/v1/Deployment/team-a/web-nginx  \n" +
			"rbac.authorization.k8s.io/v1/ClusterRole//x\n" +
			"apps/v1/Deployment/team-a/web-nginx\n" +
			"not an entry\nv1/ConfigMap/ns/\n\n",
		want: Inventory{
			{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "team-a", Name: "web-nginx"},
			{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "x"},
			{Gateway: "team-a/web", APIVersion: "v1", Kind: "ConfigMap", Namespace: "team-b", Name: "shop-routes"},
		},
		wantString: "apps/v1/Deployment/team-a/web-nginx\nrbac.authorization.k8s.io/v1/ClusterRole//x\nteam-a/web=v1/ConfigMap/team-b/shop-routes",
	}, {
		name:       "another controller's annotation is not read",
		controller: "example.com/other",
		annotation: InventoryAnnotation,
		value:      "v1/ConfigMap/ns/a",
	}, {
		name:       "another controller reads its own",
		controller: "example.com/other",
		annotation: InventoryAnnotationFor("example.com/other"),
		value:      "v1/ConfigMap/ns/a",
		want:       Inventory{{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "a"}},
		wantString: "v1/ConfigMap/ns/a",
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ParseInventory(map[string]string{c.annotation: c.value}, c.controller)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("ParseInventory (-want +got):\n%s", diff)
			}
			if s := got.String(); s != c.wantString {
				t.Errorf("String() = %q, want %q", s, c.wantString)
			}
		})
	}
}

// TestInventoryAnnotationFor: the default controller keeps the plain key,
// any other gets one of its own.
func TestInventoryAnnotationFor(t *testing.T) {
	for _, name := range []string{"", DefaultControllerName} {
		if got := InventoryAnnotationFor(name); got != InventoryAnnotation {
			t.Errorf("InventoryAnnotationFor(%q) = %q, want %q", name, got, InventoryAnnotation)
		}
	}
	if got := InventoryAnnotationFor("example.com/other"); got == InventoryAnnotation {
		t.Errorf("another controller shares the default key %q", got)
	}
}
