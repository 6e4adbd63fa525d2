package policies_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	// controller-runtime's workqueue metrics (workqueue_depth and the
	// others, in crmetrics.Registry) come with its controller package,
	// which the strata binary links through the blueprint controller and
	// the policy controller does not import; linked here too, they report
	// the policy controller's own queues, which idle reads.
	_ "sigs.k8s.io/controller-runtime/pkg/controller"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/strata-dev/strata/pkg/controller/policies"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/sink/effectivepolicy"
	"github.com/strata-dev/strata/pkg/sink/status"
	"github.com/strata-dev/strata/pkg/source/files"
)

const colorAPI = "policies.controller.io/v1"

func example(n int) []string {
	dir := filepath.Join("..", "..", "..", "examples", "gep-713", fmt.Sprintf("example-%d", n))
	return []string{filepath.Join(dir, "kind.yaml"), filepath.Join(dir, "scenario.yaml")}
}

// condition returns a policy's condition for one ancestor Gateway.
func condition(p *unstructured.Unstructured, gateway, typ string) *metav1.Condition {
	anc, _, _ := unstructured.NestedSlice(p.Object, "status", "ancestors")
	for _, a := range anc {
		m := a.(map[string]any)
		if m["controllerName"] != "strata.dev/policy-controller" || m["ancestorRef"].(map[string]any)["name"] != gateway {
			continue
		}
		for _, c := range m["conditions"].([]any) {
			cm := c.(map[string]any)
			if cm["type"] == typ {
				return &metav1.Condition{Type: typ, Status: metav1.ConditionStatus(cm["status"].(string)), Reason: cm["reason"].(string), Message: cm["message"].(string)}
			}
		}
	}
	return nil
}

// isTrue checks one condition of a policy.
func (c *cluster) policyHas(name, gateway, typ, reason string) func() error {
	return c.policyIn("default", name, gateway, typ, reason)
}

// policyIn is policyHas for a ColorPolicy of namespace ns.
func (c *cluster) policyIn(ns, name, gateway, typ, reason string) func() error {
	return func() error {
		p := c.get(colorAPI, "ColorPolicy", ns, name)
		got := condition(p, gateway, typ)
		if got == nil {
			return fmt.Errorf("%s/%s: no %s for %s", ns, name, typ, gateway)
		}
		if got.Reason != reason {
			return fmt.Errorf("%s/%s: %s reason %s (%s), want %s", ns, name, typ, got.Reason, got.Message, reason)
		}
		return nil
	}
}

// affectedBy checks a Service's ColorPolicyAffected condition (nil: none).
func (c *cluster) affectedBy(svc string, policies ...string) func() error {
	return func() error {
		s := c.get("v1", "Service", "default", svc)
		conds, _, _ := unstructured.NestedSlice(s.Object, "status", "conditions")
		var msg string
		for _, cond := range conds {
			m := cond.(map[string]any)
			if m["type"] == "strata.dev/ColorPolicyAffected" {
				msg = m["message"].(string)
			}
		}
		want := ""
		if len(policies) > 0 {
			want = "affected by ColorPolicy " + strings.Join(policies, ", ")
		}
		if msg != want {
			return fmt.Errorf("%s: condition message %q, want %q", svc, msg, want)
		}
		return nil
	}
}

