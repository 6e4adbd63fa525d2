package e2e_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The at-scale world: routes behind Gateways, one headless Service each
// (Strata reads no addresses), ColorPolicies on every Gateway and on some
// routes, so that every Service is affected.
const (
	scaleGateways     = 10
	scaleRoutes       = 2000
	scaleRoutePolices = 480 // with a default and an override per Gateway: 500 policies
	scaleNamespaces   = 4
)

// TestShippedAtScale installs config/default and config/samples (the
// ColorPolicy kind's PolicyKind and ClusterRole) on Gateway API v1.6's
// standard channel, with a 2,000-route, 500-policy world, and runs the
// binary with its shipped flags: every policy gets Strata's ancestors and
// every Service its ColorPolicyAffected condition.
//
// How fast it settles is the client's rate limit more than the machine:
// the Services' conditions are paced at --target-qps (20 per second),
// and the client must carry that beside the policy status, the records
// and the Events. The test measures the rate at which Services got their
// condition, by watching them, and requires more than client-go's
// default of 5 requests per second could ever give (all writes together);
// at that default 2,000 routes took over eight minutes.
func TestShippedAtScale(t *testing.T) {
	t.Parallel() // an API server and a controller of its own
	c := newCluster(t, "standard")
	install := kustomize(t, "default")
	c.apply(install...)
	c.apply(files(t, "examples/gep-713/example-3/kind.yaml")...)
	c.apply(kustomize(t, "samples")...)
	c.createScaleWorld()

	ct := deployment(t, install)
	// The time each Service was first seen with its condition, from a
	// watch started before the controller.
	affected := c.watchAffected(scaleRoutes)
	start := time.Now()
	c.run(ct)

	c.eventually("every policy with Strata's ancestors", 10*time.Minute, func(ctx context.Context) error {
		var l unstructured.UnstructuredList
		l.SetAPIVersion("policies.controller.io/v1")
		l.SetKind("ColorPolicyList")
		if err := c.admin.List(ctx, &l); err != nil {
			return err
		}
		missing := 0
		for _, p := range l.Items {
			ancestors, _, _ := unstructured.NestedSlice(p.Object, "status", "ancestors")
			if len(ancestors) == 0 {
				missing++
			}
		}
		if len(l.Items) != 2*scaleGateways+scaleRoutePolices || missing > 0 {
			return fmt.Errorf("%d of %d policies without ancestors", missing, len(l.Items))
		}
		return nil
	})
	var times []time.Time
	c.eventually("every Service with ColorPolicyAffected", 10*time.Minute, func(context.Context) error {
		times = affected.times()
		if len(times) < scaleRoutes {
			return fmt.Errorf("%d of %d Services", len(times), scaleRoutes)
		}
		return nil
	})
	// The rate over the middle 80% of the Services' writes (the first
	// wait on the initial recomputation, the last on stragglers).
	sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
	lo, hi := times[len(times)/10], times[len(times)*9/10]
	rate := float64(len(times)*8/10) / hi.Sub(lo).Seconds()
	t.Logf("settled %s after the controller started; Services' conditions at %.1f per second (--target-qps 20)", times[len(times)-1].Sub(start).Round(time.Second), rate)
	if rate < 8 {
		t.Errorf("Services' conditions written at %.1f per second: the client's rate limit, not --target-qps (20), paces the controller", rate)
	}
}

