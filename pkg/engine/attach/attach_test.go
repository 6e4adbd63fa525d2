package attach_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1b1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	"github.com/strata-dev/strata/internal/synth"
	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
	"github.com/strata-dev/strata/pkg/engine/attach"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

const (
	policyGroup = "policies.example.com"
	policyKind  = "ColorPolicy"
	gwGroup     = hierarchy.GatewayGroup
)

func ptr[T any](v T) *T { return &v }

// world is the topology every case runs on:
//
//	GatewayClass gc ─> Gateway infra/gw ─> #http, #https, #dup (twice)
//	                                        └─> HTTPRoute app/r ─> #login, #rule-1 ─> Service app/svc ─> #web
//	HTTPRoute app/r2 (labelled tier=web), HTTPRoute other/r3 (labelled tier=web)
//	Namespaces infra, app (objects), other (implicit)
func world(grants ...*gwv1b1.ReferenceGrant) *topology.Graph {
	listener := func(name string, port gwv1.PortNumber) gwv1.Listener {
		return gwv1.Listener{Name: gwv1.SectionName(name), Protocol: gwv1.HTTPProtocolType, Port: port,
			AllowedRoutes: &gwv1.AllowedRoutes{Namespaces: &gwv1.RouteNamespaces{From: ptr(gwv1.NamespacesFromAll)}}}
	}
	route := func(ns, name string, labels map[string]string, rules ...gwv1.HTTPRouteRule) *gwv1.HTTPRoute {
		r := &gwv1.HTTPRoute{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}}
		r.Spec.ParentRefs = []gwv1.ParentReference{{Name: "gw", Namespace: ptr(gwv1.Namespace("infra"))}}
		r.Spec.Rules = rules
		return r
	}
	return topology.Build(&snapshot.Snapshot{
		Namespaces: []*corev1.Namespace{
			{ObjectMeta: metav1.ObjectMeta{Name: "infra", Labels: map[string]string{"tier": "web"}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "app", Labels: map[string]string{"tier": "web"}}},
		},
		GatewayClasses: []*gwv1.GatewayClass{{ObjectMeta: metav1.ObjectMeta{Name: "gc"}}},
		Gateways: []*gwv1.Gateway{{
			ObjectMeta: metav1.ObjectMeta{Namespace: "infra", Name: "gw", Labels: map[string]string{"tier": "edge"}},
			Spec: gwv1.GatewaySpec{GatewayClassName: "gc", Listeners: []gwv1.Listener{
				listener("http", 80), listener("https", 443), listener("dup", 8080), listener("dup", 8081)}},
		}},
		HTTPRoutes: []*gwv1.HTTPRoute{
			route("app", "r", nil,
				gwv1.HTTPRouteRule{Name: ptr(gwv1.SectionName("login")), BackendRefs: []gwv1.HTTPBackendRef{{BackendRef: gwv1.BackendRef{BackendObjectReference: gwv1.BackendObjectReference{Name: "svc"}}}}},
				gwv1.HTTPRouteRule{}),
			route("app", "r2", map[string]string{"tier": "web"}, gwv1.HTTPRouteRule{Name: ptr(gwv1.SectionName("login"))}),
			route("other", "r3", map[string]string{"tier": "web"}, gwv1.HTTPRouteRule{Name: ptr(gwv1.SectionName("login"))}),
		},
		Services:        []*corev1.Service{{ObjectMeta: metav1.ObjectMeta{Namespace: "app", Name: "svc"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "web", Port: 80}}}}},
		ReferenceGrants: grants,
	})
}

// grant lets ColorPolicies in fromNS refer to objects of kind (group
// group) in ns, named name when not "".
func grant(ns, fromNS, group, kind, name string) *gwv1b1.ReferenceGrant {
	rg := &gwv1b1.ReferenceGrant{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "allow-policies"}}
	rg.Spec.From = []gwv1.ReferenceGrantFrom{{Group: policyGroup, Kind: policyKind, Namespace: gwv1.Namespace(fromNS)}}
	to := gwv1.ReferenceGrantTo{Group: gwv1.Group(group), Kind: gwv1.Kind(kind)}
	if name != "" {
		to.Name = ptr(gwv1.ObjectName(name))
	}
	rg.Spec.To = []gwv1.ReferenceGrantTo{to}
	return rg
}