// converged checks that what is stored equals what the engine computes
// offline from the objects as stored: the controller and `strata status`
// agree.
func (c *cluster) converged() error {
	ctx := context.Background()
	var docs []files.Document
	stored := map[string]*unstructured.Unstructured{} // by apiVersion, kind, namespace, name
	for _, gvk := range []struct{ apiVersion, kind string }{
		{"gateway.networking.k8s.io/v1", "GatewayClass"}, {"gateway.networking.k8s.io/v1", "Gateway"}, {"gateway.networking.k8s.io/v1", "ListenerSet"},
		{"gateway.networking.k8s.io/v1", "HTTPRoute"}, {"gateway.networking.k8s.io/v1beta1", "ReferenceGrant"}, {"v1", "Service"}, {"v1", "Namespace"},
		{"apiextensions.k8s.io/v1", "CustomResourceDefinition"}, {"strata.dev/v1alpha1", "PolicyKind"}, {colorAPI, "ColorPolicy"},
	} {
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion(gvk.apiVersion)
		l.SetKind(gvk.kind + "List")
		if err := c.client.List(ctx, l); err != nil {
			if strings.Contains(err.Error(), "no matches for kind") {
				continue
			}
			return err
		}
		for i := range l.Items {
			l.Items[i].SetAPIVersion(gvk.apiVersion)
			l.Items[i].SetKind(gvk.kind)
			docs = append(docs, files.Document{File: "cluster", Index: i, Object: &l.Items[i]})
			stored[storedKey(gvk.apiVersion, gvk.kind, l.Items[i].GetNamespace(), l.Items[i].GetName())] = &l.Items[i]
		}
	}
	src, err := files.Decode(docs)
	if err != nil {
		return err
	}
	res, err := engine.Run(src.Snapshot, engine.Options{})
	if err != nil {
		return err
	}
	for _, want := range status.Policies(res, metav1.Now()) {
		have := c.get(want.GetAPIVersion(), want.GetKind(), want.GetNamespace(), want.GetName())
		if d := diffAncestors(want, have); d != "" {
			return fmt.Errorf("%s %s: %s", want.GetKind(), want.GetName(), d)
		}
	}
	// Every object that can carry Strata's conditions carries exactly its
	// fragment (none for an object no policy affects), as the controller
	// itself judges it (status.Merge).
	owned := status.OwnedBy(res.PolicyKinds())
	fragments := map[string]*status.Fragment{}
	for _, f := range status.Fragments(res, metav1.Now()) {
		fragments[storedKey(f.GVK.GroupVersion().String(), f.GVK.Kind, f.Namespace, f.Name)] = f
	}
	for key, u := range stored {
		if !slices.Contains([]string{"GatewayClass", "Gateway", "ListenerSet", "HTTPRoute", "Service", "Namespace"}, u.GetKind()) {
			continue
		}
		if _, changed := status.Merge(u, fragments[key], owned); changed {
			return fmt.Errorf("%s %s/%s: Strata's conditions are not what the engine computes", u.GetKind(), u.GetNamespace(), u.GetName())
		}
	}
	return nil
}

func storedKey(apiVersion, kind, ns, name string) string {
	return apiVersion + " " + kind + " " + ns + "/" + name
}

// diffAncestors compares Strata's ancestors, ignoring lastTransitionTime.
func diffAncestors(want, have *unstructured.Unstructured) string {
	norm := func(u *unstructured.Unstructured) []string {
		anc, _, _ := unstructured.NestedSlice(u.Object, "status", "ancestors")
		var out []string
		for _, a := range anc {
			m := a.(map[string]any)
			if m["controllerName"] != "strata.dev/policy-controller" {
				continue
			}
			for _, c := range m["conditions"].([]any) {
				cm := c.(map[string]any)
				out = append(out, fmt.Sprintf("%v|%v|%v|%v|%v|%v", m["ancestorRef"].(map[string]any)["name"], cm["type"], cm["status"], cm["reason"], cm["message"], cm["observedGeneration"]))
			}
		}
		sort.Strings(out)
		return out
	}
	w, h := norm(want), norm(have)
	if !equality.Semantic.DeepEqual(w, h) {
		return fmt.Sprintf("stored %v, engine says %v", h, w)
	}
	return ""
}

