package files

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestOverlay(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 500, time.UTC)
	obj := func(apiVersion, kind, ns, name, created, color string) Document {
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": apiVersion, "kind": kind,
			"metadata": map[string]any{"name": name},
			"spec":     map[string]any{"color": color},
		}}
		if ns != "" {
			u.SetNamespace(ns)
		}
		if created != "" {
			u.Object["metadata"].(map[string]any)["creationTimestamp"] = created
		}
		return Document{File: "f", Object: u}
	}
	// summary is what the test checks of each document, in order.
	summary := func(docs []Document) []string {
		var out []string
		for _, d := range docs {
			c, _, _ := unstructured.NestedString(d.Object.Object, "spec", "color")
			ts := d.Object.GetCreationTimestamp()
			out = append(out, d.Object.GetAPIVersion()+" "+d.Object.GetKind()+" "+d.Object.GetNamespace()+"/"+d.Object.GetName()+" "+c+" "+ts.UTC().Format(time.RFC3339))
		}
		return out
	}
	base := func() []Document {
		return []Document{
			obj("gateway.networking.k8s.io/v1", "HTTPRoute", "ns", "r", "2026-01-01T00:00:00Z", "red"),
			obj("example.io/v1", "ColorPolicy", "ns", "p", "2026-01-02T00:00:00Z", "red"),
			obj("v1", "Namespace", "", "ns", "2026-01-01T00:00:00Z", ""),
		}
	}
	for _, c := range []struct {
		name string
		over []Document
		want []string
	}{
		{"nothing over", nil, []string{
			"gateway.networking.k8s.io/v1 HTTPRoute ns/r red 2026-01-01T00:00:00Z",
			"example.io/v1 ColorPolicy ns/p red 2026-01-02T00:00:00Z",
			"v1 Namespace /ns  2026-01-01T00:00:00Z",
		}},
		{"replace in place, keeping creationTimestamp, across versions", []Document{
			obj("example.io/v2", "ColorPolicy", "ns", "p", "", "blue"),
		}, []string{
			"gateway.networking.k8s.io/v1 HTTPRoute ns/r red 2026-01-01T00:00:00Z",
			"example.io/v2 ColorPolicy ns/p blue 2026-01-02T00:00:00Z",
			"v1 Namespace /ns  2026-01-01T00:00:00Z",
		}},
		{"a file's creationTimestamp is kept", []Document{
			obj("example.io/v1", "ColorPolicy", "ns", "p", "2025-01-01T00:00:00Z", "blue"),
		}, []string{
			"gateway.networking.k8s.io/v1 HTTPRoute ns/r red 2026-01-01T00:00:00Z",
			"example.io/v1 ColorPolicy ns/p blue 2025-01-01T00:00:00Z",
			"v1 Namespace /ns  2026-01-01T00:00:00Z",
		}},
		{"new objects are added, newest", []Document{
			obj("example.io/v1", "ColorPolicy", "other", "p", "", "green"),
			obj("example.io/v1", "OtherPolicy", "ns", "p", "", "green"),
		}, []string{
			"gateway.networking.k8s.io/v1 HTTPRoute ns/r red 2026-01-01T00:00:00Z",
			"example.io/v1 ColorPolicy ns/p red 2026-01-02T00:00:00Z",
			"v1 Namespace /ns  2026-01-01T00:00:00Z",
			"example.io/v1 ColorPolicy other/p green 2026-03-01T12:00:00Z",
			"example.io/v1 OtherPolicy ns/p green 2026-03-01T12:00:00Z",
		}},
		{"a duplicate in the files stays a duplicate", []Document{
			obj("example.io/v1", "ColorPolicy", "ns", "p", "", "blue"),
			obj("example.io/v1", "ColorPolicy", "ns", "p", "", "green"),
		}, []string{
			"gateway.networking.k8s.io/v1 HTTPRoute ns/r red 2026-01-01T00:00:00Z",
			"example.io/v1 ColorPolicy ns/p blue 2026-01-02T00:00:00Z",
			"v1 Namespace /ns  2026-01-01T00:00:00Z",
			"example.io/v1 ColorPolicy ns/p green 2026-03-01T12:00:00Z",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := base()
			got := summary(Overlay(b, c.over, now))
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if d := cmp.Diff(summary(base()), summary(b)); d != "" {
				t.Errorf("base changed (-want +got):\n%s", d)
			}
		})
	}
}

// A cluster's object has no document number: messages name the object.
func TestClusterDocumentWhere(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetKind("ColorPolicy")
	u.SetNamespace("default")
	u.SetName("p1")
	if got, want := (Document{File: "cluster", Object: u}).Where(), "cluster (ColorPolicy default/p1)"; got != want {
		t.Errorf("Where() = %q, want %q", got, want)
	}
}
