package status

import (
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/outcome"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// MaxAncestors is how many status.ancestors entries Strata writes when the
// policy's CRD is unknown: the MaxItems of PolicyStatus.ancestors in
// upstream Gateway API v1.6 (apis/v1 PolicyStatus: 16; 001 "Standard
// status struct" said 32, which an API server with the v1.6 type refuses).
// Entries of other controllers are kept first; Strata's own are cut to
// what is left, problems first (Fit, docs/status.md).
const MaxAncestors = 16

// Limit is how many status.ancestors entries a policy of kind k may hold:
// its CRD's maxItems when the CRD is known, else MaxAncestors.
func Limit(k *policykind.Kind) int {
	if k.MaxAncestors > 0 {
		return k.MaxAncestors
	}
	return MaxAncestors
}

// Policies returns, for every policy of a managed kind, a copy of the
// policy object with the status.ancestors Strata would write: entries of
// other controllers preserved, Strata's replaced. now stamps conditions
// whose status changed; unchanged ones keep their lastTransitionTime, so
// an unchanged outcome writes the same bytes.
func Policies(r *engine.Result, now metav1.Time) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, ps := range r.Outcome.Policies {
		p := ps.Policy
		if !p.Kind.Managed {
			continue
		}
		obj := p.Object.DeepCopy()
		existing, _, _ := unstructured.NestedSlice(obj.Object, "status", "ancestors")
		var others []any
		ours := map[string][]metav1.Condition{}
		for _, e := range existing {
			m, ok := e.(map[string]any)
			if !ok {
				continue
			}
			if m["controllerName"] != p.Kind.ControllerName {
				others = append(others, m)
				continue
			}
			ref, _ := m["ancestorRef"].(map[string]any)
			ours[refKey(ref)] = conditionsOf(m["conditions"])
		}
		list := others
		for _, a := range Fit(ps.Ancestors, Limit(p.Kind)-len(others)) {
			ref := parentRef(a.Ref)
			conds := stamp(ours[refKey(ref)], a.Conditions, now)
			list = append(list, map[string]any{
				"ancestorRef":    ref,
				"controllerName": p.Kind.ControllerName,
				"conditions":     toMaps(conds),
			})
		}
		if list == nil {
			list = []any{}
		}
		_ = unstructured.SetNestedSlice(obj.Object, list, "status", "ancestors")
		out = append(out, obj)
	}
	return out
}

