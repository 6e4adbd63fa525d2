package blueprint

import (
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/blueprint/render"
)

// The blueprint controller's defaults, which `strata render` assumes too
// so an offline render reads a cluster's objects as the controller does.
const (
	DefaultControllerName = "strata.dev/blueprint-controller" // the GatewayClass controllerName served
	DefaultNamespace      = "strata-system"                   // the controller's, where GatewayClassConfigs are global
)

// InventoryAnnotation on a Gateway or HTTPRoute lists the objects Strata
// applied for it, one per line, sorted:
//
//	apps/v1/Deployment/team-a/web-nginx           (a Gateway's child)
//	rbac.authorization.k8s.io/v1/ClusterRole//x    (cluster-scoped: empty namespace)
//	team-a/web=v1/ConfigMap/team-b/shop-routes     (an HTTPRoute's child rendered for Gateway team-a/web)
//
// A label search alone would have to know which kinds to search, and the
// kinds a parent had are what is lost when a blueprint drops a template;
// the inventory names them, so pruning finds every child, after a restart
// too. The controller writes it ahead of applying (old ∪ new) and trims it
// after pruning, so a crash leaves extra lines, never missing ones.
const InventoryAnnotation = "blueprints.strata.dev/inventory"

// InventoryAnnotationFor is the inventory annotation of the controller
// serving controllerName: InventoryAnnotation for the default name, a key
// of its own for any other, so two Strata installs never touch each
// other's inventory.
func InventoryAnnotationFor(controllerName string) string {
	if controllerName == "" || controllerName == DefaultControllerName {
		return InventoryAnnotation
	}
	return InventoryAnnotation + "-" + render.LabelValue(controllerName)
}

// InventoryEntry is one line of an inventory.
type InventoryEntry struct {
	// Gateway is namespace/name of the Gateway an HTTPRoute's child was
	// rendered for; "" for a Gateway's child.
	Gateway    string
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
}

// String is the entry as a line of the annotation.
func (e InventoryEntry) String() string {
	s := e.APIVersion + "/" + e.Kind + "/" + e.Namespace + "/" + e.Name
	if e.Gateway != "" {
		s = e.Gateway + "=" + s
	}
	return s
}

// Describe is `Kind ns/name`, for messages.
func (e InventoryEntry) Describe() string {
	if e.Namespace == "" {
		return e.Kind + " " + e.Name
	}
	return e.Kind + " " + e.Namespace + "/" + e.Name
}

// GVK is the entry's group, version and kind.
func (e InventoryEntry) GVK() schema.GroupVersionKind {
	return schema.FromAPIVersionAndKind(e.APIVersion, e.Kind)
}

// Object is the object the entry names: apiVersion, kind, namespace and
// name set, nothing else.
func (e InventoryEntry) Object() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(e.APIVersion)
	u.SetKind(e.Kind)
	u.SetNamespace(e.Namespace)
	u.SetName(e.Name)
	return u
}

// EntryOf is the entry of object o, rendered for Gateway gateway
// (namespace/name) when o is an HTTPRoute's child, "" otherwise.
func EntryOf(gateway string, o *unstructured.Unstructured) InventoryEntry {
	return InventoryEntry{Gateway: gateway, APIVersion: o.GetAPIVersion(), Kind: o.GetKind(), Namespace: o.GetNamespace(), Name: o.GetName()}
}

// parseEntry reads a line; the name, namespace and kind are the last three
// slash-separated fields, the apiVersion what is before them.
func parseEntry(line string) (InventoryEntry, bool) {
	var e InventoryEntry
	if gw, rest, ok := strings.Cut(line, "="); ok {
		e.Gateway, line = gw, rest
	}
	parts := strings.Split(line, "/")
	if len(parts) < 4 {
		return e, false
	}
	n := len(parts)
	e.Name, e.Namespace, e.Kind = parts[n-1], parts[n-2], parts[n-3]
	e.APIVersion = strings.Join(parts[:n-3], "/")
	return e, e.Name != "" && e.Kind != "" && e.APIVersion != ""
}

// Inventory is a sorted set of entries.
type Inventory []InventoryEntry

// ParseInventory reads the inventory of controllerName's controller from
// a parent's annotations; lines that are not entries are skipped.
func ParseInventory(annotations map[string]string, controllerName string) Inventory {
	var inv Inventory
	for _, line := range strings.Split(annotations[InventoryAnnotationFor(controllerName)], "\n") {
		if e, ok := parseEntry(strings.TrimSpace(line)); ok {
			inv = append(inv, e)
		}
	}
	return inv.Sorted()
}

// String is the inventory as the annotation's value.
func (inv Inventory) String() string {
	lines := make([]string, len(inv))
	for i, e := range inv {
		lines[i] = e.String()
	}
	return strings.Join(lines, "\n")
}

// Sorted is a sorted copy of inv without duplicates.
func (inv Inventory) Sorted() Inventory {
	out := slices.Clone(inv)
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return slices.Compact(out)
}

// Union adds entries.
func (inv Inventory) Union(more []InventoryEntry) Inventory {
	return append(slices.Clone(inv), more...).Sorted()
}

// Of is the entries of one render scope (a Gateway for a route's children).
func (inv Inventory) Of(gateway string) Inventory {
	var out Inventory
	for _, e := range inv {
		if e.Gateway == gateway {
			out = append(out, e)
		}
	}
	return out
}

// Without removes entries.
func (inv Inventory) Without(drop []InventoryEntry) Inventory {
	return slices.DeleteFunc(slices.Clone(inv), func(e InventoryEntry) bool { return slices.Contains(drop, e) })
}

// Inventoried returns the objects the inventory of controllerName's
// controller on a parent lists, as Object does (`strata render` on a live
// cluster fetches them for .Resources).
func Inventoried(annotations map[string]string, controllerName string) []*unstructured.Unstructured {
	inv := ParseInventory(annotations, controllerName)
	out := make([]*unstructured.Unstructured, len(inv))
	for i, e := range inv {
		out[i] = e.Object()
	}
	return out
}
