package blueprint

import (
	"fmt"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
	"github.com/strata-dev/strata/pkg/blueprint/render"
	"github.com/strata-dev/strata/pkg/blueprint/values"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// World is every object blueprint rendering reads, from files or from a
// cluster cache. Slices may be in any order.
type World struct {
	Blueprints     []*bpv1.GatewayClassBlueprint
	ClassConfigs   []*bpv1.GatewayClassConfig
	GatewayConfigs []*bpv1.GatewayConfig
	GatewayClasses []*gwv1.GatewayClass
	Gateways       []*gwv1.Gateway
	HTTPRoutes     []*gwv1.HTTPRoute
	Namespaces     []*corev1.Namespace
	// Children are objects of earlier renders (found by the parent
	// labels): what .Resources reads.
	Children []*unstructured.Unstructured
}

// ClassPlan is one GatewayClass served by the blueprint controller.
type ClassPlan struct {
	Class     *gwv1.GatewayClass
	Blueprint *bpv1.GatewayClassBlueprint // nil when not found or invalid
	// Err says why the class is not Accepted (InvalidParameters), naming
	// the field; nil when it is.
	Err error
}

// Job is one render to do: a Gateway, or an HTTPRoute for one of its
// parent Gateways, with its merged values and render input.
type Job struct {
	Parent    values.Parent
	Blueprint *bpv1.GatewayClassBlueprint
	Values    *values.Values
	Input     render.Input
	// Listeners are the Gateway's listeners with the number of routes
	// attached to each (Gateway API ListenerStatus.attachedRoutes), for a
	// Gateway job.
	Listeners []ListenerRoutes
	// Err is a values problem (a blueprint whose values are not objects);
	// the job must not be rendered.
	Err error
}

// ListenerRoutes counts the routes attached to one listener.
type ListenerRoutes struct {
	Name           string
	AttachedRoutes int32
}

// Plan finds the GatewayClasses served by controllerName, their
// blueprints, and every Gateway and attached HTTPRoute (by the policy
// engine's topology) to render, with merged values. Jobs are sorted: each
// Gateway (by namespace/name), then its routes.
func Plan(w World, controllerName, controllerNamespace string) ([]ClassPlan, []Job) {
	bps := map[string]*bpv1.GatewayClassBlueprint{}
	for _, bp := range w.Blueprints {
		bps[bp.Name] = bp
	}
	var classes []ClassPlan
	byClass := map[string]*ClassPlan{}
	for _, gc := range w.GatewayClasses {
		if string(gc.Spec.ControllerName) != controllerName {
			continue
		}
		classes = append(classes, ResolveClass(gc, bps))
	}
	sort.Slice(classes, func(i, j int) bool { return classes[i].Class.Name < classes[j].Class.Name })
	for i := range classes {
		byClass[classes[i].Class.Name] = &classes[i]
	}

	configs := make([]*values.Config, 0, len(w.ClassConfigs)+len(w.GatewayConfigs))
	for _, c := range w.ClassConfigs {
		configs = append(configs, values.ClassConfig(c))
	}
	for _, c := range w.GatewayConfigs {
		configs = append(configs, values.GatewayConfig(c))
	}
	// A config applies only in its own namespace or, global, from the
	// controller's: index them so a job looks at those two only.
	byNS := map[string][]*values.Config{}
	for _, c := range configs {
		byNS[c.Namespace] = append(byNS[c.Namespace], c)
	}
	configsFor := func(ns string) []*values.Config {
		if ns == controllerNamespace {
			return byNS[ns]
		}
		return append(slices.Clip(byNS[ns]), byNS[controllerNamespace]...)
	}
	namespaces := map[string]*corev1.Namespace{}
	for _, ns := range w.Namespaces {
		namespaces[ns.Name] = ns
	}
	children := childrenByParent(w.Children)

	// The topology of our Gateways and all HTTPRoutes decides attachment.
	var ours []*gwv1.Gateway
	for _, gw := range w.Gateways {
		if cp := byClass[string(gw.Spec.GatewayClassName)]; cp != nil {
			ours = append(ours, gw)
		}
	}
	sort.Slice(ours, func(i, j int) bool { return key(ours[i].ObjectMeta) < key(ours[j].ObjectMeta) })
	g := topology.Build(&snapshot.Snapshot{Gateways: ours, HTTPRoutes: w.HTTPRoutes, Namespaces: w.Namespaces})

	var jobs []Job
	for _, gw := range ours {
		cp := byClass[string(gw.Spec.GatewayClassName)]
		if cp.Blueprint == nil {
			continue
		}
		routes, listeners := Attached(g, gw)
		p := values.Parent{Kind: "Gateway", Namespace: gw.Namespace, Name: gw.Name, Class: cp.Class.Name}
		jobs = append(jobs, job(p, cp, gw, nil, routes, namespaces, configsFor(gw.Namespace), controllerName, controllerNamespace, children))
		jobs[len(jobs)-1].Listeners = listeners
		if cp.Blueprint.Spec.HTTPRouteTemplate == nil {
			continue
		}
		for _, r := range routes {
			rp := values.Parent{Kind: "HTTPRoute", Namespace: r.Namespace, Name: r.Name, Class: cp.Class.Name}
			jobs = append(jobs, job(rp, cp, gw, r, routes, namespaces, configsFor(r.Namespace), controllerName, controllerNamespace, children))
		}
	}
	return classes, jobs
}

// ResolveClass resolves a GatewayClass's parametersRef among blueprints
// (by name) and checks the blueprint (Check): the GatewayClass's Accepted
// condition, for Plan and the controller alike.
func ResolveClass(gc *gwv1.GatewayClass, bps map[string]*bpv1.GatewayClassBlueprint) ClassPlan {
	cp := ClassPlan{Class: gc}
	ref := gc.Spec.ParametersRef
	switch {
	case ref == nil:
		cp.Err = fmt.Errorf("spec.parametersRef: required: a %s of group %s", bpv1.BlueprintKind, bpv1.Group)
	case string(ref.Group) != bpv1.Group || string(ref.Kind) != bpv1.BlueprintKind:
		cp.Err = fmt.Errorf("spec.parametersRef: %s.%s is not supported; want %s.%s", ref.Kind, ref.Group, bpv1.BlueprintKind, bpv1.Group)
	case ref.Namespace != nil && *ref.Namespace != "":
		cp.Err = fmt.Errorf("spec.parametersRef.namespace: a %s is cluster-scoped; remove the namespace", bpv1.BlueprintKind)
	case bps[ref.Name] == nil:
		cp.Err = fmt.Errorf("spec.parametersRef: %s %q not found", bpv1.BlueprintKind, ref.Name)
	default:
		bp := bps[ref.Name]
		if err := render.Check(bp); err != nil {
			cp.Err = err
			return cp
		}
		cp.Blueprint = bp
	}
	return cp
}

func job(p values.Parent, cp *ClassPlan, gw *gwv1.Gateway, route *gwv1.HTTPRoute, routes []*gwv1.HTTPRoute,
	namespaces map[string]*corev1.Namespace, configs []*values.Config, controllerName, controllerNamespace string,
	children map[childKey]map[string][]*unstructured.Unstructured) Job {
	j := Job{Parent: p, Blueprint: cp.Blueprint}
	v, err := values.Merge(cp.Blueprint, p, configs, controllerNamespace)
	if err != nil {
		j.Err = err
		return j
	}
	j.Values = v
	j.Input = render.Input{ControllerName: controllerName, Blueprint: cp.Blueprint, Class: cp.Class, Gateway: gw, Route: route,
		Routes: routes, Namespace: namespaces[p.Namespace], Values: v.Values, Sources: v.Leaves}
	j.Input.Resources = children[keyOf(j.Input.Labels())]
	return j
}

// Attached returns the HTTPRoutes attached to Gateway gw in g (to at least
// one listener), sorted by namespace/name, and the attached route count of
// every listener in spec order, for Plan and the controller alike.
func Attached(g *topology.Graph, gw *gwv1.Gateway) ([]*gwv1.HTTPRoute, []ListenerRoutes) {
	gwID := g.Lookup(topology.Ref{Group: hierarchy.GatewayGroup, Kind: "Gateway", Namespace: gw.Namespace, Name: gw.Name})
	seen := map[*gwv1.HTTPRoute]bool{}
	var routes []*gwv1.HTTPRoute
	listeners := make([]ListenerRoutes, 0, len(gw.Spec.Listeners))
	for _, l := range gw.Spec.Listeners {
		lr := ListenerRoutes{Name: string(l.Name)}
		if gwID != topology.None {
			if lid, ok := g.Node(gwID).Sections.Get(string(l.Name)); ok && !g.Node(gwID).Ambiguous[string(l.Name)] {
				for _, c := range g.Node(lid).Children {
					r, ok := g.Node(c).Object.(*gwv1.HTTPRoute)
					if !ok {
						continue
					}
					lr.AttachedRoutes++
					if !seen[r] {
						seen[r] = true
						routes = append(routes, r)
					}
				}
			}
		}
		listeners = append(listeners, lr)
	}
	sort.Slice(routes, func(i, j int) bool { return key(routes[i].ObjectMeta) < key(routes[j].ObjectMeta) })
	return routes, listeners
}

// childKey is a parent as its children's labels name it (label values,
// so possibly hashed: see LabelValue).
type childKey struct{ kind, namespace, name, gateway string }

func keyOf(l map[string]string) childKey {
	k := childKey{l[render.LabelParentKind], l[render.LabelParentNamespace], l[render.LabelParentName], l[render.LabelGateway]}
	if k.kind == "Gateway" {
		k.gateway = ""
	}
	return k
}

// childrenByParent groups rendered objects by the parent their labels
// name, then by template.
func childrenByParent(objs []*unstructured.Unstructured) map[childKey]map[string][]*unstructured.Unstructured {
	byParent := map[childKey][]*unstructured.Unstructured{}
	for _, o := range objs {
		if k := keyOf(o.GetLabels()); k.kind != "" && k.name != "" {
			byParent[k] = append(byParent[k], o)
		}
	}
	out := map[childKey]map[string][]*unstructured.Unstructured{}
	for k, list := range byParent {
		out[k] = ByTemplate(list)
	}
	return out
}

// ByTemplate groups rendered objects by the template that rendered them
// (LabelTemplate), each group sorted by kind and name; a values object
// (ValuesObject) is no template's and is left out.
func ByTemplate(objs []*unstructured.Unstructured) map[string][]*unstructured.Unstructured {
	out := map[string][]*unstructured.Unstructured{}
	for _, o := range objs {
		if t, ok := o.GetLabels()[render.LabelTemplate]; ok {
			out[t] = append(out[t], o)
		}
	}
	for _, list := range out {
		sort.Slice(list, func(i, j int) bool {
			return list[i].GetKind()+"/"+list[i].GetName() < list[j].GetKind()+"/"+list[j].GetName()
		})
	}
	return out
}

func key(m metav1.ObjectMeta) string { return m.Namespace + "/" + m.Name }
