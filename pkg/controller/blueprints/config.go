package blueprints

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/source"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
	"github.com/strata-dev/strata/pkg/blueprint"
	"github.com/strata-dev/strata/pkg/blueprint/render"
	"github.com/strata-dev/strata/pkg/blueprint/values"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/hierarchy/typed"
)

// maxAncestors is PolicyStatus.ancestors' MaxItems.
const maxAncestors = 32

// Condition types and reasons of config ancestors beyond Accepted
// (GEP-713 "Metaresource status", as docs/status.md writes them for
// policies): exactly one of the three is True, the others False
// NotApplicable.
const (
	condEnforced          = "Enforced"
	condPartiallyEnforced = "PartiallyEnforced"
	condOverridden        = "Overridden"
	reasonNotApplicable   = "NotApplicable"
)

// ancestor is one status.ancestors entry Strata writes.
type ancestor struct {
	ref   gwv1.ParentReference
	conds []metav1.Condition
	// pending: a render through this Gateway is not known yet (refusals);
	// the entry as stored is kept, and none is written yet if there is none.
	pending bool
}

// reconcileConfig writes a GatewayClassConfig's or GatewayConfig's
// status.ancestors: one entry per Gateway whose renders it applies to
// (Accepted and whether its values are in force, or Invalid when a render
// was refused because of its value), one per refused targetRef, as
// docs/status.md does for policies. Other controllers' entries are kept.
func (c *Controller) reconcileConfig(ctx context.Context, k key) error {
	var (
		obj    client.Object
		cfg    *values.Config
		spec   bpv1.ConfigSpec
		status *gwv1.PolicyStatus
	)
	switch k.Kind {
	case kindClassConfig:
		o := &bpv1.GatewayClassConfig{}
		obj, status = o, &o.Status
		if err := c.cache.Get(ctx, k.nn(), o); err != nil {
			return client.IgnoreNotFound(err)
		}
		cfg, spec = values.ClassConfig(o), o.Spec
	default:
		o := &bpv1.GatewayConfig{}
		obj, status = o, &o.Status
		if err := c.cache.Get(ctx, k.nn(), o); err != nil {
			return client.IgnoreNotFound(err)
		}
		cfg, spec = values.GatewayConfig(o), o.Spec
	}
	entries, err := c.ancestors(ctx, cfg, spec)
	if err != nil {
		return err
	}

	var list []gwv1.PolicyAncestorStatus
	ours := map[string][]metav1.Condition{}
	for _, a := range status.Ancestors {
		if string(a.ControllerName) == c.opts.ControllerName {
			ours[refKey(a.AncestorRef)] = a.Conditions
		} else {
			list = append(list, a)
		}
	}
	for _, e := range entries {
		if len(list) >= maxAncestors {
			break
		}
		conds, had := ours[refKey(e.ref)]
		if e.pending && !had {
			continue
		} else if !e.pending {
			// Only the condition types of the entry now: an entry that was
			// Accepted and is now refused loses its Enforced (and siblings).
			conds = slices.DeleteFunc(c.setConditions(conds, obj.GetGeneration(), e.conds...), func(old metav1.Condition) bool {
				return !slices.ContainsFunc(e.conds, func(n metav1.Condition) bool { return n.Type == old.Type })
			})
		}
		list = append(list, gwv1.PolicyAncestorStatus{
			AncestorRef:    e.ref,
			ControllerName: gwv1.GatewayController(c.opts.ControllerName),
			Conditions:     conds,
		})
	}
	cur, old := obj.DeepCopyObject().(client.Object), status.Ancestors
	status.Ancestors = list // obj is now the next version
	return c.patchStatus(ctx, cur, obj, k.Kind, differ(old, list))
}

