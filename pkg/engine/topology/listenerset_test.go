package topology_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// listenerSet is a ListenerSet in ns with parentRef to Gateway gwNS/gw
// (gwNS "" leaves the namespace unset) and the given listeners.
func listenerSet(ns, name, gwNS, gw string, ls ...gwv1.Listener) *gwv1.ListenerSet {
	x := &gwv1.ListenerSet{ObjectMeta: meta(ns, name)}
	x.Spec.ParentRef.Name = gwv1.ObjectName(gw)
	if gwNS != "" {
		x.Spec.ParentRef.Namespace = ptr(gwv1.Namespace(gwNS))
	}
	for _, l := range ls {
		x.Spec.Listeners = append(x.Spec.Listeners, gwv1.ListenerEntry{Name: l.Name, Hostname: l.Hostname, Port: l.Port, Protocol: l.Protocol, AllowedRoutes: l.AllowedRoutes})
	}
	return x
}

// allowListeners sets a Gateway's spec.allowedListeners.
func allowListeners(gw *gwv1.Gateway, from gwv1.FromNamespaces, sel *metav1.LabelSelector) *gwv1.Gateway {
	gw.Spec.AllowedListeners = &gwv1.AllowedListeners{Namespaces: &gwv1.ListenerNamespaces{From: ptr(from), Selector: sel}}
	return gw
}

// lsParent is a parentRef to a ListenerSet.
func lsParent(ns, name string) gwv1.ParentReference {
	p := parent(ns, name)
	p.Kind = ptr(gwv1.Kind("ListenerSet"))
	return p
}

func lsRef(ns, name, section string) topology.Ref {
	return routeRef("ListenerSet", ns, name, section)
}