// Every expected outcome of GEP-713's three examples holds in the stored
// status, and equals what `strata status` computes offline.
func TestExamples(t *testing.T) {
	for n, checks := range map[int]func(c *cluster) []func() error{
		1: func(c *cluster) []func() error {
			return []func() error{
				c.policyHas("p1", "g1", "Enforced", "Enforced"),
				c.policyHas("p2", "g1", "Accepted", "Conflicted"),
				c.affectedBy("b1", "default/p1"),
				c.affectedBy("b2"),
			}
		},
		2: func(c *cluster) []func() error {
			return []func() error{
				c.policyHas("p1", "g1", "PartiallyEnforced", "PartiallyEnforced"),
				c.policyHas("p2", "g1", "Enforced", "Enforced"),
				c.policyHas("p3", "g2", "Enforced", "Enforced"),
				c.policyHas("p4", "g2", "Overridden", "Overridden"),
				c.affectedBy("b1", "default/p1", "default/p2", "default/p3"),
				c.affectedBy("b2", "default/p3"),
			}
		},
		3: func(c *cluster) []func() error {
			return []func() error{
				c.policyHas("p1", "g1", "PartiallyEnforced", "PartiallyEnforced"),
				c.policyHas("p4", "g2", "PartiallyEnforced", "PartiallyEnforced"),
				c.affectedBy("b2", "default/p3", "default/p4"),
			}
		},
	} {
		t.Run(fmt.Sprintf("example-%d", n), func(t *testing.T) {
			c := newCluster(t)
			c.start()
			c.apply(objects(t, example(n)...)...)
			for i, check := range checks(c) {
				c.eventually(fmt.Sprintf("outcome %d", i+1), check)
			}
			c.eventually("converged with the offline engine", c.converged)
		})
	}
}

// Create, update and delete of a policy, a route's parentRef change and a
// Gateway deletion converge; deleting a policy removes its Affected
// conditions; entries of other controllers survive.
func TestLifecycle(t *testing.T) {
	c := newCluster(t)
	c.start()
	c.apply(objects(t, example(2)...)...)
	c.eventually("initial", c.affectedBy("b2", "default/p3"))

	// Another controller's entry on p1 survives Strata's writes.
	p1 := c.get(colorAPI, "ColorPolicy", "default", "p1")
	anc, _, _ := unstructured.NestedSlice(p1.Object, "status", "ancestors")
	other := map[string]any{
		"ancestorRef":    map[string]any{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "g1", "namespace": "default"},
		"controllerName": "other.example.com/controller",
		"conditions": []any{map[string]any{"type": "Accepted", "status": "True", "reason": "Accepted", "message": "theirs",
			"lastTransitionTime": "2026-01-01T00:00:00Z"}},
	}
	_ = unstructured.SetNestedSlice(p1.Object, append([]any{other}, anc...), "status", "ancestors")
	if err := c.client.Status().Update(context.Background(), p1); err != nil {
		t.Fatal(err)
	}

	// Update: p3's override now only a default; p4 then wins on r4.
	p3 := c.get(colorAPI, "ColorPolicy", "default", "p3")
	_ = unstructured.SetNestedField(p3.Object, map[string]any{"color": "yellow"}, "spec", "defaults")
	unstructured.RemoveNestedField(p3.Object, "spec", "overrides")
	if err := c.client.Update(context.Background(), p3); err != nil {
		t.Fatal(err)
	}
	c.eventually("p4 enforced after p3 became a default", c.policyHas("p4", "g2", "Enforced", "Enforced"))
	c.eventually("b2 affected by p4 only", c.affectedBy("b2", "default/p4"))

	// Delete p2: p1 is in force on r1 too.
	c.delete(colorAPI, "ColorPolicy", "default", "p2")
	c.eventually("p1 enforced", c.policyHas("p1", "g1", "Enforced", "Enforced"))
	c.eventually("b1 without p2", c.affectedBy("b1", "default/p1", "default/p3"))
	c.eventually("the other controller's entry on p1 survives", func() error {
		anc, _, _ := unstructured.NestedSlice(c.get(colorAPI, "ColorPolicy", "default", "p1").Object, "status", "ancestors")
		for _, a := range anc {
			if a.(map[string]any)["controllerName"] == "other.example.com/controller" {
				return nil
			}
		}
		return fmt.Errorf("gone: %v", anc)
	})

	// Move r4 from g2 to g1: b2 is reached through g1.
	r4 := c.get("gateway.networking.k8s.io/v1", "HTTPRoute", "default", "r4")
	_ = unstructured.SetNestedSlice(r4.Object, []any{map[string]any{"name": "g1"}}, "spec", "parentRefs")
	if err := c.client.Update(context.Background(), r4); err != nil {
		t.Fatal(err)
	}
	c.eventually("p4 now acts through g1", c.policyHas("p4", "g1", "Enforced", "Enforced"))
	c.eventually("b2 affected by p4", c.affectedBy("b2", "default/p4"))

	// Delete g2: p3's target is gone.
	c.delete("gateway.networking.k8s.io/v1", "Gateway", "default", "g2")
	c.eventually("p3 target not found", c.policyHas("p3", "g2", "Accepted", "TargetNotFound"))
	c.eventually("b1 without p3", c.affectedBy("b1", "default/p1"))

	// Delete every policy: no Affected condition is left.
	for _, p := range []string{"p1", "p3", "p4"} {
		c.delete(colorAPI, "ColorPolicy", "default", p)
	}
	c.eventually("b1 clean", c.affectedBy("b1"))
	c.eventually("b2 clean", c.affectedBy("b2"))

	// A new policy is picked up after all that.
	c.apply(decode(t, `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p5, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g1}]
  color: blue`)...)
	c.eventually("p5 accepted", c.policyHas("p5", "g1", "Enforced", "Enforced"))
	c.eventually("converged", c.converged)
}