// ancestors computes Strata's entries for a config, sorted by ancestor.
func (c *Controller) ancestors(ctx context.Context, cfg *values.Config, spec bpv1.ConfigSpec) ([]ancestor, error) {
	var out []ancestor
	add := func(a ancestor) {
		if !slices.ContainsFunc(out, func(o ancestor) bool { return refKey(o.ref) == refKey(a.ref) }) {
			out = append(out, a)
		}
	}
	accepted := func(ok bool, reason, msg string) metav1.Condition {
		return condition(string(gwv1.PolicyConditionAccepted), ok, reason, msg)
	}
	if len(cfg.Invalid) > 0 {
		// An invalid config contributes nothing (values.Config): it is
		// reported against each target it declares.
		msg := "invalid, ignored: " + strings.Join(cfg.Invalid, "; ")
		for _, t := range spec.TargetRefs {
			add(ancestor{ref: targetRef(cfg.Namespace, string(t.Group), string(t.Kind), string(t.Name)),
				conds: []metav1.Condition{accepted(false, string(gwv1.PolicyReasonInvalid), msg)}})
		}
		sortAncestors(out)
		return out, nil
	}
	for _, t := range cfg.TargetRefs {
		found, err := c.targetExists(ctx, cfg.Namespace, t)
		if err != nil {
			return nil, err
		}
		if !found {
			add(ancestor{ref: targetRef(cfg.Namespace, t.Group, t.Kind, t.Name),
				conds: []metav1.Condition{accepted(false, string(gwv1.PolicyReasonTargetNotFound),
					fmt.Sprintf("%s: %s not found", t.Field, describeTarget(cfg.Namespace, t)))}})
		}
	}

	gateways, err := c.candidateGateways(ctx, cfg)
	if err != nil {
		return nil, err
	}
	configs, err := c.configs(ctx)
	if err != nil {
		return nil, err
	}
	plans := map[string]blueprint.ClassPlan{}
	for _, gw := range gateways {
		class, err := c.ourClass(ctx, string(gw.Spec.GatewayClassName))
		if err != nil {
			return nil, err
		}
		if class == nil {
			continue
		}
		cp, ok := plans[class.Name]
		if !ok {
			if cp, err = c.plan(ctx, class); err != nil {
				return nil, err
			}
			plans[class.Name] = cp
		}
		if cp.Err != nil {
			continue // nothing renders: the GatewayClass's status says why
		}
		parents := []values.Parent{{Kind: kindGateway, Namespace: gw.Namespace, Name: gw.Name, Class: class.Name}}
		if cp.Blueprint.Spec.HTTPRouteTemplate != nil {
			a, err := c.attach(ctx, gw)
			if err != nil {
				return nil, err
			}
			for _, r := range a.routes {
				if cfg.Namespace == c.opts.Namespace || r.Namespace == cfg.Namespace {
					parents = append(parents, values.Parent{Kind: kindRoute, Namespace: r.Namespace, Name: r.Name, Class: class.Name})
				}
			}
		}
		e, ok, err := c.appliedAt(cp.Blueprint, cfg, configs, parents)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		ref := gwv1.ParentReference{Group: ptr.To(gwv1.Group(gwv1.GroupName)), Kind: ptr.To(gwv1.Kind("Gateway")),
			Namespace: ptr.To(gwv1.Namespace(gw.Namespace)), Name: gwv1.ObjectName(gw.Name)}
		scopes := make([]renderScope, len(parents))
		for i, p := range parents {
			scopes[i] = renderScope{parent: key{Kind: p.Kind, Namespace: p.Namespace, Name: p.Name}}
			if p.Kind == kindRoute {
				scopes[i].gateway = gw.Namespace + "/" + gw.Name
			}
		}
		msgs, pending := c.refusals.at(configKey(cfg.Kind, cfg.Namespace, cfg.Name), scopes)
		if len(msgs) > 0 {
			e = []metav1.Condition{accepted(false, string(gwv1.PolicyReasonInvalid), strings.Join(msgs, "; "))}
		}
		add(ancestor{ref: ref, conds: e, pending: pending})
	}
	sortAncestors(out)
	return out, nil
}