func declaration(mut func(*policykind.Spec)) *policykind.Declaration {
	d := &policykind.Declaration{Spec: policykind.Spec{Group: policyGroup, Kind: policyKind}}
	d.Name = "colorpolicies." + policyGroup
	if mut != nil {
		mut(&d.Spec)
	}
	return d
}

func compile(t *testing.T, d *policykind.Declaration) *policykind.Kind {
	t.Helper()
	k, err := policykind.Compile(d)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return k
}

// policy is a ColorPolicy object; created is minutes after a fixed epoch.
func policy(ns, name string, created int, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": policyGroup + "/v1",
		"kind":       policyKind,
		"spec":       spec,
	}}
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetCreationTimestamp(metav1.NewTime(time.Date(2024, 1, 1, 0, created, 0, 0, time.UTC)))
	return u
}

// ref is one targetRefs entry.
func ref(group, kind, name string, kv ...string) map[string]any {
	m := map[string]any{"group": group, "kind": kind}
	if name != "" {
		m["name"] = name
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

func targets(refs ...map[string]any) map[string]any {
	l := make([]any, len(refs))
	for i, r := range refs {
		l[i] = r
	}
	return map[string]any{"targetRefs": l, "color": "blue"}
}

func key(group, kind, ns, name, section string) string {
	return topology.Ref{Group: group, Kind: kind, Namespace: ns, Name: name, Section: section}.Key()
}

type rejection struct {
	policy, field, reason, target string
	msg                           string // the message starts with it
}

func TestResolve(t *testing.T) {
	gwKey := key(gwGroup, "Gateway", "infra", "gw", "")
	tests := []struct {
		name     string
		decl     func(*policykind.Spec)
		grants   []*gwv1b1.ReferenceGrant
		policies []*unstructured.Unstructured
		// attached lists, per policy ID, "field node" of each attachment
		// in targetRef order.
		attached   map[string][]string
		rejections []rejection
	}{
		{
			name:     "by name",
			policies: []*unstructured.Unstructured{policy("infra", "p", 0, targets(ref(gwGroup, "Gateway", "gw")))},
			attached: map[string][]string{"infra/p": {"spec.targetRefs[0] " + gwKey}},
		},
		{
			name:     "legacy single targetRef",
			policies: []*unstructured.Unstructured{policy("infra", "p", 0, map[string]any{"targetRef": ref(gwGroup, "Gateway", "gw")})},
			attached: map[string][]string{"infra/p": {"spec.targetRef " + gwKey}},
		},
		{
			name: "targetRef and targetRefs together",
			policies: []*unstructured.Unstructured{policy("app", "p", 0, map[string]any{
				"targetRef":  ref(gwGroup, "HTTPRoute", "r"),
				"targetRefs": []any{ref("", "Service", "svc")},
			})},
			attached: map[string][]string{"app/p": {
				"spec.targetRef " + key(gwGroup, "HTTPRoute", "app", "r", ""),
				"spec.targetRefs[0] " + key("", "Service", "app", "svc", ""),
			}},
		},
		{
			name:     "group written with a version",
			policies: []*unstructured.Unstructured{policy("infra", "p", 0, targets(ref(gwGroup+"/v1", "Gateway", "gw")))},
			attached: map[string][]string{"infra/p": {"spec.targetRefs[0] " + gwKey}},
		},
		{
			name: "sectionName of a listener, a named rule, a generated rule and a port",
			policies: []*unstructured.Unstructured{
				policy("infra", "gw", 0, targets(ref(gwGroup, "Gateway", "gw", "sectionName", "https"))),
				policy("app", "rules", 0, targets(
					ref(gwGroup, "HTTPRoute", "r", "sectionName", "login"),
					ref(gwGroup, "HTTPRoute", "r", "sectionName", "rule-1"),
					ref("", "Service", "svc", "sectionName", "web"))),
			},
			attached: map[string][]string{
				"infra/gw": {"spec.targetRefs[0] " + key(gwGroup, "Gateway", "infra", "gw", "https")},
				"app/rules": {
					"spec.targetRefs[0] " + key(gwGroup, "HTTPRoute", "app", "r", "login"),
					"spec.targetRefs[1] " + key(gwGroup, "HTTPRoute", "app", "r", "rule-1"),
					"spec.targetRefs[2] " + key("", "Service", "app", "svc", "web"),
				},
			},
		},
		{
			name:     "unknown section",
			policies: []*unstructured.Unstructured{policy("infra", "p", 0, targets(ref(gwGroup, "Gateway", "gw"), ref(gwGroup, "Gateway", "gw", "sectionName", "nope")))},
			attached: map[string][]string{"infra/p": {"spec.targetRefs[0] " + gwKey}},
			rejections: []rejection{{policy: "infra/p", field: "spec.targetRefs[1]", reason: attach.ReasonTargetNotFound,
				target: key(gwGroup, "Gateway", "infra", "gw", "nope"), msg: `spec.targetRefs[1].sectionName: Gateway infra/gw has no listener named "nope"`}},
		},
		{
			name:     "unknown rule",
			policies: []*unstructured.Unstructured{policy("app", "p", 0, targets(ref(gwGroup, "HTTPRoute", "r", "sectionName", "rule-7")))},
			rejections: []rejection{{policy: "app/p", field: "spec.targetRefs[0]", reason: attach.ReasonTargetNotFound,
				target: key(gwGroup, "HTTPRoute", "app", "r", "rule-7"), msg: `spec.targetRefs[0].sectionName: HTTPRoute app/r has no rule named "rule-7"`}},
		},
		{
			name:     "ambiguous section",
			policies: []*unstructured.Unstructured{policy("infra", "p", 0, targets(ref(gwGroup, "Gateway", "gw", "sectionName", "dup")))},
			rejections: []rejection{{policy: "infra/p", field: "spec.targetRefs[0]", reason: attach.ReasonInvalid,
				target: key(gwGroup, "Gateway", "infra", "gw", "dup"), msg: "spec.targetRefs[0].sectionName: "}},
		},
		{
			name:     "dangling ref",
			policies: []*unstructured.Unstructured{policy("infra", "p", 0, targets(ref(gwGroup, "Gateway", "nope")))},
			rejections: []rejection{{policy: "infra/p", field: "spec.targetRefs[0]", reason: attach.ReasonTargetNotFound,
				target: key(gwGroup, "Gateway", "infra", "nope", ""), msg: "spec.targetRefs[0]: Gateway infra/nope not found"}},
		},
		{
			name: "kind not allowed by the declaration",
			decl: func(s *policykind.Spec) {
				s.TargetKinds = []strata.GroupKind{{Group: gwGroup, Kind: "Gateway"}}
			},
			policies: []*unstructured.Unstructured{policy("app", "p", 0, targets(ref(gwGroup, "HTTPRoute", "r")))},
			rejections: []rejection{{policy: "app/p", field: "spec.targetRefs[0]", reason: attach.ReasonInvalid,
				target: key(gwGroup, "HTTPRoute", "app", "r", ""), msg: "spec.targetRefs[0].kind: HTTPRoute.gateway.networking.k8s.io is not a target kind of ColorPolicy"}},
		},
		{
			name:     "kind of a modelled group outside the hierarchy",
			policies: []*unstructured.Unstructured{policy("app", "p", 0, targets(ref("", "Secret", "s")))},
			rejections: []rejection{{policy: "app/p", field: "spec.targetRefs[0]", reason: attach.ReasonInvalid,
				target: key("", "Secret", "app", "s", ""), msg: "spec.targetRefs[0].kind: "}},
		},
		{
			name:     "cross-namespace target without a ReferenceGrant",
			policies: []*unstructured.Unstructured{policy("app", "p", 0, targets(ref(gwGroup, "Gateway", "gw", "namespace", "infra")))},
			rejections: []rejection{{policy: "app/p", field: "spec.targetRefs[0]", reason: attach.ReasonInvalid,
				target: gwKey, msg: "spec.targetRefs[0].namespace: "}},
		},
		{
			name:     "cross-namespace target with a ReferenceGrant",
			grants:   []*gwv1b1.ReferenceGrant{grant("infra", "app", gwGroup, "Gateway", "")},
			policies: []*unstructured.Unstructured{policy("app", "p", 0, targets(ref(gwGroup, "Gateway", "gw", "namespace", "infra", "sectionName", "http")))},
			attached: map[string][]string{"app/p": {"spec.targetRefs[0] " + key(gwGroup, "Gateway", "infra", "gw", "http")}},
		},
		{
			name:     "ReferenceGrant naming the target",
			grants:   []*gwv1b1.ReferenceGrant{grant("infra", "app", gwGroup, "Gateway", "gw")},
			policies: []*unstructured.Unstructured{policy("app", "p", 0, targets(ref(gwGroup, "Gateway", "gw", "namespace", "infra")))},
			attached: map[string][]string{"app/p": {"spec.targetRefs[0] " + gwKey}},
		},
		{
			name:     "ReferenceGrant naming another object",
			grants:   []*gwv1b1.ReferenceGrant{grant("infra", "app", gwGroup, "Gateway", "other")},
			policies: []*unstructured.Unstructured{policy("app", "p", 0, targets(ref(gwGroup, "Gateway", "gw", "namespace", "infra")))},
			rejections: []rejection{{policy: "app/p", field: "spec.targetRefs[0]", reason: attach.ReasonInvalid,
				target: gwKey, msg: "spec.targetRefs[0].namespace: "}},
		},
		{
			name: "ReferenceGrant from another policy kind",
			grants: []*gwv1b1.ReferenceGrant{func() *gwv1b1.ReferenceGrant {
				g := grant("infra", "app", gwGroup, "Gateway", "")
				g.Spec.From[0].Kind = "OtherPolicy"
				return g
			}()},
			policies: []*unstructured.Unstructured{policy("app", "p", 0, targets(ref(gwGroup, "Gateway", "gw", "namespace", "infra")))},
			rejections: []rejection{{policy: "app/p", field: "spec.targetRefs[0]", reason: attach.ReasonInvalid,
				target: gwKey, msg: "spec.targetRefs[0].namespace: "}},
		},
		{
			name:     "ReferenceGrant from another namespace",
			grants:   []*gwv1b1.ReferenceGrant{grant("infra", "other", gwGroup, "Gateway", "")},
			policies: []*unstructured.Unstructured{policy("app", "p", 0, targets(ref(gwGroup, "Gateway", "gw", "namespace", "infra")))},
			rejections: []rejection{{policy: "app/p", field: "spec.targetRefs[0]", reason: attach.ReasonInvalid,
				target: gwKey, msg: "spec.targetRefs[0].namespace: "}},
		},
		{
			name:     "own namespace spelled out",
			policies: []*unstructured.Unstructured{policy("infra", "p", 0, targets(ref(gwGroup, "Gateway", "gw", "namespace", "infra")))},
			attached: map[string][]string{"infra/p": {"spec.targetRefs[0] " + gwKey}},
		},
		{
			name: "Namespace: own, and another without a grant",
			policies: []*unstructured.Unstructured{policy("app", "p", 0, targets(
				ref("", "Namespace", "app"), ref("", "Namespace", "infra")))},
			attached: map[string][]string{"app/p": {"spec.targetRefs[0] " + key("", "Namespace", "", "app", "")}},
			rejections: []rejection{{policy: "app/p", field: "spec.targetRefs[1]", reason: attach.ReasonInvalid,
				target: key("", "Namespace", "", "infra", ""), msg: "spec.targetRefs[1].namespace: "}},
		},
		{
			name:     "Namespace: another with a grant",
			grants:   []*gwv1b1.ReferenceGrant{grant("infra", "app", "", "Namespace", "infra")},
			policies: []*unstructured.Unstructured{policy("app", "p", 0, targets(ref("", "Namespace", "infra")))},
			attached: map[string][]string{"app/p": {"spec.targetRefs[0] " + key("", "Namespace", "", "infra", "")}},
		},
		{
			name: "label selector matches the policy's namespace only",
			policies: []*unstructured.Unstructured{policy("app", "p", 0, targets(map[string]any{
				"group": gwGroup, "kind": "HTTPRoute", "selector": map[string]any{"matchLabels": map[string]any{"tier": "web"}}}))},
			attached: map[string][]string{"app/p": {"spec.targetRefs[0] " + key(gwGroup, "HTTPRoute", "app", "r2", "")}},
		},
		{
			name: "label selector with a sectionName",
			policies: []*unstructured.Unstructured{policy("app", "p", 0, targets(map[string]any{
				"group": gwGroup, "kind": "HTTPRoute", "sectionName": "login", "selector": map[string]any{}}))},
			attached: map[string][]string{"app/p": {
				"spec.targetRefs[0] " + key(gwGroup, "HTTPRoute", "app", "r", "login"),
				"spec.targetRefs[0] " + key(gwGroup, "HTTPRoute", "app", "r2", "login"),
			}},
		},
		{
			name: "label selector in another namespace needs a grant",
			policies: []*unstructured.Unstructured{policy("app", "p", 0, targets(map[string]any{
				"group": gwGroup, "kind": "HTTPRoute", "namespace": "other", "selector": map[string]any{"matchLabels": map[string]any{"tier": "web"}}}))},
		},
		{
			name:   "label selector in another namespace with a grant",
			grants: []*gwv1b1.ReferenceGrant{grant("other", "app", gwGroup, "HTTPRoute", "")},
			policies: []*unstructured.Unstructured{policy("app", "p", 0, targets(map[string]any{
				"group": gwGroup, "kind": "HTTPRoute", "namespace": "other", "selector": map[string]any{"matchLabels": map[string]any{"tier": "web"}}}))},
			attached: map[string][]string{"app/p": {"spec.targetRefs[0] " + key(gwGroup, "HTTPRoute", "other", "r3", "")}},
		},
		{
			name: "label selector on cluster-scoped Namespaces: only the policy's own",
			policies: []*unstructured.Unstructured{policy("app", "p", 0, targets(map[string]any{
				"group": "", "kind": "Namespace", "selector": map[string]any{"matchLabels": map[string]any{"tier": "web"}}}))},
			attached: map[string][]string{"app/p": {"spec.targetRefs[0] " + key("", "Namespace", "", "app", "")}},
		},
		{
			name: "invalid label selector",
			policies: []*unstructured.Unstructured{policy("app", "p", 0, targets(map[string]any{
				"group": gwGroup, "kind": "HTTPRoute", "selector": map[string]any{"matchExpressions": []any{map[string]any{"key": "a", "operator": "Bogus"}}}}))},
			rejections: []rejection{{policy: "app/p", field: "spec.targetRefs[0]", reason: attach.ReasonInvalid,
				target: key(gwGroup, "HTTPRoute", "app", "", ""), msg: "spec.targetRefs[0].selector: "}},
		},
		{
			name:     "virtual kind creates a node",
			policies: []*unstructured.Unstructured{policy("app", "p", 0, targets(ref("dns.example.com", "FQDN", "api")))},
			attached: map[string][]string{"app/p": {"spec.targetRefs[0] " + key("dns.example.com", "FQDN", "app", "api", "")}},
		},
		{
			name:     "virtual kind has no sections",
			policies: []*unstructured.Unstructured{policy("app", "p", 0, targets(ref("dns.example.com", "FQDN", "api", "sectionName", "x")))},
			rejections: []rejection{{policy: "app/p", field: "spec.targetRefs[0]", reason: attach.ReasonInvalid,
				target: key("dns.example.com", "FQDN", "app", "api", "x"), msg: "spec.targetRefs[0].sectionName: "}},
		},
		{
			name:     "virtual kind by label selector",
			policies: []*unstructured.Unstructured{policy("app", "p", 0, targets(map[string]any{"group": "dns.example.com", "kind": "FQDN", "selector": map[string]any{}}))},
			rejections: []rejection{{policy: "app/p", field: "spec.targetRefs[0]", reason: attach.ReasonInvalid,
				target: key("dns.example.com", "FQDN", "app", "", ""), msg: "spec.targetRefs[0].selector: "}},
		},
		{
			name:     "namespace on a cluster-scoped kind",
			policies: []*unstructured.Unstructured{policy("infra", "p", 0, targets(ref(gwGroup, "GatewayClass", "gc", "namespace", "infra")))},
			rejections: []rejection{{policy: "infra/p", field: "spec.targetRefs[0]", reason: attach.ReasonInvalid,
				target: key(gwGroup, "GatewayClass", "", "gc", ""), msg: "spec.targetRefs[0].namespace: "}},
		},
		{
			name:     "cluster-scoped policy must name the namespace of a namespaced target",
			policies: []*unstructured.Unstructured{policy("", "p", 0, targets(ref(gwGroup, "Gateway", "gw")))},
			rejections: []rejection{{policy: "p", field: "spec.targetRefs[0]", reason: attach.ReasonInvalid,
				target: key(gwGroup, "Gateway", "", "gw", ""), msg: "spec.targetRefs[0].namespace: required"}},
		},
		{
			name:     "cluster-scoped policy reaches any namespace",
			policies: []*unstructured.Unstructured{policy("", "p", 0, targets(ref(gwGroup, "Gateway", "gw", "namespace", "infra")))},
			attached: map[string][]string{"p": {"spec.targetRefs[0] " + gwKey}},
		},
		{
			name:     "two targetRefs to one node attach once",
			policies: []*unstructured.Unstructured{policy("infra", "p", 0, targets(ref(gwGroup, "Gateway", "gw"), ref(gwGroup, "Gateway", "gw", "namespace", "infra")))},
			attached: map[string][]string{"infra/p": {"spec.targetRefs[0] " + gwKey}},
		},
		{
			name: "Invalid policy: both defaults and overrides on an exclusive kind",
			decl: func(s *policykind.Spec) { s.Strategies.Exclusive = true },
			policies: []*unstructured.Unstructured{policy("infra", "p", 0, map[string]any{
				"targetRefs": []any{ref(gwGroup, "Gateway", "gw"), ref(gwGroup, "Gateway", "nope")},
				"defaults":   map[string]any{"color": "blue"},
				"overrides":  map[string]any{"color": "red"},
			})},
			rejections: []rejection{
				{policy: "infra/p", field: "spec.targetRefs[0]", reason: attach.ReasonInvalid, target: gwKey, msg: "spec: sets both defaults and overrides"},
				{policy: "infra/p", field: "spec.targetRefs[1]", reason: attach.ReasonInvalid, target: key(gwGroup, "Gateway", "infra", "nope", ""), msg: "spec: sets both defaults and overrides"},
			},
		},
		{
			name: "Invalid policy: unsupported strategy value",
			policies: []*unstructured.Unstructured{policy("infra", "p", 0, map[string]any{
				"targetRefs": []any{ref(gwGroup, "Gateway", "gw")},
				"defaults":   map[string]any{"strategy": "sometimes", "color": "blue"},
			})},
			rejections: []rejection{{policy: "infra/p", field: "spec.targetRefs[0]", reason: attach.ReasonInvalid, target: gwKey, msg: `spec.defaults.strategy: "sometimes" is not one of`}},
		},
		{
			// The malformed entry names no target to report against; the
			// well-formed one carries the policy's status.
			name: "Invalid policy: a malformed targetRef invalidates the others",
			policies: []*unstructured.Unstructured{policy("infra", "p", 0, map[string]any{
				"targetRefs": []any{map[string]any{"name": "gw"}, ref(gwGroup, "Gateway", "gw")},
			})},
			rejections: []rejection{{policy: "infra/p", field: "spec.targetRefs[1]", reason: attach.ReasonInvalid, target: gwKey, msg: "spec.targetRefs[0].kind: required"}},
		},
		{
			name: "Invalid policy: strategy the kind does not support",
			decl: func(s *policykind.Spec) { s.Strategies.Supported = []string{"AtomicDefaults"} },
			policies: []*unstructured.Unstructured{policy("infra", "p", 0, map[string]any{
				"targetRefs": []any{ref(gwGroup, "Gateway", "gw")},
				"overrides":  map[string]any{"color": "blue"},
			})},
			rejections: []rejection{{policy: "infra/p", field: "spec.targetRefs[0]", reason: attach.ReasonInvalid, target: gwKey, msg: "spec.overrides.strategy: strategy AtomicOverrides is not supported"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := world(tc.grants...)
			k := compile(t, declaration(tc.decl))
			var ps []*policykind.Policy
			for _, u := range tc.policies {
				ps = append(ps, k.Read(u))
			}
			g = g.Extend(topology.Extra{Virtual: attach.VirtualTargets(g.Grants(), ps)})
			res := attach.Resolve(g, ps)

			got := map[string][]string{}
			total := 0
			for _, p := range ps {
				for _, a := range res.ByPolicy[p] {
					if a.Policy != p {
						t.Errorf("ByPolicy[%s] holds an attachment of %s", p.ID(), a.Policy.ID())
					}
					got[p.ID()] = append(got[p.ID()], a.Field+" "+g.Node(a.Node).Ref.Key())
					total++
					if !slices.Contains(res.ByNode[a.Node], a) {
						t.Errorf("attachment %s of %s missing from ByNode", a.Field, p.ID())
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(mapOrEmpty(tc.attached)) {
				t.Errorf("attached:\n got %q\nwant %q", got, tc.attached)
			}
			inNodes := 0
			for _, as := range res.ByNode {
				inNodes += len(as)
			}
			if inNodes != total {
				t.Errorf("ByNode holds %d attachments, ByPolicy %d", inNodes, total)
			}

			if len(res.Rejections) != len(tc.rejections) {
				t.Fatalf("rejections:\n got %s\nwant %v", fmtRejections(res.Rejections), tc.rejections)
			}
			for i, w := range tc.rejections {
				r := res.Rejections[i]
				if r.Policy.ID() != w.policy || r.Field != w.field || r.Reason != w.reason || r.Target.Key() != w.target || !strings.HasPrefix(r.Message, w.msg) {
					t.Errorf("rejection %d:\n got %s\nwant %+v", i, fmtRejections(res.Rejections[i:i+1]), w)
				}
			}
		})
	}
}

func mapOrEmpty(m map[string][]string) map[string][]string {
	if m == nil {
		return map[string][]string{}
	}
	return m
}

func fmtRejections(rs []attach.Rejection) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "{%s %s %s %s %q} ", r.Policy.ID(), r.Field, r.Reason, r.Target.Key(), r.Message)
	}
	return b.String()
}

// TestResolveVirtualNode: the virtual objects policies target are known
// before the graph is built (VirtualTargets), become leaf roots of it, and
// Resolve attaches to them without adding nodes.
func TestResolveVirtualNode(t *testing.T) {
	base := world()
	k := compile(t, declaration(nil))
	p := k.Read(policy("app", "p", 0, targets(ref("dns.example.com", "FQDN", "api"))))
	q := k.Read(policy("app", "q", 0, targets(ref("dns.example.com", "FQDN", "api"))))
	ps := []*policykind.Policy{p, q}
	virtual := attach.VirtualTargets(base.Grants(), ps)
	api := topology.Ref{Group: "dns.example.com", Kind: "FQDN", Namespace: "app", Name: "api"}
	if !slices.Equal(virtual, []topology.Ref{api, api}) {
		t.Fatalf("VirtualTargets = %v", virtual)
	}
	g := base.Extend(topology.Extra{Virtual: virtual})
	if len(g.Nodes) != len(base.Nodes)+1 {
		t.Fatalf("nodes %d -> %d, want one virtual node", len(base.Nodes), len(g.Nodes))
	}
	before := len(g.Nodes)
	res := attach.Resolve(g, ps)
	if len(g.Nodes) != before {
		t.Fatalf("Resolve added nodes: %d -> %d", before, len(g.Nodes))
	}
	as := res.ByPolicy[p]
	if len(as) != 1 {
		t.Fatalf("attachments %v", as)
	}
	n := g.Node(as[0].Node)
	if !n.Virtual || n.Level != hierarchy.LevelVirtual || len(n.Parents) != 0 {
		t.Errorf("virtual node %+v", n)
	}
	if got := g.ByKind(n.Ref.GroupKind()); !slices.Equal(got, []topology.NodeID{as[0].Node}) {
		t.Errorf("ByKind(FQDN) = %v", got)
	}
	// A second policy on the same virtual target shares the node.
	if res.ByPolicy[q][0].Node != as[0].Node {
		t.Errorf("second policy did not reuse the virtual node")
	}
	// Without the virtual node, the target is not found (and none is made).
	res = attach.Resolve(base, ps)
	if len(res.ByPolicy[p]) != 0 || len(res.Rejections) != 2 || res.Rejections[0].Reason != attach.ReasonTargetNotFound {
		t.Errorf("on a graph without the virtual node: %+v, %+v", res.ByPolicy, res.Rejections)
	}
}

func TestResolveGatewayClassScope(t *testing.T) {
	tests := []struct {
		name    string
		ns      string
		globals []string
		want    string
	}{
		{name: "namespaced policy is scoped to its namespace", ns: "app", want: "app"},
		{name: "global namespace applies everywhere", ns: "infra", globals: []string{"infra"}, want: ""},
		{name: "other namespaces stay scoped", ns: "app", globals: []string{"infra"}, want: "app"},
		{name: "cluster-scoped policy", ns: "", want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := world()
			k := compile(t, declaration(func(s *policykind.Spec) { s.GlobalNamespaces = tc.globals }))
			p := k.Read(policy(tc.ns, "p", 0, targets(ref(gwGroup, "GatewayClass", "gc"), ref(gwGroup, "Gateway", "gw", "namespace", "infra"))))
			res := attach.Resolve(g, []*policykind.Policy{p})
			as := res.ByPolicy[p]
			if len(as) == 0 {
				t.Fatalf("not attached; rejections %s", fmtRejections(res.Rejections))
			}
			if g.Node(as[0].Node).Ref.Kind != "GatewayClass" || as[0].Scope != tc.want {
				t.Errorf("attachment to %s scope %q, want GatewayClass scope %q", g.Node(as[0].Node).Ref.Key(), as[0].Scope, tc.want)
			}
			for _, a := range as[1:] {
				if a.Scope != "" {
					t.Errorf("attachment to %s has scope %q; only GatewayClass attachments are scoped", g.Node(a.Node).Ref.Key(), a.Scope)
				}
			}
		})
	}
}

// TestResolveConflictOrder checks ByNode follows GEP-713 "Conflict
// resolution rules": the older creationTimestamp first, then
// {namespace}/{name}.
func TestResolveConflictOrder(t *testing.T) {
	tests := []struct {
		name     string
		policies []*unstructured.Unstructured
		want     []string
	}{
		{
			name: "older first",
			policies: []*unstructured.Unstructured{
				policy("infra", "a", 3, targets(ref(gwGroup, "Gateway", "gw"))),
				policy("infra", "b", 1, targets(ref(gwGroup, "Gateway", "gw"))),
				policy("infra", "c", 2, targets(ref(gwGroup, "Gateway", "gw"))),
			},
			want: []string{"infra/b", "infra/c", "infra/a"},
		},
		{
			name: "same age: by namespace/name",
			policies: []*unstructured.Unstructured{
				policy("infra", "z", 1, targets(ref(gwGroup, "Gateway", "gw"))),
				policy("", "m", 1, targets(ref(gwGroup, "Gateway", "gw", "namespace", "infra"))),
				policy("infra", "a", 1, targets(ref(gwGroup, "Gateway", "gw"))),
			},
			want: []string{"infra/a", "infra/z", "m"},
		},
		{
			name: "age before name",
			policies: []*unstructured.Unstructured{
				policy("infra", "a", 2, targets(ref(gwGroup, "Gateway", "gw"))),
				policy("infra", "b", 1, targets(ref(gwGroup, "Gateway", "gw"))),
				policy("infra", "c", 2, targets(ref(gwGroup, "Gateway", "gw"))),
			},
			want: []string{"infra/b", "infra/a", "infra/c"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := world()
			k := compile(t, declaration(nil))
			var ps []*policykind.Policy
			for _, u := range tc.policies {
				ps = append(ps, k.Read(u))
			}
			for _, order := range [][]*policykind.Policy{ps, reversed(ps)} {
				res := attach.Resolve(g, order)
				var got []string
				for _, a := range res.ByNode[g.Lookup(topology.Ref{Group: gwGroup, Kind: "Gateway", Namespace: "infra", Name: "gw"})] {
					got = append(got, a.Policy.ID())
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("ByNode order %q, want %q", got, tc.want)
				}
			}
		})
	}
}

func reversed[T any](s []T) []T {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

// At answers ByNode[n] for every node, from its bits where a node has no
// attachment: on a synthetic world's kinds (nodes in every word of the
// bits), for Of's part of the result, for ids outside the graph, and for
// a Result made without Resolve.
func TestAt(t *testing.T) {
	s := synth.Generate(synth.Sizes{Namespaces: 4, Gateways: 8, Routes: 160, Services: 160, Policies: 200}, 3)
	g := topology.Build(s)
	checked := 0
	for _, d := range s.Declarations {
		k, err := policykind.Compile(d)
		if err != nil {
			t.Fatal(err)
		}
		var ps []*policykind.Policy
		for _, u := range s.Policies {
			if u.GetKind() == k.Kind {
				ps = append(ps, k.Read(u))
			}
		}
		res := attach.Resolve(g, ps)
		bare := &attach.Result{ByNode: res.ByNode, ByPolicy: res.ByPolicy}
		for name, r := range map[string]*attach.Result{"Resolve": res, "Of": res.Of(k), "a literal": bare} {
			for n := topology.NodeID(-1); int(n) < len(g.Nodes)+70; n++ {
				if got, want := r.At(n), r.ByNode[n]; !slices.Equal(got, want) {
					t.Fatalf("%s, %s: At(%d) = %v, ByNode has %v", k.Kind, name, n, got, want)
				}
				if len(r.ByNode[n]) > 0 {
					checked++
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no node with attachments")
	}
}