// A policy CRD installed while the controller runs is picked up.
func TestPolicyKindInstalledLater(t *testing.T) {
	c := newCluster(t)
	c.start()
	var topo, kind []*unstructured.Unstructured
	for _, o := range objects(t, example(3)...) {
		if o.GetKind() == "CustomResourceDefinition" || o.GetKind() == "PolicyKind" || o.GetKind() == "ColorPolicy" {
			kind = append(kind, o)
		} else {
			topo = append(topo, o)
		}
	}
	c.apply(topo...)
	c.apply(kind...)
	c.eventually("p4 partially enforced", c.policyHas("p4", "g2", "PartiallyEnforced", "PartiallyEnforced"))
	c.eventually("b1 affected", c.affectedBy("b1", "default/p1", "default/p2", "default/p3"))
}

// At steady state Strata writes nothing. Once converged and idle, events
// that change nothing the engine computes are recomputed and cause zero
// writes, even an hour later by the controller's clock (lastTransitionTime
// is kept, not renewed): a label on a Gateway (a full recomputation) and
// on a policy (a recomputation of its kind). Nothing else triggers a
// recomputation (no periodic one), so these stand for any later time.
func TestSteadyState(t *testing.T) {
	c := newCluster(t)
	var later atomic.Int64 // added to the controller's clock
	r := c.startWith(policies.Options{Now: func() time.Time { return time.Now().Add(time.Duration(later.Load())) }})
	c.apply(objects(t, example(3)...)...)
	c.eventually("converged", c.converged)
	c.eventually("targets written", c.affectedBy("b2", "default/p3", "default/p4"))
	c.idle(r, "converged")
	if r.writes() == 0 {
		t.Fatal("the controller wrote nothing")
	}
	later.Store(int64(time.Hour))
	for _, ev := range []struct{ scope, apiVersion, kind, name string }{
		{"full", "gateway.networking.k8s.io/v1", "Gateway", "g1"},
		{"kinds", colorAPI, "ColorPolicy", "p3"},
	} {
		before := r.writes()
		runs := r.ctrl.Runs().WithLabelValues(ev.scope)
		prev := testutil.ToFloat64(runs)
		c.label(ev.apiVersion, ev.kind, "default", ev.name)
		c.eventually(fmt.Sprintf("a %s recomputation after a label on %s %s", ev.scope, ev.kind, ev.name), func() error {
			if n := testutil.ToFloat64(runs); n == prev {
				return fmt.Errorf("strata_engine_runs_total{scope=%q} still %v", ev.scope, n)
			}
			return nil
		})
		c.idle(r, "after a label on "+ev.kind+" "+ev.name)
		if w := r.writes(); w != before {
			t.Errorf("%v writes at steady state after a label on %s %s", w-before, ev.kind, ev.name)
		}
	}
	if err := c.converged(); err != nil {
		t.Error(err)
	}
}