// appliedAt merges values for each parent rendered through one Gateway and
// says how the config fared there, or false when it applies to none.
func (c *Controller) appliedAt(bp *bpv1.GatewayClassBlueprint, cfg *values.Config, configs []*values.Config, parents []values.Parent) ([]metav1.Condition, bool, error) {
	var (
		lost   []string
		leaves int
		levels []string
		found  bool
	)
	for _, p := range parents {
		v, err := values.Merge(bp, p, configs, c.opts.Namespace)
		if err != nil {
			return nil, false, nil // the Gateway's status says why
		}
		for _, a := range v.Applied {
			if a.Config.Kind != cfg.Kind || a.Config.Namespace != cfg.Namespace || a.Config.Name != cfg.Name {
				continue
			}
			found = true
			leaves += a.Leaves
			levels = appendOnce(levels, fmt.Sprintf("%s as the %s", p, a.Level))
			for _, l := range a.Lost {
				by := "removed by a null"
				if l.By != nil {
					by = "beaten by " + l.By.String()
				}
				lost = appendOnce(lost, fmt.Sprintf("%s (%s) %s in %s", l.Pointer, l.Block, by, p))
			}
		}
	}
	if !found {
		return nil, false, nil
	}
	result := values.Applied{Lost: make([]values.Lost, len(lost)), Leaves: leaves}.Result()
	conds := []metav1.Condition{condition(string(gwv1.PolicyConditionAccepted), true, string(gwv1.PolicyReasonAccepted), "applies to "+strings.Join(levels, ", "))}
	msgs := map[string]string{
		condEnforced:          fmt.Sprintf("all %d values in force", leaves),
		condPartiallyEnforced: "in force except: " + strings.Join(lost, "; "),
		condOverridden:        "no value in force: " + strings.Join(lost, "; "),
	}
	if leaves == 0 {
		msgs[condEnforced] = "no values to enforce"
	}
	for _, t := range []string{condEnforced, condPartiallyEnforced, condOverridden} {
		if t == result {
			conds = append(conds, condition(t, true, t, msgs[t]))
		} else {
			conds = append(conds, condition(t, false, reasonNotApplicable, ""))
		}
	}
	return conds, true, nil
}

// candidateGateways are the Gateways a config may apply to: for a global
// config (controller namespace) every Gateway; else the Gateways of its
// namespace and those its namespace's routes name.
func (c *Controller) candidateGateways(ctx context.Context, cfg *values.Config) ([]*gwv1.Gateway, error) {
	gl := &gwv1.GatewayList{}
	if cfg.Namespace == c.opts.Namespace {
		if err := c.cache.List(ctx, gl); err != nil {
			return nil, err
		}
	} else {
		if err := c.cache.List(ctx, gl, client.InNamespace(cfg.Namespace)); err != nil {
			return nil, err
		}
		rl := &gwv1.HTTPRouteList{}
		if err := c.cache.List(ctx, rl, client.InNamespace(cfg.Namespace)); err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, gw := range gl.Items {
			seen[gw.Namespace+"/"+gw.Name] = true
		}
		for i := range rl.Items {
			for _, g := range routeGateways(&rl.Items[i]) {
				if seen[g.String()] {
					continue
				}
				seen[g.String()] = true
				gw := &gwv1.Gateway{}
				if err := c.cache.Get(ctx, g, gw); err != nil {
					if apierrors.IsNotFound(err) {
						continue
					}
					return nil, err
				}
				gl.Items = append(gl.Items, *gw)
			}
		}
	}
	out := make([]*gwv1.Gateway, len(gl.Items))
	for i := range gl.Items {
		out[i] = &gl.Items[i]
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Namespace+"/"+out[i].Name < out[j].Namespace+"/"+out[j].Name })
	return out, nil
}