// Targets returns, for every object affected by a managed kind, the part of
// it Strata would write: a <Kind>Affected condition in status.conditions,
// in status.listeners[] for listener sections, in status.parents[] (one
// entry per Gateway, with Strata's controllerName) for routes, or an
// annotation for objects without conditions (GEP-713 "Target object
// status"). Virtual targets have no object and are skipped.
func Targets(r *engine.Result, now metav1.Time) []*unstructured.Unstructured {
	g := r.Graph
	type acc struct {
		node     topology.NodeID
		kinds    map[*policykind.Kind]map[string]bool
		sections map[string]map[*policykind.Kind]map[string]bool
		via      map[*policykind.Kind]map[topology.NodeID]bool
	}
	objs := map[topology.Ref]*acc{}
	var order []topology.Ref
	add := func(m map[*policykind.Kind]map[string]bool, k *policykind.Kind, ps []string) {
		if m[k] == nil {
			m[k] = map[string]bool{}
		}
		for _, p := range ps {
			m[k][p] = true
		}
	}
	for _, t := range r.Outcome.Targets {
		if !t.Kind.Managed {
			continue
		}
		n := g.Node(t.Node)
		if n.Virtual {
			continue
		}
		objRef := n.Ref.Object()
		a := objs[objRef]
		if a == nil {
			a = &acc{node: g.Lookup(objRef), kinds: map[*policykind.Kind]map[string]bool{}, sections: map[string]map[*policykind.Kind]map[string]bool{}, via: map[*policykind.Kind]map[topology.NodeID]bool{}}
			objs[objRef] = a
			order = append(order, objRef)
		}
		if n.Ref.Section != "" && objRef.GroupKind() == hierarchy.GatewayKind {
			if a.sections[n.Ref.Section] == nil {
				a.sections[n.Ref.Section] = map[*policykind.Kind]map[string]bool{}
			}
			add(a.sections[n.Ref.Section], t.Kind, t.Policies)
		} else {
			add(a.kinds, t.Kind, t.Policies)
		}
		if a.via[t.Kind] == nil {
			a.via[t.Kind] = map[topology.NodeID]bool{}
		}
		for _, v := range t.Via {
			a.via[t.Kind][v] = true
		}
	}
	sort.Slice(order, func(i, j int) bool { return order[i].Key() < order[j].Key() })
	var out []*unstructured.Unstructured
	for _, ref := range order {
		a := objs[ref]
		n := g.Node(a.node)
		current := toUnstructured(n.Object)
		u := &unstructured.Unstructured{Object: map[string]any{}}
		u.SetAPIVersion(apiVersion(n.Object, ref))
		u.SetKind(ref.Kind)
		u.SetName(ref.Name)
		u.SetNamespace(ref.Namespace)
		place := hierarchy.Kinds[ref.GroupKind()].Conditions
		for _, k := range sortedKinds(a.kinds) {
			ts := outcome.TargetStatus{Kind: k, Policies: sortedSet(a.kinds[k])}
			cond := ts.AffectedCondition(n.Generation)
			vias := sortedNodes(g, a.via[k])
			switch {
			case place == hierarchy.InStatusConditions:
				old, _, _ := unstructured.NestedSlice(current, "status", "conditions")
				appendCondition(u.Object, []string{"status", "conditions"}, stamp(conditionsOf(old), []metav1.Condition{cond}, now))
			case place == hierarchy.InRouteParents && len(vias) > 0:
				parents, _, _ := unstructured.NestedSlice(u.Object, "status", "parents")
				for _, v := range vias {
					pref := parentRef(g.Node(v).Ref)
					old := oldParentConditions(current, pref, k.ControllerName)
					parents = upsertParent(parents, pref, k.ControllerName, stamp(old, []metav1.Condition{cond}, now))
				}
				_ = unstructured.SetNestedSlice(u.Object, parents, "status", "parents")
			default:
				ann := u.GetAnnotations()
				if ann == nil {
					ann = map[string]string{}
				}
				ann[outcome.ConditionType(k)] = "true"
				u.SetAnnotations(ann)
			}
		}
		if len(a.sections) > 0 {
			var listeners []any
			for _, sec := range sortedKeys(a.sections) {
				var conds []metav1.Condition
				for _, k := range sortedKinds(a.sections[sec]) {
					ts := outcome.TargetStatus{Kind: k, Policies: sortedSet(a.sections[sec][k])}
					conds = append(conds, ts.AffectedCondition(n.Generation))
				}
				conds = stamp(oldListenerConditions(current, sec), conds, now)
				listeners = append(listeners, map[string]any{"name": sec, "conditions": toMaps(conds)})
			}
			_ = unstructured.SetNestedSlice(u.Object, listeners, "status", "listeners")
		}
		out = append(out, u)
	}
	return out
}

// stamp gives new conditions their lastTransitionTime: the old one when a
// condition of that type had the same status, now otherwise
// (apimachinery's meta.SetStatusCondition rule).
func stamp(old, conds []metav1.Condition, now metav1.Time) []metav1.Condition {
	out := make([]metav1.Condition, 0, len(conds))
	for _, c := range conds {
		c.LastTransitionTime = now
		if prev := meta.FindStatusCondition(old, c.Type); prev != nil && prev.Status == c.Status {
			c.LastTransitionTime = prev.LastTransitionTime
		}
		out = append(out, c)
	}
	return out
}