// label sets the label strata.dev/test-touch of an object to a new value:
// an update the controller's watches pass on (labels are not ignored)
// which changes nothing the engine computes, as nothing selects on it.
func (c *cluster) label(apiVersion, kind, ns, name string) {
	c.t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	patch := fmt.Sprintf(`{"metadata":{"labels":{"strata.dev/test-touch":"%d"}}}`, time.Now().UnixNano())
	if err := c.client.Patch(context.Background(), u, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		c.t.Fatalf("label %s %s/%s: %v", kind, ns, name, err)
	}
}

// policyQueues are the workqueues of the policy controller (policies.New).
var policyQueues = []string{"strata-world", "strata-targets"}

// idleEvery is the time between two reads of idle: longer than the
// debounce of the tests' controllers (50ms) and the first retry delays of
// both queues, which keep a key out of the queue until it is due, so that
// a key due at the first read is in the queue by the second.
const idleEvery = 250 * time.Millisecond

// idle waits until the policy controller of r has no work left, read twice
// in a row: its queues (policyQueues) hold nothing and have no key being
// processed, and no key was added, done or scheduled, no recomputation ran
// and nothing was written between the two reads. The queues' numbers are
// controller-runtime's workqueue metrics (crmetrics.Registry), which
// count every queue of a name together: the tests of this package run one
// controller at a time, and a stopped controller's queues are empty
// (their workers take what is left before they stop).
func (c *cluster) idle(r *running, what string) {
	c.t.Helper()
	var prev, last queueWork
	var lastErr error
	err := wait.PollUntilContextTimeout(context.Background(), idleEvery, 2*time.Minute, true, func(context.Context) (bool, error) {
		w, err := r.work()
		if err != nil {
			lastErr = err
			return false, nil
		}
		prev, last, lastErr = last, w, nil
		return w.busy == "" && prev.counters != "" && prev.busy == "" && prev.counters == w.counters, nil
	})
	if err != nil {
		c.t.Fatalf("waited 2m0s for the policy controller to be idle (%s): last read %+v, the one before %+v (error: %v)", what, last, prev, lastErr)
	}
}

// queueWork is one read of the policy controller's queues and counters.
type queueWork struct {
	busy     string // the work left; "" for none
	counters string // what must not move between two reads
}

// work reads the queues of policyQueues: keys queued (workqueue_depth),
// keys being processed (workqueue_adds_total - depth - the count of
// workqueue_work_duration_seconds, observed when a key is done), and the
// counters of adds, keys done and delayed adds (workqueue_retries_total:
// debounced triggers and retries); with r's recomputations and writes.
func (r *running) work() (queueWork, error) {
	mfs, err := crmetrics.Registry.Gather()
	if err != nil {
		return queueWork{}, err
	}
	type queue struct {
		reported                   bool
		depth, adds, done, delayed float64
	}
	qs := map[string]*queue{}
	for _, n := range policyQueues {
		qs[n] = &queue{}
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			var q *queue
			for _, l := range m.GetLabel() {
				if l.GetName() == "name" {
					q = qs[l.GetValue()]
				}
			}
			if q == nil {
				continue
			}
			switch mf.GetName() {
			case "workqueue_depth":
				q.depth += m.GetGauge().GetValue()
				q.reported = true
			case "workqueue_adds_total":
				q.adds += m.GetCounter().GetValue()
			case "workqueue_work_duration_seconds":
				q.done += float64(m.GetHistogram().GetSampleCount())
			case "workqueue_retries_total":
				q.delayed += m.GetCounter().GetValue()
			}
		}
	}
	var w queueWork
	for _, n := range policyQueues {
		q := qs[n]
		if !q.reported {
			return queueWork{}, fmt.Errorf("no workqueue_depth{name=%q} in controller-runtime's registry", n)
		}
		inFlight := q.adds - q.depth - q.done
		switch {
		case w.busy != "":
		case q.depth != 0:
			w.busy = fmt.Sprintf("%s: %v keys queued", n, q.depth)
		case inFlight != 0:
			w.busy = fmt.Sprintf("%s: %v keys being processed", n, inFlight)
		}
		w.counters += fmt.Sprintf("%s: adds %v, done %v, delayed adds %v; ", n, q.adds, q.done, q.delayed)
	}
	var runs float64
	for _, scope := range []string{"full", "kinds"} {
		runs += testutil.ToFloat64(r.ctrl.Runs().WithLabelValues(scope))
	}
	w.counters += fmt.Sprintf("recomputations %v, writes %v", runs, r.writes())
	return w, nil
}

