package status

import (
	"cmp"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/outcome"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// MaxAncestors is how many status.ancestors entries Strata writes when the
// policy's CRD is unknown: the MaxItems of PolicyStatus.ancestors in
// Gateway API v1.6 (GEP-713 said 32, which the v1.6 type refuses). Other
// controllers' entries are kept first (Fit, docs/status.md).
const MaxAncestors = 16

// Limit is how many status.ancestors entries a policy of kind k may hold:
// its CRD's maxItems when the CRD is known, else MaxAncestors.
func Limit(k *policykind.Kind) int {
	if k.MaxAncestors > 0 {
		return k.MaxAncestors
	}
	return MaxAncestors
}

// Fragment is Strata's part of one target object (GEP-713 "Target object
// status"): <Kind>Affected conditions for status.conditions, for
// status.listeners[] entries, or in Strata's status.parents[] entries of a
// route (one per Gateway), or annotations for objects without conditions.
// Merge puts it into the object as it is when written.
type Fragment struct {
	GVK       schema.GroupVersionKind
	Namespace string
	Name      string
	// Conditions of status.conditions.
	Conditions []metav1.Condition
	// Listeners are the conditions of listener sections, by name, sorted.
	Listeners []Listener
	// Parents are Strata's status.parents entries, for routes.
	Parents []gwv1.RouteParentStatus
	// Annotations stand in for conditions on objects that have none, and
	// hold hierarchy.OmittedAnnotation when Omitted is not empty.
	Annotations map[string]string
	// Problems are the types of its conditions whose kind has a policy
	// affecting the object that reports a problem (Problem): they win the
	// room first (fitConditions). Sorted; set for bounded kinds only.
	Problems []string
	// Omitted are Strata's conditions left out of the lists above for want
	// of room in the object as the snapshot has it; Merge adds what the
	// object as stored has no room for.
	Omitted []hierarchy.Omission
}

// problem reports whether conditions of type t report a problem.
func (f *Fragment) problem(t string) bool {
	_, ok := slices.BinarySearch(f.Problems, t)
	return ok
}

// Listener is the conditions of one listener section of a Gateway.
type Listener struct {
	Name       string
	Conditions []metav1.Condition
}

// Object renders the fragment as a partial object (what the CLI prints),
// its maps built directly: unstructured's setters deep-copy every list.
func (f *Fragment) Object() *unstructured.Unstructured { return f.object(&lastConditions{}) }

// object is Object, sharing the maps of the conditions last rendered.
func (f *Fragment) object(last *lastConditions) *unstructured.Unstructured {
	obj := make(map[string]any, 4)
	obj["apiVersion"] = f.GVK.GroupVersion().String()
	obj["kind"] = f.GVK.Kind
	meta := make(map[string]any, 3)
	if f.Name != "" {
		meta["name"] = f.Name
	}
	if f.Namespace != "" {
		meta["namespace"] = f.Namespace
	}
	if len(f.Annotations) > 0 {
		ann := make(map[string]any, len(f.Annotations))
		for k, v := range f.Annotations {
			ann[k] = v
		}
		meta["annotations"] = ann
	}
	if len(meta) > 0 {
		obj["metadata"] = meta
	}
	st := make(map[string]any, 3)
	if len(f.Conditions) > 0 {
		st["conditions"] = last.toMaps(f.Conditions)
	}
	if len(f.Parents) > 0 {
		parents := make([]any, 0, len(f.Parents))
		for i := range f.Parents {
			parents = append(parents, routeParentMap(&f.Parents[i], last))
		}
		st["parents"] = parents
	}
	if len(f.Listeners) > 0 {
		listeners := make([]any, 0, len(f.Listeners))
		for _, l := range f.Listeners {
			listeners = append(listeners, map[string]any{"name": l.Name, "conditions": last.toMaps(l.Conditions)})
		}
		st["listeners"] = listeners
	}
	if len(st) > 0 {
		obj["status"] = st
	}
	return &unstructured.Unstructured{Object: obj}
}

// Targets returns the Fragments as partial objects, in the same order.
func Targets(r *engine.Result, now metav1.Time) []*unstructured.Unstructured {
	fs := Fragments(r, now)
	out := make([]*unstructured.Unstructured, len(fs))
	var last lastConditions
	for i := range fs {
		out[i] = fs[i].object(&last)
	}
	return out
}

// affected gathers, for one object, the policies of each kind that affect
// it or its listeners, and the Gateways it is reached through: the
// outcome's sorted lists, joined only when a kind has more than one.
type affected struct {
	node     topology.NodeID
	kinds    []kindLists[string]
	sections map[string][]kindLists[string]
	via      []kindLists[topology.NodeID]
}

// kindLists are the sorted lists of one kind gathered for an object.
type kindLists[T cmp.Ordered] struct {
	kind  *policykind.Kind
	first []T
	more  [][]T
}

// add adds list, sorted and without duplicates, to the lists of k.
func add[T cmp.Ordered](all []kindLists[T], k *policykind.Kind, list []T) []kindLists[T] {
	for i := range all {
		if all[i].kind == k {
			all[i].more = append(all[i].more, list)
			return all
		}
	}
	return append(all, kindLists[T]{kind: k, first: list})
}

// joined is the union of the lists, sorted: the one list as it is, or a
// new one, in n log n however many lists there are.
func (kl kindLists[T]) joined() []T {
	if len(kl.more) == 0 {
		return kl.first
	}
	return slices.Compact(slices.Sorted(slices.Values(slices.Concat(append([][]T{kl.first}, kl.more...)...))))
}

// Fragments returns Strata's part of every object affected by a managed
// kind, sorted by ref (GEP-713 "Target object status"); virtual targets
// are skipped. now stamps conditions whose status changed (Retime).
func Fragments(r *engine.Result, now metav1.Time) []*Fragment {
	return fragments(r, r.Outcome.Targets(), now)
}

// FragmentsOf is Fragments of the objects objs (object nodes) only, as
// Fragments gives them: the cost is theirs, not the world's (the
// controller's answer to an engine.Delta). An object of objs no managed
// kind affects has no fragment.
func FragmentsOf(r *engine.Result, objs []topology.NodeID, now metav1.Time) []*Fragment {
	g := r.Graph
	var nodes []topology.NodeID
	for _, obj := range objs {
		nodes = append(nodes, obj)
		nodes = append(nodes, g.Node(obj).Sections.Nodes()...)
	}
	return fragments(r, r.Outcome.TargetsAt(g, nodes), now)
}

// fragments is Fragments of the target statuses ts.
func fragments(r *engine.Result, ts []outcome.TargetStatus, now metav1.Time) []*Fragment {
	g := r.Graph
	objs := make(map[topology.NodeID]*affected, len(ts)) // by node: a few for FragmentsOf
	var order []topology.NodeID
	for i := range ts {
		pl := placeOf(g, &ts[i])
		obj := pl.obj
		if obj == topology.None {
			continue
		}
		a := objs[obj]
		if a == nil {
			a = &affected{node: obj}
			objs[obj] = a
			order = append(order, obj)
		}
		a.gather(g, &ts[i], pl.listener)
	}
	// Sorted by key, each key made once.
	type keyed struct {
		key string
		obj topology.NodeID
	}
	byKey := make([]keyed, len(order))
	for i, obj := range order {
		byKey[i] = keyed{g.Node(obj).Ref.Key(), obj}
	}
	slices.SortFunc(byKey, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	// The controllerName of the class of every Gateway a route is reached
	// through, looked up once per Gateway (local: the Result stays frozen).
	controllers := map[topology.NodeID]string{}
	for _, obj := range order {
		for _, vs := range objs[obj].via {
			for _, v := range vs.joined() {
				if _, ok := controllers[v]; !ok {
					controllers[v] = gatewayController(g, g.Node(v))
				}
			}
		}
	}
	controllerOf := func(gw topology.NodeID) string { return controllers[gw] }
	fit := newFitting(r)
	out := make([]*Fragment, len(byKey))
	for i, k := range byKey {
		out[i] = fragment(g, g.Node(k.obj).Ref, objs[k.obj], controllerOf, fit, now)
	}
	return out
}

// place is where a target's part goes: its object (a section's is looked
// up) and whether it is a listener's; None for a target without a part.
type place struct {
	obj      topology.NodeID
	listener bool
}

// placeOf is the place of t's part (Fragments).
func placeOf(g *topology.Graph, t *outcome.TargetStatus) place {
	if !t.Kind.Managed {
		return place{obj: topology.None}
	}
	n := g.Node(t.Node)
	if n.Virtual {
		return place{obj: topology.None}
	}
	obj := t.Node
	if n.Ref.Section != "" {
		if obj = g.Lookup(n.Ref.Object()); obj == topology.None {
			return place{obj: topology.None} // a section has its object: never here
		}
	}
	return place{obj: obj, listener: n.Ref.Section != "" && hierarchy.Kinds[n.Ref.GroupKind()].Section == "listener"}
}

// gather adds a target of the object (itself or a section).
func (a *affected) gather(g *topology.Graph, t *outcome.TargetStatus, listener bool) {
	if listener {
		section := g.Node(t.Node).Ref.Section
		if a.sections == nil {
			a.sections = map[string][]kindLists[string]{}
		}
		a.sections[section] = add(a.sections[section], t.Kind, t.Policies)
	} else {
		a.kinds = add(a.kinds, t.Kind, t.Policies)
	}
	if len(t.Via) > 0 {
		a.via = add(a.via, t.Kind, t.Via)
	}
}

// newFitting is the fitting of a run.
func newFitting(r *engine.Result) *fitting {
	return &fitting{owned: OwnedBy(r.PolicyKinds()), problems: sync.OnceValue(func() map[*policykind.Kind]map[string]bool { return policyProblems(r) })}
}

// fitting is which conditions are Strata's, and which policies report a
// problem (made once, when an object of a bounded kind asks).
type fitting struct {
	owned    Owned
	problems func() map[*policykind.Kind]map[string]bool
}

// others counts the conditions of other controllers in a stored list.
func (fit *fitting) others(stored []metav1.Condition) int {
	n := 0
	for _, c := range stored {
		if !fit.owned.Types[c.Type] {
			n++
		}
	}
	return n
}

// problem reports whether one of the policies of kind k reports a problem.
func (fit *fitting) problem(k *policykind.Kind, policies []string) bool {
	bad := fit.problems()[k]
	for _, p := range policies {
		if bad[p] {
			return true
		}
	}
	return false
}

// policyProblems are the policies of managed kinds that report a problem.
func policyProblems(r *engine.Result) map[*policykind.Kind]map[string]bool {
	out := map[*policykind.Kind]map[string]bool{}
	for _, ps := range r.Outcome.Policies {
		if !ps.Policy.Kind.Managed {
			continue
		}
		for _, a := range ps.Ancestors {
			if Problem(a.Conditions) {
				if out[ps.Policy.Kind] == nil {
					out[ps.Policy.Kind] = map[string]bool{}
				}
				out[ps.Policy.Kind][ps.Policy.ID()] = true
				break
			}
		}
	}
	return out
}

// fragment is Strata's part of one affected object (Fragments).
func fragment(g *topology.Graph, ref topology.Ref, a *affected, controllerOf func(topology.NodeID) string, fit *fitting, now metav1.Time) *Fragment {
	n := g.Node(a.node)
	// The stored status, converted only where its conditions matter.
	var stored map[string]any
	current := func() map[string]any {
		if stored == nil {
			stored = storedStatus(n.Object)
		}
		return stored
	}
	f := &Fragment{GVK: schema.FromAPIVersionAndKind(apiVersion(n.Object, ref), ref.Kind), Namespace: ref.Namespace, Name: ref.Name}
	info := hierarchy.Kinds[ref.GroupKind()]
	place, limit := info.Conditions, info.MaxConditions
	// Other controllers' conditions in each list, counted for a bounded
	// kind; those of listeners and parents by index.
	var others int
	var listenerOthers, parentOthers []int
	for _, ks := range sortedKinds(a.kinds) {
		k := ks.kind
		ts := outcome.TargetStatus{Kind: k, Policies: ks.joined()}
		cond := ts.AffectedCondition(n.Generation)
		vias := sortedNodes(g, a.viaOf(k))
		if limit > 0 && fit.problem(k, ts.Policies) {
			f.Problems = append(f.Problems, cond.Type)
		}
		switch {
		case place == hierarchy.InStatusConditions:
			stored := storedConditions(n.Object, current)
			if limit > 0 {
				others = fit.others(stored)
			}
			f.Conditions = append(f.Conditions, Retime(stored, []metav1.Condition{cond}, now)...)
		case place == hierarchy.InRouteParents && len(gatewayEntries(g, controllerOf, vias, current(), ref.Namespace)) > 0:
			for _, e := range gatewayEntries(g, controllerOf, vias, current(), ref.Namespace) {
				if f.Parents = upsertParent(f.Parents, e.ParentRef, string(e.ControllerName), Retime(e.Conditions, []metav1.Condition{cond}, now)); len(f.Parents) > len(parentOthers) {
					parentOthers = append(parentOthers, fit.others(e.Conditions)) // a new entry
				}
			}
		default:
			if f.Annotations == nil {
				f.Annotations = map[string]string{}
			}
			f.Annotations[outcome.ConditionType(k)] = "true"
		}
	}
	for _, sec := range sortedKeys(a.sections) {
		var conds []metav1.Condition
		for _, ks := range sortedKinds(a.sections[sec]) {
			ts := outcome.TargetStatus{Kind: ks.kind, Policies: ks.joined()}
			conds = append(conds, ts.AffectedCondition(n.Generation))
			if limit > 0 && fit.problem(ks.kind, ts.Policies) {
				f.Problems = append(f.Problems, outcome.ConditionType(ks.kind))
			}
		}
		stored := oldListenerConditions(current(), sec)
		if limit > 0 {
			listenerOthers = append(listenerOthers, fit.others(stored))
		}
		f.Listeners = append(f.Listeners, Listener{Name: sec, Conditions: Retime(stored, conds, now)})
	}
	if limit > 0 {
		f.Problems = slices.Compact(slices.Sorted(slices.Values(f.Problems)))
		f.fitInto(limit, others, listenerOthers, parentOthers)
	}
	return f
}

// fitInto cuts the fragment's lists to the room other controllers'
// conditions (counted by others, listenerOthers and parentOthers) leave
// of limit, drops entries left without a condition, and records what was
// left out. A fragment that fits is left as it is.
func (f *Fragment) fitInto(limit, others int, listenerOthers, parentOthers []int) {
	fits := len(f.Conditions) <= limit-others
	for i := range f.Listeners {
		fits = fits && len(f.Listeners[i].Conditions) <= limit-listenerOthers[i]
	}
	for i := range f.Parents {
		fits = fits && len(f.Parents[i].Conditions) <= limit-parentOthers[i]
	}
	if fits {
		return
	}
	om := omissions{}
	var left []string
	f.Conditions, left = fitConditions(f.Conditions, limit-others, f.problem)
	om.add(placeConditions, left)
	var listeners []Listener
	for i, l := range f.Listeners {
		l.Conditions, left = fitConditions(l.Conditions, limit-listenerOthers[i], f.problem)
		om.add(listenerPlace(l.Name), left)
		if len(l.Conditions) > 0 {
			listeners = append(listeners, l)
		}
	}
	f.Listeners = listeners
	var parents []gwv1.RouteParentStatus
	for i, p := range f.Parents {
		p.Conditions, left = fitConditions(p.Conditions, limit-parentOthers[i], f.problem)
		om.add(parentPlace(parentRefMap(&p.ParentRef)), left)
		if len(p.Conditions) > 0 {
			parents = append(parents, p)
		}
	}
	f.Parents = parents
	if f.Omitted = om.list(limit); f.Omitted != nil {
		if f.Annotations == nil {
			f.Annotations = map[string]string{}
		}
		f.Annotations[hierarchy.OmittedAnnotation] = hierarchy.FormatOmissions(f.Omitted)
	}
}

// gatewayEntries are the entries of a route's stored status.parents that
// the controllers of the Gateways vias wrote (parentRef naming one of
// them, controllerName its class's), as stored. An entry is read as the
// Gateway's verdict on the route, so Strata adds its condition only to
// entries the Gateway's controller wrote; a route without one gets the
// annotation instead (GEP-713 "Target object status"; docs/status.md).
func gatewayEntries(g *topology.Graph, controllerOf func(topology.NodeID) string, vias []topology.NodeID, route map[string]any, routeNS string) []gwv1.RouteParentStatus {
	stored, _, _ := unstructured.NestedSlice(route, "status", "parents")
	if len(stored) == 0 {
		return nil
	}
	controllers := map[topology.Ref]string{} // Gateway -> controllerName
	for _, v := range vias {
		if ctl := controllerOf(v); ctl != "" {
			controllers[g.Node(v).Ref.Object()] = ctl
		}
	}
	var out []gwv1.RouteParentStatus
	for _, p := range stored {
		m, ok := p.(map[string]any)
		if !ok {
			continue
		}
		pr, _ := m["parentRef"].(map[string]any)
		d := withDefaults(pr)
		ns := str(d, "namespace")
		if ns == "" {
			ns = routeNS
		}
		gwRef := topology.Ref{Group: str(d, "group"), Kind: str(d, "kind"), Namespace: ns, Name: str(d, "name")}
		if ctl := controllers[gwRef]; ctl == "" || str(m, "controllerName") != ctl {
			continue
		}
		e := gwv1.RouteParentStatus{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &e); err != nil {
			continue
		}
		out = append(out, e)
	}
	return out
}

// gatewayController is the controllerName of a Gateway's GatewayClass
// (for a ListenerSet, its parent Gateway's), or "" when the class is not
// in the snapshot.
func gatewayController(g *topology.Graph, gw *topology.Node) string {
	if gw.Ref.GroupKind() == hierarchy.ListenerSetKind { // its Gateway's controller (GEP-1713)
		obj := toUnstructured(gw.Object)
		name, _, _ := unstructured.NestedString(obj, "spec", "parentRef", "name")
		ns, _, _ := unstructured.NestedString(obj, "spec", "parentRef", "namespace")
		if ns == "" {
			ns = gw.Ref.Namespace
		}
		id := g.Lookup(topology.Ref{Group: hierarchy.GatewayKind.Group, Kind: hierarchy.GatewayKind.Kind, Namespace: ns, Name: name})
		if name == "" || id == topology.None {
			return ""
		}
		return gatewayController(g, g.Node(id))
	}
	var class string
	if typed, ok := gw.Object.(*gwv1.Gateway); ok {
		class = string(typed.Spec.GatewayClassName)
	} else {
		class, _, _ = unstructured.NestedString(toUnstructured(gw.Object), "spec", "gatewayClassName")
	}
	id := g.Lookup(topology.Ref{Group: hierarchy.GatewayClassKind.Group, Kind: hierarchy.GatewayClassKind.Kind, Name: class})
	if class == "" || id == topology.None {
		return ""
	}
	if typed, ok := g.Node(id).Object.(*gwv1.GatewayClass); ok {
		return string(typed.Spec.ControllerName)
	}
	ctl, _, _ := unstructured.NestedString(toUnstructured(g.Node(id).Object), "spec", "controllerName")
	return ctl
}

// upsertParent adds conditions to the entry for ref of controller, or a
// new entry for them.
func upsertParent(parents []gwv1.RouteParentStatus, ref gwv1.ParentReference, controller string, conds []metav1.Condition) []gwv1.RouteParentStatus {
	for i := range parents {
		if parentKey(parents[i].ParentRef) == parentKey(ref) && string(parents[i].ControllerName) == controller {
			parents[i].Conditions = append(parents[i].Conditions, conds...)
			return parents
		}
	}
	return append(parents, gwv1.RouteParentStatus{ParentRef: ref, ControllerName: gwv1.GatewayController(controller), Conditions: conds})
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

func withDefaults(m map[string]any) map[string]any {
	out := map[string]any{"group": hierarchy.GatewayGroup, "kind": "Gateway"}
	maps.Copy(out, m)
	return out
}

// storedStatus is an object with only its status, as unstructured; a
// typed object's status is converted alone.
func storedStatus(obj any) map[string]any {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		if st, ok := u.Object["status"]; ok {
			return map[string]any{"status": st}
		}
		return map[string]any{}
	}
	st, ok := typedStatus(obj)
	if !ok {
		return toUnstructured(obj)
	}
	m := toUnstructured(st.Addr().Interface())
	if m == nil {
		return map[string]any{}
	}
	return map[string]any{"status": m}
}

// storedConditions is the object's status.conditions as stored: a typed
// object's []metav1.Condition as it is, else read from current().
func storedConditions(obj any, current func() map[string]any) []metav1.Condition {
	if st, ok := typedStatus(obj); ok {
		if c := st.FieldByName("Conditions"); c.IsValid() && c.CanInterface() {
			if conds, ok := c.Interface().([]metav1.Condition); ok {
				return conds
			}
		}
	}
	old, _, _ := unstructured.NestedSlice(current(), "status", "conditions")
	return conditionsOf(old)
}

// typedStatus is the addressable Status struct of a typed object.
func typedStatus(obj any) (reflect.Value, bool) {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	st := v.Elem().FieldByName("Status")
	return st, st.IsValid() && st.Kind() == reflect.Struct && st.CanAddr()
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

// sortedKinds is sets ordered by group/kind, in a new slice.
func sortedKinds(sets []kindLists[string]) []kindLists[string] {
	out := slices.Clone(sets)
	slices.SortFunc(out, func(a, b kindLists[string]) int {
		return strings.Compare(a.kind.Group+"/"+a.kind.Kind, b.kind.Group+"/"+b.kind.Kind)
	})
	return out
}

// viaOf is the Gateways the policies of k reach the object through.
func (a *affected) viaOf(k *policykind.Kind) []topology.NodeID {
	for _, v := range a.via {
		if v.kind == k {
			return v.joined()
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// sortedNodes is nodes ordered by ref, in a new slice.
func sortedNodes(g *topology.Graph, nodes []topology.NodeID) []topology.NodeID {
	out := slices.Clone(nodes)
	slices.SortFunc(out, func(a, b topology.NodeID) int { return strings.Compare(g.Node(a).Ref.Key(), g.Node(b).Ref.Key()) })
	return out
}
