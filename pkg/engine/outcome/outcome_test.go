package outcome_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/strata-dev/strata/internal/enginetest"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/outcome"
)

// world: Gateway gw (listeners http and admin) and Gateway edge; routes
// web (on gw's listener http and on edge) and other (on gw) in namespace
// web; Gateway idle with no route; Namespace lonely with a Service no
// Gateway reaches.
const world = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: shared}
spec: {controllerName: example.com/gw}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: shared
  listeners:
  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}
  - {name: admin, protocol: HTTP, port: 8080, hostname: admin.example.com, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: edge, namespace: edge}
spec:
  gatewayClassName: shared
  listeners: [{name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: idle, namespace: infra}
spec:
  gatewayClassName: shared
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: web}
spec:
  parentRefs: [{name: gw, namespace: infra, sectionName: http}, {name: edge, namespace: edge}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: other, namespace: web}
spec:
  parentRefs: [{name: gw, namespace: infra, sectionName: http}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: web}
spec: {ports: [{name: http, port: 80}]}
---
apiVersion: v1
kind: Namespace
metadata: {name: lonely}
---
apiVersion: v1
kind: Service
metadata: {name: alone, namespace: lonely}
spec: {ports: [{name: http, port: 80}]}
`

// kindDecl declares kind (in group example.io) with the given effective
// kind and extra lines of spec.
func kindDecl(kind, effectiveKind, extra string) string {
	group, service := "gateway.networking.k8s.io", ""
	if effectiveKind == "Service" {
		group, service = "", "\n  - {group: \"\", kind: Service}"
	}
	return fmt.Sprintf(`apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: %[1]s}
spec:
  group: example.io
  kind: %[1]s
  targetKinds:
  - {group: "", kind: Namespace}
  - {group: gateway.networking.k8s.io, kind: GatewayClass}
  - {group: gateway.networking.k8s.io, kind: Gateway}
  - {group: gateway.networking.k8s.io, kind: HTTPRoute}%[5]s
  effectiveTargetKind: {group: %[3]q, kind: %[2]s}
%[4]s`, kind, effectiveKind, group, extra, service)
}

const (
	patch  = "  strategies: {supported: [PatchDefaults, PatchOverrides], default: PatchDefaults}\n"
	none   = "  strategies: {supported: [None], default: None}\n"
	atomic = "  strategies: {supported: [AtomicDefaults], default: AtomicDefaults}\n"
)

func pol(kind, ns, name, day, target, spec string) string {
	return fmt.Sprintf(`apiVersion: example.io/v1
kind: %s
metadata: {name: %s, namespace: %s, creationTimestamp: "2026-01-%sT00:00:00Z", generation: 3}
spec:
  targetRef: %s