// Stopping and starting the controller midway ends in the same status as a
// run without restart.
func TestRestart(t *testing.T) {
	c := newCluster(t)
	all := objects(t, example(2)...)
	first := c.start()
	c.apply(all[:len(all)-2]...) // everything but p3 and p4
	c.eventually("p1 partially enforced", c.policyHas("p1", "g1", "PartiallyEnforced", "PartiallyEnforced"))
	first.stop()
	c.apply(all[len(all)-2:]...)
	second := c.start()
	c.eventually("p4 overridden", c.policyHas("p4", "g2", "Overridden", "Overridden"))
	c.eventually("converged like a run without restart", c.converged)
	c.eventually("b2 affected by p3", c.affectedBy("b2", "default/p3"))
	if second.writes() == 0 {
		t.Error("the restarted controller wrote nothing")
	}
}

func (c *cluster) delete(apiVersion, kind, ns, name string) {
	c.t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	if err := c.client.Delete(context.Background(), u); client.IgnoreNotFound(err) != nil {
		c.t.Fatal(err)
	}
}

// With --effective-policies, every effective target gets an EffectivePolicy
// owned by it, equal to what `strata effective` prints; it follows changes
// and goes away when no policy reaches the target any more.
func TestEffectivePolicyObjects(t *testing.T) {
	c := newCluster(t)
	c.startWith(policies.Options{EffectivePolicies: true})
	c.apply(objects(t, example(3)...)...)
	get := func(name string) (*effectivepolicy.EffectivePolicy, error) {
		ep := &effectivepolicy.EffectivePolicy{}
		err := c.client.Get(context.Background(), client.ObjectKey{Namespace: "default", Name: name}, ep)
		return ep, err
	}
	c.eventually("EffectivePolicy b2 as strata effective prints it", func() error {
		ep, err := get("b2")
		if err != nil {
			return err
		}
		if len(ep.OwnerReferences) != 1 || ep.OwnerReferences[0].Kind != "Service" || ep.OwnerReferences[0].Name != "b2" {
			return fmt.Errorf("owner %v", ep.OwnerReferences)
		}
		ctxs := ep.Policies[0].Contexts
		if len(ctxs) != 1 || string(ctxs[0].ResultantPolicy.Raw) != `{"colors":{"dark":"olive","light":"yellow"}}` {
			return fmt.Errorf("contexts %+v", ctxs)
		}
		if ctxs[0].FieldSources["/colors/dark"] != "default/p4" || ctxs[0].FieldSources["/colors/light"] != "default/p3" {
			return fmt.Errorf("field sources %v", ctxs[0].FieldSources)
		}
		return nil
	})
	c.delete(colorAPI, "ColorPolicy", "default", "p3")
	c.eventually("b2 follows p3's deletion", func() error {
		ep, err := get("b2")
		if err != nil {
			return err
		}
		if got := string(ep.Policies[0].Contexts[0].ResultantPolicy.Raw); got != `{"colors":{"dark":"olive","light":"green"}}` {
			return fmt.Errorf("resultant %s", got)
		}
		return nil
	})
	c.delete(colorAPI, "ColorPolicy", "default", "p4")
	c.eventually("b2's EffectivePolicy deleted", func() error {
		if _, err := get("b2"); err == nil {
			return fmt.Errorf("still there")
		} else if client.IgnoreNotFound(err) != nil {
			return err
		}
		return nil
	})
	if _, err := get("b1"); err != nil {
		t.Errorf("b1 is still reached by p1 and p2: %v", err)
	}
}