// createScaleWorld creates the at-scale world as the admin, a few
// objects at a time.
func (c *cluster) createScaleWorld() {
	c.t.Helper()
	const gw = "gateway.networking.k8s.io/v1"
	obj := func(apiVersion, kind, ns, name string, spec map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name}}}
		if ns != "" {
			u.SetNamespace(ns)
		}
		if spec != nil {
			u.Object["spec"] = spec
		}
		return u
	}
	team := func(i int) string { return fmt.Sprintf("team-%d", i%scaleNamespaces) }
	gateway := func(i int) string { return fmt.Sprintf("gw-%02d", i%scaleGateways) }
	policy := func(ns, name, kind, target string, spec map[string]any) *unstructured.Unstructured {
		spec["targetRefs"] = []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": kind, "name": target}}
		return obj("policies.controller.io/v1", "ColorPolicy", ns, name, spec)
	}
	first := []*unstructured.Unstructured{obj("v1", "Namespace", "", "infra", nil),
		obj(gw, "GatewayClass", "", "shop", map[string]any{"controllerName": "example.com/gateway"})}
	for i := range scaleNamespaces {
		first = append(first, obj("v1", "Namespace", "", team(i), nil))
	}
	var world []*unstructured.Unstructured
	for g := range scaleGateways {
		world = append(world,
			obj(gw, "Gateway", "infra", gateway(g), map[string]any{
				"gatewayClassName": "shop",
				"listeners": []any{map[string]any{"name": "http", "protocol": "HTTP", "port": int64(80),
					"allowedRoutes": map[string]any{"namespaces": map[string]any{"from": "All"}}}},
			}),
			policy("infra", "default-"+gateway(g), "Gateway", gateway(g), map[string]any{"defaults": map[string]any{"colors": map[string]any{"light": "blue"}, "strategy": "patch"}}),
			policy("infra", "override-"+gateway(g), "Gateway", gateway(g), map[string]any{"overrides": map[string]any{"colors": map[string]any{"dark": "black"}, "strategy": "patch"}}))
	}
	for i := range scaleRoutes {
		name := fmt.Sprintf("r-%04d", i)
		world = append(world,
			obj("v1", "Service", team(i), name, map[string]any{"clusterIP": "None", "ports": []any{map[string]any{"name": "http", "port": int64(8080)}}}),
			obj(gw, "HTTPRoute", team(i), name, map[string]any{
				"parentRefs": []any{map[string]any{"name": gateway(i), "namespace": "infra"}},
				"rules":      []any{map[string]any{"backendRefs": []any{map[string]any{"name": name, "port": int64(8080)}}}},
			}))
		if i < scaleRoutePolices {
			world = append(world, policy(team(i), "p-"+name, "HTTPRoute", name, map[string]any{"defaults": map[string]any{"colors": map[string]any{"accent": name}, "strategy": "patch"}}))
		}
	}
	c.apply(first...)
	g, ctx := errgroup.WithContext(c.t.Context())
	g.SetLimit(8)
	for _, o := range world {
		g.Go(func() error {
			if err := c.admin.Create(ctx, o); err != nil {
				return fmt.Errorf("create %s %s/%s: %w", o.GetKind(), o.GetNamespace(), o.GetName(), err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		c.t.Fatal(err)
	}
}

// affectedTimes records when each Service was first seen carrying the
// ColorPolicyAffected condition.
type affectedTimes struct {
	mu   sync.Mutex
	seen map[client.ObjectKey]time.Time
}

func (a *affectedTimes) times() []time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]time.Time, 0, len(a.seen))
	for _, t := range a.seen {
		out = append(out, t)
	}
	return out
}

// watchAffected watches Services and records when each got Strata's
// ColorPolicyAffected condition.
func (c *cluster) watchAffected(want int) *affectedTimes {
	c.t.Helper()
	a := &affectedTimes{seen: make(map[client.ObjectKey]time.Time, want)}
	w, err := c.cs.CoreV1().Services("").Watch(c.t.Context(), metav1.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(w.Stop)
	go func() {
		for ev := range w.ResultChan() {
			svc, ok := ev.Object.(*corev1.Service)
			if !ok {
				continue
			}
			for _, cond := range svc.Status.Conditions {
				if strings.HasSuffix(cond.Type, "/ColorPolicyAffected") {
					key := client.ObjectKeyFromObject(svc)
					a.mu.Lock()
					if _, ok := a.seen[key]; !ok {
						a.seen[key] = time.Now()
					}
					a.mu.Unlock()
				}
			}
		}
	}()
	return a
}