func appendCondition(obj map[string]any, path []string, conds []metav1.Condition) {
	list, _, _ := unstructured.NestedSlice(obj, path...)
	list = append(list, toMaps(conds)...)
	_ = unstructured.SetNestedSlice(obj, list, path...)
}

func upsertParent(parents []any, ref map[string]any, controller string, conds []metav1.Condition) []any {
	for _, p := range parents {
		m := p.(map[string]any)
		if refKey(m["parentRef"].(map[string]any)) == refKey(ref) {
			m["conditions"] = append(m["conditions"].([]any), toMaps(conds)...)
			return parents
		}
	}
	return append(parents, map[string]any{"parentRef": ref, "controllerName": controller, "conditions": toMaps(conds)})
}

func oldParentConditions(obj map[string]any, ref map[string]any, controller string) []metav1.Condition {
	parents, _, _ := unstructured.NestedSlice(obj, "status", "parents")
	for _, p := range parents {
		m, ok := p.(map[string]any)
		if !ok || m["controllerName"] != controller {
			continue
		}
		if pr, ok := m["parentRef"].(map[string]any); ok && refKey(withDefaults(pr)) == refKey(ref) {
			return conditionsOf(m["conditions"])
		}
	}
	return nil
}

func oldListenerConditions(obj map[string]any, name string) []metav1.Condition {
	ls, _, _ := unstructured.NestedSlice(obj, "status", "listeners")
	for _, l := range ls {
		if m, ok := l.(map[string]any); ok && m["name"] == name {
			return conditionsOf(m["conditions"])
		}
	}
	return nil
}

// parentRef renders a ref as a Gateway API ParentReference.
func parentRef(r topology.Ref) map[string]any {
	m := map[string]any{"group": r.Group, "kind": r.Kind, "name": r.Name}
	if r.Namespace != "" {
		m["namespace"] = r.Namespace
	}
	if r.Section != "" {
		m["sectionName"] = r.Section
	}
	return m
}

func withDefaults(m map[string]any) map[string]any {
	out := map[string]any{"group": hierarchy.GatewayGroup, "kind": "Gateway"}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func refKey(m map[string]any) string {
	s := func(k string) string { v, _ := m[k].(string); return v }
	return strings.Join([]string{s("group"), s("kind"), s("namespace"), s("name"), s("sectionName")}, "\x00")
}

func conditionsOf(v any) []metav1.Condition {
	list, ok := v.([]any)
	if !ok {
		return nil
	}
	var out []metav1.Condition
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		var c metav1.Condition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &c); err == nil {
			out = append(out, c)
		}
	}
	return out
}

func toMaps(conds []metav1.Condition) []any {
	out := make([]any, 0, len(conds))
	for i := range conds {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&conds[i])
		if err == nil {
			out = append(out, m)
		}
	}
	return out
}

func toUnstructured(obj any) map[string]any {
	if obj == nil {
		return nil
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil
	}
	return m
}

func apiVersion(obj any, ref topology.Ref) string {
	if o, ok := obj.(runtime.Object); ok {
		if gvk := o.GetObjectKind().GroupVersionKind(); gvk.Version != "" {
			return gvk.GroupVersion().String()
		}
	}
	if ref.Group == "" {
		return "v1"
	}
	return ref.Group + "/v1"
}

func sortedKinds[V any](m map[*policykind.Kind]V) []*policykind.Kind {
	out := make([]*policykind.Kind, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b *policykind.Kind) int { return strings.Compare(a.Group+"/"+a.Kind, b.Group+"/"+b.Kind) })
	return out
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedNodes(g *topology.Graph, m map[topology.NodeID]bool) []topology.NodeID {
	out := make([]topology.NodeID, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b topology.NodeID) int { return strings.Compare(g.Node(a).Ref.Key(), g.Node(b).Ref.Key()) })
	return out
}