// A change to policies only recomputes their kind, on the previous
// topology, and ends where a full computation would.
func TestPolicyChangeScope(t *testing.T) {
	c := newCluster(t)
	r := c.start()
	c.apply(objects(t, example(3)...)...)
	c.eventually("converged", c.converged)
	c.eventually("targets written", c.affectedBy("b2", "default/p3", "default/p4"))
	// Count from an idle controller: a full run still queued for the
	// setup (a late CRD or Namespace event) is not the policy change's.
	c.idle(r, "converged")
	full := testutil.ToFloat64(r.ctrl.Runs().WithLabelValues("full"))
	kinds := testutil.ToFloat64(r.ctrl.Runs().WithLabelValues("kinds"))
	c.apply(decode(t, `apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: p5, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r2}]
  colors: {dark: black}`)...)
	c.eventually("p5 enforced", c.policyHas("p5", "g1", "Enforced", "Enforced"))
	c.eventually("p1 now overridden everywhere (atomic)", c.policyHas("p1", "g1", "Overridden", "Overridden"))
	c.eventually("b1 affected by p5, no longer by p1", c.affectedBy("b1", "default/p2", "default/p3", "default/p5"))
	c.eventually("converged", c.converged)
	if got := testutil.ToFloat64(r.ctrl.Runs().WithLabelValues("full")); got != full {
		t.Errorf("a policy change caused %v full runs", got-full)
	}
	if got := testutil.ToFloat64(r.ctrl.Runs().WithLabelValues("kinds")); got <= kinds {
		t.Errorf("no kind-scoped run happened")
	}
}

// A sequence of policy changes (new policies, retargets, strategy
// changes, deletions), route moves and listener changes is taken by the
// live model, with no full run, and
// after each the stored policy and target statuses are what a fresh
// engine run computes from the objects as stored.
func TestPolicyChangesConverge(t *testing.T) {
	c := newCluster(t)
	r := c.start()
	c.apply(objects(t, example(3)...)...)
	c.eventually("converged", c.converged)
	c.idle(r, "converged")
	full := testutil.ToFloat64(r.ctrl.Runs().WithLabelValues("full"))
	policy := func(name, kind, target, block string) string {
		return fmt.Sprintf(`apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: %s, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: %s, name: %s}]
  %s`, name, kind, target, block)
	}
	// respec puts the spec of doc on the stored policy of its name.
	respec := func(doc string) {
		want := decode(t, doc)[0]
		have := c.get(colorAPI, "ColorPolicy", "default", want.GetName())
		have.Object["spec"] = want.Object["spec"]
		if err := c.client.Update(context.Background(), have); err != nil {
			t.Fatalf("update ColorPolicy %s: %v", want.GetName(), err)
		}
	}
	// reparent moves a stored HTTPRoute under another Gateway.
	reparent := func(route, gateway string) {
		have := c.get(gatewayAPI, "HTTPRoute", "default", route)
		if err := unstructured.SetNestedSlice(have.Object, []any{map[string]any{"name": gateway}}, "spec", "parentRefs"); err != nil {
			t.Fatal(err)
		}
		if err := c.client.Update(context.Background(), have); err != nil {
			t.Fatalf("update HTTPRoute %s: %v", route, err)
		}
	}
	// relisten sets the allowedRoutes namespaces of a stored Gateway's
	// first listener.
	relisten := func(gateway string, namespaces map[string]any) {
		have := c.get(gatewayAPI, "Gateway", "default", gateway)
		ls, _, _ := unstructured.NestedSlice(have.Object, "spec", "listeners")
		ls[0].(map[string]any)["allowedRoutes"] = map[string]any{"namespaces": namespaces}
		if err := unstructured.SetNestedSlice(have.Object, ls, "spec", "listeners"); err != nil {
			t.Fatal(err)
		}
		if err := c.client.Update(context.Background(), have); err != nil {
			t.Fatalf("update Gateway %s: %v", gateway, err)
		}
	}
	for i, step := range []struct {
		what string
		do   func()
	}{
		{"a new route policy", func() { c.apply(decode(t, policy("q1", "HTTPRoute", "r2", "colors: {dark: black}"))...) }},
		{"a new Gateway override", func() {
			c.apply(decode(t, policy("q2", "Gateway", "g1", "overrides: {strategy: patch, colors: {light: white}}"))...)
		}},
		{"the route policy moved", func() { respec(policy("q1", "HTTPRoute", "r1", "colors: {dark: grey}")) }},
		{"the override turned into defaults", func() {
			respec(policy("q2", "Gateway", "g1", "defaults: {strategy: patch, colors: {light: white}}"))
		}},
		{"a policy of the example deleted", func() { c.delete(colorAPI, "ColorPolicy", "default", "p2") }},
		{"a target that does not exist", func() { respec(policy("q1", "HTTPRoute", "nowhere", "colors: {dark: grey}")) }},
		{"the new policies deleted", func() {
			c.delete(colorAPI, "ColorPolicy", "default", "q1")
			c.delete(colorAPI, "ColorPolicy", "default", "q2")
		}},
		{"a route moved to the other Gateway", func() { reparent("r2", "g2") }},
		{"a route moved back, and another one too", func() { reparent("r2", "g1"); reparent("r3", "g1") }},
		{"a listener that admits no route", func() {
			relisten("g1", map[string]any{"from": "Selector", "selector": map[string]any{"matchLabels": map[string]any{"none": "x"}}})
		}},
		{"the listener admits its routes again", func() { relisten("g1", map[string]any{"from": "Same"}) }},
	} {
		step.do()
		c.eventually(fmt.Sprintf("converged after step %d, %s", i, step.what), c.converged)
		c.idle(r, step.what)
		if err := c.converged(); err != nil {
			t.Fatalf("step %d, %s: idle, yet %v", i, step.what, err)
		}
	}
	if got := testutil.ToFloat64(r.ctrl.Runs().WithLabelValues("full")); got != full {
		t.Errorf("policy, route and listener changes caused %v full runs", got-full)
	}
}