%s`, kind, name, ns, day, target, spec)
}

const (
	toNS       = `{group: "", kind: Namespace, name: %s}`
	toGW       = `{group: gateway.networking.k8s.io, kind: Gateway, name: %s}`
	toListener = `{group: gateway.networking.k8s.io, kind: Gateway, name: %s, sectionName: %s}`
	toRoute    = `{group: gateway.networking.k8s.io, kind: HTTPRoute, name: %s}`
)

// run runs the engine on docs for its graph, policies, attachments and
// effective policies, then calls outcome.Compute itself, kind by kind.
func run(t *testing.T, docs ...string) (*engine.Result, *outcome.Outcome) {
	t.Helper()
	res := enginetest.RunYAML(t, docs...)
	var parts []*outcome.Outcome
	for _, kr := range res.Kinds {
		parts = append(parts, outcome.Compute(res.Graph, kr.Policies, outcome.Input{Attachments: kr.Attachments, Effective: kr.Effective}))
	}
	return res, outcome.Merge(parts...)
}

// conds renders conditions one a line: Type=Status Reason gen: message.
func conds(cs []metav1.Condition) []string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s=%s %s %d: %s", c.Type, c.Status, c.Reason, c.ObservedGeneration, c.Message))
	}
	return out
}

// ancestors of a policy by name: ref -> conditions.
func ancestors(t *testing.T, o *outcome.Outcome, name string) map[string][]string {
	t.Helper()
	for _, ps := range o.Policies {
		if ps.Policy.Name == name {
			out := map[string][]string{}
			for _, a := range ps.Ancestors {
				out[a.Ref.String()] = conds(a.Conditions)
			}
			return out
		}
	}
	t.Fatalf("no status for policy %s", name)
	return nil
}

// enforced is the condition list of a policy Enforced with the message.
func enforced(msg string) []string {
	return []string{
		"Accepted=True Accepted 3: accepted",
		"Enforced=True Enforced 3: " + msg,
		"PartiallyEnforced=False NotApplicable 3: the policy is Enforced",
		"Overridden=False NotApplicable 3: the policy is Enforced",
	}
}

func overridden(msg string) []string {
	return []string{
		"Accepted=True Accepted 3: accepted",
		"Enforced=False NotApplicable 3: the policy is Overridden",
		"PartiallyEnforced=False NotApplicable 3: the policy is Overridden",
		"Overridden=True Overridden 3: " + msg,
	}
}

func partially(msg string) []string {
	return []string{
		"Accepted=True Accepted 3: accepted",
		"Enforced=False NotApplicable 3: the policy is PartiallyEnforced",
		"PartiallyEnforced=True PartiallyEnforced 3: " + msg,
		"Overridden=False NotApplicable 3: the policy is PartiallyEnforced",
	}
}

// TestPolicyConditions checks the status.ancestors of policy p, per
// ancestor ref and condition, messages included (001 "Conditions: On
// Policy objects"; GEP-713 "Metaresource status").
func TestPolicyConditions(t *testing.T) {
	k := "TestPolicy"
	for _, c := range []struct {
		name string
		docs []string
		want map[string][]string // ancestor ref -> conditions of p
	}{{
		// GEP-713 "Metaresource status": one ancestor per Gateway through
		// which the policy acts.
		name: `GEP-713 "Metaresource status": Enforced, one ancestor per Gateway`,
		docs: []string{kindDecl(k, "HTTPRoute", patch), pol(k, "web", "p", "01", fmt.Sprintf(toRoute, "web"), "  defaults: {a: p}")},
		want: map[string][]string{
			"Gateway edge/edge": enforced("fully enforced in 1 context"),
			"Gateway infra/gw":  enforced("fully enforced in 1 context"),
		},
	}, {
		// A policy on a listener reports against the Gateway with the
		// listener's sectionName (GEP-713 "Metaresource status",
		// PolicyAncestorStatus.ancestorRef).
		name: `GEP-713 "Metaresource status": listener section in the ancestor ref`,
		docs: []string{kindDecl(k, "HTTPRoute", patch), pol(k, "infra", "p", "01", fmt.Sprintf(toListener, "gw", "http"), "  defaults: {a: p}")},
		want: map[string][]string{
			"Gateway infra/gw#http": enforced("fully enforced in 2 contexts"),
		},
	}, {
		name: `GEP-713 "Overridden": overridden by a Gateway override through gw, enforced through edge`,
		docs: []string{kindDecl(k, "HTTPRoute", patch),
			pol(k, "web", "p", "01", fmt.Sprintf(toRoute, "web"), "  defaults: {a: p}"),
			pol(k, "infra", "o", "02", fmt.Sprintf(toGW, "gw"), "  overrides: {a: o}\n  strategy: PatchOverrides")},
		want: map[string][]string{
			"Gateway edge/edge": enforced("fully enforced in 1 context"),
			"Gateway infra/gw":  overridden("overridden by infra/o in its only context"),
		},
	}, {
		// GEP-713 "PartiallyEnforced": "details highlighting which parts
		// ... have been superseded, with the references to all other
		// related metaresources".
		name: `GEP-713 "PartiallyEnforced": some fields lost in one context`,
		docs: []string{kindDecl(k, "HTTPRoute", patch),
			pol(k, "web", "p", "01", fmt.Sprintf(toRoute, "web"), "  defaults: {a: p, b: p}"),
			pol(k, "infra", "o", "02", fmt.Sprintf(toGW, "gw"), "  overrides: {a: o}\n  strategy: PatchOverrides")},
		want: map[string][]string{
			"Gateway edge/edge": enforced("fully enforced in 1 context"),
			"Gateway infra/gw":  partially("superseded by infra/o in 1 of 1 context (fields /a)"),
		},
	}, {
		name: `GEP-713 "PartiallyEnforced": overridden in one of two contexts through one Gateway`,
		docs: []string{kindDecl(k, "HTTPRoute", patch),
			pol(k, "web", "p", "01", fmt.Sprintf(toNS, "web"), "  defaults: {a: p}"),
			pol(k, "web", "q", "02", fmt.Sprintf(toRoute, "other"), "  defaults: {a: q}")},
		want: map[string][]string{
			"Gateway edge/edge": enforced("fully enforced in 1 context"),
			"Gateway infra/gw":  partially("superseded by web/q in 1 of 2 contexts (fields /a)"),
		},
	}, {
		// 004 "Merge strategies" None: "all the other metaresources
		// attached to the same target are rejected".
		name: `004 "Merge strategies" None: the newer policy on one target is Conflicted`,
		docs: []string{kindDecl(k, "HTTPRoute", none),
			pol(k, "infra", "o", "01", fmt.Sprintf(toGW, "gw"), "  a: o"),
			pol(k, "infra", "p", "02", fmt.Sprintf(toGW, "gw"), "  a: p")},
		want: map[string][]string{
			"Gateway infra/gw": {"Accepted=False Conflicted 3: conflicts with infra/o, which wins under the None merge strategy (older, then first by namespace/name)"},
		},
	}, {
		// 004 None: conflicts are rejections at the node even when no
		// effective target is reached through it.
		name: `004 "Merge strategies" None: Conflicted where no effective target is reached`,
		docs: []string{kindDecl(k, "HTTPRoute", none),
			pol(k, "infra", "o", "01", fmt.Sprintf(toGW, "idle"), "  a: o"),
			pol(k, "infra", "p", "02", fmt.Sprintf(toGW, "idle"), "  a: p")},
		want: map[string][]string{
			"Gateway infra/idle": {"Accepted=False Conflicted 3: conflicts with infra/o, which wins under the None merge strategy (older, then first by namespace/name)"},
		},
	}, {
		// 004 None rejects p where it shares a target with an older
		// policy (route web), not where it stands alone (route other):
		// through gw, one context of each.
		name: `004 "Merge strategies" None: conflicted in one of two contexts through one Gateway`,
		docs: []string{kindDecl(k, "HTTPRoute", none),
			pol(k, "web", "o", "01", fmt.Sprintf(toRoute, "web"), "  a: o"),
			pol(k, "web", "p", "02", fmt.Sprintf(toRoute, "web"), "  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: other}]\n  a: p")},
		want: map[string][]string{
			"Gateway edge/edge": {"Accepted=False Conflicted 3: conflicts with web/o, which wins under the None merge strategy (older, then first by namespace/name)"},
			"Gateway infra/gw":  partially("conflicts with web/o in 1 of 2 contexts"),
		},
	}, {
		// GEP-713 "Atomic spec": a more specific spec that sets no field
		// removes p's fields whole; the message names the policy whose
		// spec replaced p's, though it sets no field itself.
		name: `GEP-713 "Atomic spec": fields removed by a spec that sets none`,
		docs: []string{kindDecl(k, "HTTPRoute", atomic),
			pol(k, "infra", "p", "01", fmt.Sprintf(toGW, "gw"), "  a: p"),
			pol(k, "web", "q", "02", fmt.Sprintf(toRoute, "web"), "")},
		want: map[string][]string{
			"Gateway infra/gw": partially("superseded by web/q in 1 of 2 contexts (fields /a)"),
		},
	}, {
		// A spec that sets no field, replaced whole in one context:
		// superseded as a whole, which the message says in place of a
		// list of fields.
		name: `GEP-713 "Atomic spec": a spec setting no field, superseded in one of two contexts`,
		docs: []string{kindDecl(k, "HTTPRoute", atomic),
			pol(k, "web", "p", "01", fmt.Sprintf(toNS, "web"), ""),
			pol(k, "web", "q", "02", fmt.Sprintf(toRoute, "web"), "  a: q")},
		want: map[string][]string{
			"Gateway edge/edge": overridden("overridden by web/q in its only context"),
			"Gateway infra/gw":  partially("superseded by web/q in 1 of 2 contexts (its whole spec, which sets no field)"),
		},
	}, {
		// 001 "Conditions: On Policy objects": Accepted=False
		// TargetNotFound, against the declared target.
		name: `001 "Conditions: On Policy objects": TargetNotFound`,
		docs: []string{kindDecl(k, "HTTPRoute", patch), pol(k, "web", "p", "01", fmt.Sprintf(toRoute, "missing"), "  defaults: {a: p}")},
		want: map[string][]string{
			"HTTPRoute web/missing": {"Accepted=False TargetNotFound 3: spec.targetRef: HTTPRoute web/missing not found"},
		},
	}, {
		// Attached and accepted, but no effective target below yet: the
		// message says so rather than leaving a slot empty.
		name: `GEP-713 "Metaresource status": no effective target reached yet`,
		docs: []string{kindDecl(k, "HTTPRoute", patch), pol(k, "infra", "p", "01", fmt.Sprintf(toGW, "idle"), "  defaults: {a: p}")},
		want: map[string][]string{
			"Gateway infra/idle": enforced("no HTTPRoute is reached through Gateway infra/idle yet; nothing is superseded"),
		},
	}, {
		// GEP-1897 (001 "Metaresource status"): with no Gateway on the
		// path, the ancestor is the node the policy is attached to.
		name: `GEP-713 "Metaresource status": no Gateway on the path, the attached node is the ancestor`,
		docs: []string{kindDecl(k, "Service", patch), pol(k, "lonely", "p", "01", fmt.Sprintf(toNS, "lonely"), "  defaults: {a: p}")},
		want: map[string][]string{
			"Namespace lonely": enforced("fully enforced in 1 context"),
		},
	}} {
		t.Run(c.name, func(t *testing.T) {
			_, o := run(t, append([]string{world}, c.docs...)...)
			if got := ancestors(t, o, "p"); !reflect.DeepEqual(got, c.want) {
				t.Errorf("ancestors of p:\n%s\nwant:\n%s", show(got), show(c.want))
			}
			noEmptySlots(t, o)
		})
	}
}

func show(m map[string][]string) string {
	var b strings.Builder
	for ref, cs := range m {
		fmt.Fprintf(&b, "  %s\n", ref)
		for _, c := range cs {
			fmt.Fprintf(&b, "    %s\n", c)
		}
	}
	return b.String()
}

// noEmptySlots fails on a message with a blank where a name, a count or
// a field list should be ("superseded by  in", "()").
func noEmptySlots(t *testing.T, o *outcome.Outcome) {
	t.Helper()
	for _, ps := range o.Policies {
		for _, a := range ps.Ancestors {
			for _, c := range a.Conditions {
				m := c.Message
				if m == "" || strings.Contains(m, "  ") || strings.Contains(m, "()") || strings.Contains(m, " by  ") ||
					strings.HasSuffix(m, " ") || strings.Contains(m, " 0 of") || strings.Contains(m, "fields ,") {
					t.Errorf("%s at %s: %s has an empty slot: %q", ps.Policy.ID(), a.Ref, c.Type, m)
				}
			}
		}
	}
}

// TestTargetStatus checks the <Kind>Affected status of targets (GEP-713
// "Target object status"): one per target and kind, naming the policies
// whose settings reach it and the Gateways through which.
func TestTargetStatus(t *testing.T) {
	res, o := run(t, world,
		kindDecl("Alpha", "HTTPRoute", patch), kindDecl("Beta", "HTTPRoute", patch),
		pol("Alpha", "web", "a1", "01", fmt.Sprintf(toRoute, "web"), "  defaults: {a: a1}"),
		pol("Alpha", "infra", "a2", "01", fmt.Sprintf(toGW, "edge"), "  defaults: {b: a2}"),
		pol("Beta", "web", "b1", "01", fmt.Sprintf(toNS, "web"), "  defaults: {a: b1}"),
		// Overridden everywhere: it affects nothing.
		pol("Beta", "web", "b2", "02", fmt.Sprintf(toRoute, "other"), "  overrides: {a: b2}\n  strategy: PatchOverrides"),
		pol("Beta", "infra", "b3", "01", fmt.Sprintf(toGW, "gw"), "  overrides: {a: b3}\n  strategy: PatchOverrides"),
	)
	var got []string
	for _, ts := range o.Targets() {
		var via []string
		for _, n := range ts.Via {
			via = append(via, res.Graph.Node(n).Ref.String())
		}
		c := ts.AffectedCondition(5)
		got = append(got, fmt.Sprintf("%s %s %v via %v | %s=%s %s %d: %s", res.Graph.Node(ts.Node).Ref, ts.Kind.Kind, ts.Policies, via,
			c.Type, c.Status, c.Reason, c.ObservedGeneration, c.Message))
	}
	want := []string{
		"HTTPRoute web/other Beta [infra/b3] via [Gateway infra/gw] | strata.dev/BetaAffected=True Affected 5: affected by Beta infra/b3",
		"HTTPRoute web/web Alpha [web/a1] via [Gateway infra/gw Gateway edge/edge] | strata.dev/AlphaAffected=True Affected 5: affected by Alpha web/a1",
		"HTTPRoute web/web Beta [infra/b3 web/b1] via [Gateway infra/gw Gateway edge/edge] | strata.dev/BetaAffected=True Affected 5: affected by Beta infra/b3, web/b1",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("targets:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

// TestMerge: Merge joins the outcomes of separate kinds (its doc
// comment): the policies in kind order, every target of each part, sorted
// by node then kind.
func TestMerge(t *testing.T) {
	res := enginetest.RunYAML(t, world,
		kindDecl("Alpha", "HTTPRoute", patch), kindDecl("Beta", "HTTPRoute", patch),
		pol("Alpha", "web", "a1", "01", fmt.Sprintf(toRoute, "web"), "  defaults: {a: a1}"),
		pol("Beta", "web", "b1", "01", fmt.Sprintf(toNS, "web"), "  defaults: {a: b1}"),
		pol("Beta", "web", "b2", "01", fmt.Sprintf(toRoute, "other"), "  defaults: {a: b2}"),
	)
	var parts []*outcome.Outcome
	var policies []outcome.PolicyStatus
	var targets []string
	key := func(ts outcome.TargetStatus) string {
		return res.Graph.Node(ts.Node).Ref.Key() + " " + ts.Kind.Kind
	}
	for _, kr := range res.Kinds {
		o := outcome.Compute(res.Graph, kr.Policies, outcome.Input{Attachments: kr.Attachments, Effective: kr.Effective})
		parts = append(parts, o)
		policies = append(policies, o.Policies...)
		for _, ts := range o.Targets() {
			targets = append(targets, key(ts))
		}
	}
	merged := outcome.Merge(parts...)
	if !reflect.DeepEqual(merged.Policies, policies) {
		t.Errorf("policies are not the parts' in kind order")
	}
	var got []string
	for _, ts := range merged.Targets() {
		got = append(got, key(ts))
	}
	slices.Sort(targets)
	if !slices.Equal(got, targets) {
		t.Errorf("targets:\n  %s\nwant the parts' sorted:\n  %s", strings.Join(got, "\n  "), strings.Join(targets, "\n  "))
	}
	if merged.NumTargets() < 3 {
		t.Errorf("targets = %d, want three (web by both kinds, other by Beta)", merged.NumTargets())
	}
}

// TestAncestorPerListener checks that a policy attached to two listeners
// of one Gateway reports each listener as an ancestor of its own (GEP-713
// "Metaresource status": the ancestorRef names the section the policy
// targets), although both are reached through the same Gateway: the
// pass finds a context's tally by the policy, its ancestor node and the
// node it is attached at, and a tally found by the first two alone would
// count route adm under the http listener.
func TestAncestorPerListener(t *testing.T) {
	k := "TestPolicy"
	adm := `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: adm, namespace: web}
spec:
  parentRefs: [{name: gw, namespace: infra, sectionName: admin}]
  hostnames: [admin.example.com]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
`
	p := fmt.Sprintf(`apiVersion: example.io/v1
kind: %s
metadata: {name: p, namespace: infra, creationTimestamp: "2026-01-01T00:00:00Z", generation: 3}
spec:
  targetRefs:
  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: http}
  - {group: gateway.networking.k8s.io, kind: Gateway, name: gw, sectionName: admin}
  defaults: {a: p}
`, k)
	_, o := run(t, world, adm, kindDecl(k, "HTTPRoute", patch), p)
	got := ancestors(t, o, "p")
	want := map[string][]string{
		"Gateway infra/gw#admin": enforced("fully enforced in 1 context"),
		"Gateway infra/gw#http":  enforced("fully enforced in 2 contexts"),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ancestors:\n got %q\nwant %q", got, want)
	}
}