// targetExists looks a valid targetRef up in the cache.
func (c *Controller) targetExists(ctx context.Context, ns string, t values.Ref) (bool, error) {
	gk := schema.GroupKind{Group: t.Group, Kind: t.Kind}
	if gk == hierarchy.NamespaceKind {
		return true, nil // a config's only Namespace target is its own
	}
	row, ok := hierarchy.Lookup(gk)
	if !ok || len(row.Configs) == 0 {
		return false, nil
	}
	key := client.ObjectKey{Name: t.Name}
	if row.Namespaced {
		key.Namespace = ns
	}
	if err := c.cache.Get(ctx, key, typed.Kinds[gk].New()); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("get %s %s: %w", t.Kind, key, err)
	}
	return true, nil
}

// namespaced reports whether a config's target of kind is in the
// config's namespace (a Gateway or an HTTPRoute), not cluster-scoped.
func namespaced(group, kind string) bool {
	row, ok := hierarchy.Lookup(schema.GroupKind{Group: group, Kind: kind})
	return ok && len(row.Configs) > 0 && row.Namespaced
}

// targetRef is a declared target as an ancestorRef.
func targetRef(ns, group, kind, name string) gwv1.ParentReference {
	r := gwv1.ParentReference{Group: ptr.To(gwv1.Group(group)), Kind: ptr.To(gwv1.Kind(kind)), Name: gwv1.ObjectName(name)}
	if namespaced(group, kind) {
		r.Namespace = ptr.To(gwv1.Namespace(ns))
	}
	return r
}

func describeTarget(ns string, t values.Ref) string {
	if namespaced(t.Group, t.Kind) {
		return t.Kind + " " + ns + "/" + t.Name
	}
	return t.Kind + " " + t.Name
}

// refKey orders and identifies ancestor refs: group, kind, namespace,
// name, section.
func refKey(r gwv1.ParentReference) string {
	return strings.Join([]string{string(ptr.Deref(r.Group, "")), string(ptr.Deref(r.Kind, "")),
		string(ptr.Deref(r.Namespace, "")), string(r.Name), string(ptr.Deref(r.SectionName, ""))}, "\x00")
}