// TestBuildListenerSet checks the ListenerSet's place (GEP-1713): under
// its Gateway when spec.allowedListeners admits its namespace ("Gateway &
// ListenerSet Handshake", None by default), its listeners as sections,
// and routes attached to them as to a Gateway's ("Route Attachment": a
// route attaches to the listeners of its direct parent only).
func TestBuildListenerSet(t *testing.T) {
	http := func(name string, opts ...listenerOpt) gwv1.Listener {
		return listener(name, gwv1.HTTPProtocolType, 8080, opts...)
	}
	gw := func() *gwv1.Gateway { return gateway("infra", "gw", "gc", listener("own", gwv1.HTTPProtocolType, 80)) }
	tests := []struct {
		name     string
		gw       *gwv1.Gateway
		ls       *gwv1.ListenerSet
		parent   gwv1.ParentReference
		hosts    []string
		accepted bool     // the Gateway is the ListenerSet's parent
		want     []string // the route's parents
	}{
		{name: "allowedListeners unset: None", gw: gw(), ls: listenerSet("infra", "ls", "", "gw", http("a")),
			parent: lsParent("infra", "ls")},
		{name: "None", gw: allowListeners(gw(), "None", nil), ls: listenerSet("infra", "ls", "", "gw", http("a")),
			parent: lsParent("infra", "ls")},
		{name: "Same", gw: allowListeners(gw(), gwv1.NamespacesFromSame, nil), ls: listenerSet("infra", "ls", "", "gw", http("a"), http("b")),
			parent: lsParent("infra", "ls"), accepted: true,
			want: []string{lsRef("infra", "ls", "a").Key(), lsRef("infra", "ls", "b").Key()}},
		{name: "Same, other namespace", gw: allowListeners(gw(), gwv1.NamespacesFromSame, nil), ls: listenerSet("app", "ls", "infra", "gw", http("a", allowFrom(gwv1.NamespacesFromAll, nil))),
			parent: lsParent("app", "ls")},
		{name: "All, other namespace", gw: allowListeners(gw(), gwv1.NamespacesFromAll, nil), ls: listenerSet("app", "ls", "infra", "gw", http("a", allowFrom(gwv1.NamespacesFromAll, nil))),
			parent: lsParent("app", "ls"), accepted: true, want: []string{lsRef("app", "ls", "a").Key()}},
		{name: "Selector matches", gw: allowListeners(gw(), gwv1.NamespacesFromSelector, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "app"}}),
			ls: listenerSet("app", "ls", "infra", "gw", http("a", allowFrom(gwv1.NamespacesFromAll, nil))), parent: lsParent("app", "ls"), accepted: true,
			want: []string{lsRef("app", "ls", "a").Key()}},
		{name: "Selector does not match", gw: allowListeners(gw(), gwv1.NamespacesFromSelector, &metav1.LabelSelector{MatchLabels: map[string]string{"team": "other"}}),
			ls: listenerSet("app", "ls", "infra", "gw", http("a", allowFrom(gwv1.NamespacesFromAll, nil))), parent: lsParent("app", "ls")},
		{name: "sectionName", gw: allowListeners(gw(), gwv1.NamespacesFromSame, nil), ls: listenerSet("infra", "ls", "", "gw", http("a"), http("b")),
			parent: withSection(lsParent("infra", "ls"), "b"), accepted: true, want: []string{lsRef("infra", "ls", "b").Key()}},
		{name: "sectionName of the Gateway's own listener", gw: allowListeners(gw(), gwv1.NamespacesFromSame, nil), ls: listenerSet("infra", "ls", "", "gw", http("a")),
			parent: withSection(lsParent("infra", "ls"), "own"), accepted: true},
		{name: "Gateway parentRef: its own listeners only", gw: allowListeners(gw(), gwv1.NamespacesFromSame, nil), ls: listenerSet("infra", "ls", "", "gw", http("a")),
			parent: parent("infra", "gw"), accepted: true, want: listenerKeys("infra", "gw", "own")},
		{name: "Gateway parentRef, ListenerSet's sectionName", gw: allowListeners(gw(), gwv1.NamespacesFromSame, nil), ls: listenerSet("infra", "ls", "", "gw", http("a")),
			parent: withSection(parent("infra", "gw"), "a"), accepted: true},
		{name: "allowedRoutes Same is the ListenerSet's namespace", gw: allowListeners(gw(), gwv1.NamespacesFromAll, nil), ls: listenerSet("app", "ls", "infra", "gw", http("a")),
			parent: lsParent("app", "ls"), accepted: true, want: []string{lsRef("app", "ls", "a").Key()}},
		{name: "hostnames intersect", gw: allowListeners(gw(), gwv1.NamespacesFromSame, nil), ls: listenerSet("infra", "ls", "", "gw", http("a", host("*.example.com")), http("b", host("other.com"))),
			parent: lsParent("infra", "ls"), hosts: []string{"a.example.com"}, accepted: true, want: []string{lsRef("infra", "ls", "a").Key()}},
		{name: "no such Gateway", gw: gw(), ls: listenerSet("infra", "ls", "", "nope", http("a")), parent: lsParent("infra", "ls")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			routeNS := tc.ls.Namespace
			if tc.parent.Kind == nil {
				routeNS = "infra"
			}
			g := topology.Build(&snapshot.Snapshot{
				Namespaces:   []*corev1.Namespace{namespace("infra", nil), namespace("app", map[string]string{"team": "app"})},
				Gateways:     []*gwv1.Gateway{tc.gw},
				ListenerSets: []*gwv1.ListenerSet{tc.ls},
				HTTPRoutes:   []*gwv1.HTTPRoute{httpRoute(routeNS, "r", []gwv1.ParentReference{tc.parent}, tc.hosts)},
			})
			ls := mustLookup(t, g, lsRef(tc.ls.Namespace, tc.ls.Name, ""))
			wantParents := []string(nil)
			if tc.accepted {
				wantParents = []string{gwRef("infra", "gw", "").Key()}
			}
			if got := keys(g, g.Node(ls).Parents); !sameKeys(got, wantParents) {
				t.Errorf("ListenerSet parents %q, want %q", got, wantParents)
			}
			if got := len(g.Problems) > 0; got == tc.accepted {
				t.Errorf("problems %v; accepted %v", g.Problems, tc.accepted)
			}
			got := parentKeys(t, g, routeRef("HTTPRoute", routeNS, "r", ""))
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !sameKeys(got, want) {
				t.Errorf("route parents %q, want %q", got, want)
			}
			// GEP-1713 "Policy Attachment": a ListenerSet inherits from its
			// Gateway, and its listeners, listeners like a Gateway's, from it.
			for _, l := range tc.ls.Spec.Listeners {
				sec := mustLookup(t, g, lsRef(tc.ls.Namespace, tc.ls.Name, string(l.Name)))
				if lv := g.Node(sec).Level; lv != hierarchy.LevelListener || g.Node(ls).Level != hierarchy.LevelListenerSet {
					t.Errorf("levels: ListenerSet %d, listener %d; want %d, %d", g.Node(ls).Level, lv, hierarchy.LevelListenerSet, hierarchy.LevelListener)
				}
			}
		})
	}
}