// A policy with more ancestors than status.ancestors holds (16 without a
// schema bound: Gateway API v1.6 PolicyStatus) is written capped, its
// problem kept, and the stored status equals the offline engine's (issue
// 11, "Status that the API server accepts").
func TestAncestorsCapped(t *testing.T) {
	c := newCluster(t)
	c.start()
	docs := `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: strata}
spec: {controllerName: strata.dev/gateway-controller}
`
	var refs []string
	for i := 0; i < 20; i++ {
		docs += fmt.Sprintf(`---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: g%02d, namespace: default}
spec:
  gatewayClassName: strata
  listeners: [{name: http, protocol: HTTP, port: 80}]
`, i)
		refs = append(refs, fmt.Sprintf("{group: gateway.networking.k8s.io, kind: Gateway, name: g%02d}", i))
	}
	docs += `---
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: wide, namespace: default}
spec:
  targetRefs: [` + strings.Join(append(refs, "{group: gateway.networking.k8s.io, kind: Gateway, name: zz-missing}"), ", ") + `]
  colors: {dark: black}
`
	c.apply(append(objects(t, example(3)[0]), decode(t, docs)...)...)
	c.eventually("wide capped, its problem kept", func() error {
		anc, _, _ := unstructured.NestedSlice(c.get(colorAPI, "ColorPolicy", "default", "wide").Object, "status", "ancestors")
		if len(anc) != 16 {
			return fmt.Errorf("%d ancestors", len(anc))
		}
		if cond := condition(c.get(colorAPI, "ColorPolicy", "default", "wide"), "zz-missing", "Accepted"); cond == nil || cond.Reason != "TargetNotFound" || !strings.Contains(cond.Message, "5 more ancestors not listed") {
			return fmt.Errorf("zz-missing: %+v", cond)
		}
		return nil
	})
	c.eventually("converged with the offline engine", c.converged)
}