func sortAncestors(list []ancestor) {
	sort.Slice(list, func(i, j int) bool { return refKey(list[i].ref) < refKey(list[j].ref) })
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// Renders refused because of a config's value (render.Error.Source): that
// config's ancestor entry for the Gateway says Accepted=False Invalid
// instead of Enforced (GEP-713: a policy that cannot take effect at an
// ancestor is not accepted there); the other configs are reported as
// usual. Only a render knows what it refused, so each render records its
// outcome in memory (rendered, forgetRenders) and the config entries read
// it (at); after a restart, an entry waits for its scopes' first render
// rather than flip. A change of a record queues the configs it names.

// renderScope is one render: a Gateway's (gateway "") or an HTTPRoute's
// for one Gateway (gateway: that Gateway's namespace/name).
type renderScope struct {
	parent  key
	gateway string
}

// valueRefusal is a render refused because of a value a config set.
type valueRefusal struct {
	config key    // the config that set the value
	msg    string // its ancestor entry's Accepted message
}

// refusals holds the outcome of the last render of every scope since the
// controller started (nil: not refused), by parent, and the configs
// waiting for a scope's first render. Its zero value is ready.
type refusals struct {
	mu      sync.Mutex
	queue   workqueue.TypedRateLimitingInterface[key]
	last    map[key]map[string]*valueRefusal
	waiting map[key]map[string][]key
}

// watchRefusals gives refusals the controller's queue, to queue the
// configs whose status a render changes.
func (c *Controller) watchRefusals() error {
	return c.ctrl.Watch(source.TypedFunc[key](func(_ context.Context, q workqueue.TypedRateLimitingInterface[key]) error {
		c.refusals.mu.Lock()
		defer c.refusals.mu.Unlock()
		c.refusals.queue = q
		return nil
	}))
}

// rendered records the outcome of the render of scope (parent, gateway):
// a *render.Error whose Source is a config is a refusal of its value.
func (c *Controller) rendered(parent key, gateway string, err *render.Error) {
	var v *valueRefusal
	if err != nil && err.Source != nil && (err.Source.Kind == kindClassConfig || err.Source.Kind == kindConfig) {
		at := parent.Kind + " " + parent.Namespace + "/" + parent.Name
		if gateway != "" {
			at += " (rendered for Gateway " + gateway + ")"
		}
		v = &valueRefusal{config: configKey(err.Source.Kind, err.Source.Namespace, err.Source.Name), msg: refusalMessage(err, at)}
	}
	r := &c.refusals
	r.mu.Lock()
	defer r.mu.Unlock()
	last := scopesOf(&r.last, parent)
	old, seen := last[gateway]
	last[gateway] = v
	if !seen {
		dropScopes(r.waiting, parent, func(gw string) bool { return gw == gateway }, func(keys []key) { r.add(keys...) })
	}
	if old != nil && (v == nil || *old != *v) {
		r.add(old.config)
	}
	if v != nil && (old == nil || *old != *v) {
		r.add(v.config)
	}
}

// forgetRenders drops the records of parent's scopes for which drop
// says true (nil: all of them), queuing the configs they named or that
// waited for them.
func (c *Controller) forgetRenders(parent key, drop func(gateway string) bool) {
	r := &c.refusals
	r.mu.Lock()
	defer r.mu.Unlock()
	dropScopes(r.last, parent, drop, func(v *valueRefusal) {
		if v != nil {
			r.add(v.config)
		}
	})
	dropScopes(r.waiting, parent, drop, func(keys []key) { r.add(keys...) })
}

// scopesOf is (*m)[parent], made when missing.
func scopesOf[V any](m *map[key]map[string]V, parent key) map[string]V {
	if *m == nil {
		*m = map[key]map[string]V{}
	}
	if (*m)[parent] == nil {
		(*m)[parent] = map[string]V{}
	}
	return (*m)[parent]
}

// dropScopes deletes the scopes of parent in m for which drop says true
// (nil: all), passing each to f, and parent when none is left.
func dropScopes[V any](m map[key]map[string]V, parent key, drop func(gateway string) bool, f func(V)) {
	for gw, v := range m[parent] {
		if drop == nil || drop(gw) {
			f(v)
			delete(m[parent], gw)
		}
	}
	if len(m[parent]) == 0 {
		delete(m, parent)
	}
}

// at returns the messages of the refusals of config cfg's values among
// scopes, in their order, and pending when a scope has not been rendered
// since the controller started; cfg is then queued on its first render.
func (r *refusals) at(cfg key, scopes []renderScope) (msgs []string, pending bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range scopes {
		v, seen := r.last[s.parent][s.gateway]
		switch {
		case !seen:
			pending = true
			if w := scopesOf(&r.waiting, s.parent); !slices.Contains(w[s.gateway], cfg) {
				w[s.gateway] = append(w[s.gateway], cfg)
			}
		case v != nil && v.config == cfg:
			msgs = appendOnce(msgs, v.msg)
		}
	}
	return msgs, pending
}

// add queues keys; r.mu is held.
func (r *refusals) add(keys ...key) {
	if r.queue == nil {
		return // not started: every config is reconciled on start
	}
	for _, k := range keys {
		r.queue.Add(k)
	}
}

// refusalMessage is the Accepted message of a config whose value made the
// render at `at` fail: the value path and block, the parent, and the
// refusal (e without the path and source, which the message starts with):
//
//	value .Values.tags["x: y"] (spec.default) refused at Gateway team-a/shop, nothing applied:
//	GatewayClassBlueprint nginx: gatewayTemplate.resourceTemplates[nginx] line 39: ...
func refusalMessage(e *render.Error, at string) string {
	what := "a value"
	if e.Path != "" {
		what = "value " + e.Path
	}
	rest := *e
	rest.Path, rest.Source = "", nil
	return fmt.Sprintf("%s (spec.%s) refused at %s, nothing applied: %s", what, e.Source.Block, at, rest.Error())
}

func configKey(kind, ns, name string) key { return key{Kind: kind, Namespace: ns, Name: name} }
