package policies_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"github.com/prometheus/client_golang/prometheus"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/strata-dev/strata/internal/testenv"
	"github.com/strata-dev/strata/pkg/controller/policies"
	clustersource "github.com/strata-dev/strata/pkg/source/cluster"
)

// The workload: 1,000 HTTPRoutes and 200 policies.
const (
	benchGateways       = 20
	benchRoutes         = 1000 // one Service each
	benchTeams          = 4    // namespaces holding the routes and Services
	benchRoutePolicies  = 160  // on routes r-0000..r-0159
	benchGatewayNS      = "infra"
	benchPolicyCtrlName = "strata.dev/policy-controller"
	gatewayAPI          = "gateway.networking.k8s.io/v1"
)

// BenchmarkPolicyStatusLatency measures the controller against a real
// kube-apiserver (envtest) holding the workload: 20 Gateways, 1,000
// HTTPRoutes with a Service each, 200 ColorPolicies (example 3's kind:
// Gateway and HTTPRoute targets, Service as effective target) mixing
// Gateway- and route-level targets, defaults and overrides, atomic and
// patch.
//
// Each iteration creates one more ColorPolicy, on a route (even
// iterations) or a Gateway (odd ones; see timedPolicy), and times how long
// after Create returns the stored policy shows Strata's Accepted
// condition; this includes the API server's latency (the watch event to the controller,
// the status patch, our Get). It then waits until the controller is idle (settle)
// and compares every object Strata may write before and after: the writes
// the controller counted must equal the objects whose status or
// annotations truly changed (the requirement), or the benchmark
// fails with the offending objects.
//
// Besides ns/op (about the mean of the timed waits) it reports p50-ms and p99-ms
// (nearest rank), writes/change, changed-objects/change, and, once for the
// initial world, converge-s (controller start to the last write),
// initial-writes and initial-changed-objects (not held to equality: see
// docs/performance.md, "Controller on a real API server").
//
// The setup takes about a minute, so run a fixed count:
//
//	go test ./pkg/controller/policies/ -run '^$' -bench BenchmarkPolicyStatusLatency -benchtime=30x -timeout 30m -v
func BenchmarkPolicyStatusLatency(b *testing.B) {
	e := newBenchEnv(b)
	ctx := context.Background()

	start := time.Now()
	e.createWorld()
	b.Logf("world created in %s: %d Gateways, %d HTTPRoutes, %d Services, %d ColorPolicies",
		time.Since(start).Round(time.Millisecond), benchGateways, benchRoutes, benchRoutes, benchGateways*2+benchRoutePolicies)

	// Initial convergence: controller start to the last write, once every
	// policy carries Strata's ancestors.
	initial, err := e.snapshot()
	if err != nil {
		b.Fatal(err)
	}
	start = time.Now()
	r := e.start()
	last := e.settle(r, start, 10*time.Minute, e.allPoliciesHaveAncestors)
	converge := last.Sub(start)
	before, wBefore := e.settledSnapshot(r)
	initialWrites, initialChanged := sum(wBefore), changedObjects(initial, before)
	b.Logf("initial world converged in %s: %v writes %v for %d changed objects %v",
		converge.Round(time.Millisecond), initialWrites, wBefore, len(initialChanged), countByKind(initialChanged))

	var (
		latencies           []time.Duration
		totalWrites, totalN float64
		totalChanged        int
		mismatches          []string
	)
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		p := timedPolicy(i)
		if err := e.client.Create(ctx, p); err != nil {
			b.Fatalf("create ColorPolicy %s/%s: %v", p.GetNamespace(), p.GetName(), err)
		}
		b.StartTimer()
		t0 := time.Now()
		err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(p.GroupVersionKind())
			if err := e.client.Get(ctx, client.ObjectKeyFromObject(p), got); err != nil {
				return false, err
			}
			return hasAccepted(got), nil
		})
		lat := time.Since(t0)
		b.StopTimer()
		if err != nil {
			b.Fatalf("ColorPolicy %s/%s: no Accepted condition from %s: %v", p.GetNamespace(), p.GetName(), benchPolicyCtrlName, err)
		}
		latencies = append(latencies, lat)

		after, wAfter := e.settledSnapshot(r)
		changed := changedObjects(before, after)
		writes := sum(wAfter) - sum(wBefore)
		totalWrites += writes
		totalChanged += len(changed)
		totalN++
		target := targetOf(p)
		b.Logf("change %d: %s on %s: Accepted after %s; %v writes %v, %d changed %v %s",
			i, p.GetName(), target, lat.Round(time.Millisecond), writes, byKindDelta(wBefore, wAfter), len(changed), countByKind(changed), brief(changed))
		if writes != float64(len(changed)) {
			mismatches = append(mismatches, fmt.Sprintf("change %d (%s): %v writes %v, %d objects changed: %s",
				i, p.GetName(), writes, byKindDelta(wBefore, wAfter), len(changed), strings.Join(changed, ", ")))
		}
		before, wBefore = after, wAfter
		b.StartTimer()
	}

	p50, p99 := percentile(latencies, 50), percentile(latencies, 99)
	b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(totalWrites/totalN, "writes/change")
	b.ReportMetric(float64(totalChanged)/totalN, "changed-objects/change")
	b.ReportMetric(converge.Seconds(), "converge-s")
	b.ReportMetric(initialWrites, "initial-writes")
	b.ReportMetric(float64(len(initialChanged)), "initial-changed-objects")
	b.Logf("%d changes: p50 %s, p99 %s, %.2f writes/change, %.2f changed objects/change",
		len(latencies), p50, p99, totalWrites/totalN, float64(totalChanged)/totalN)
	if len(mismatches) > 0 {
		b.Fatalf("%d of %d changes wrote a different number of times than objects changed:\n%s",
			len(mismatches), len(latencies), strings.Join(mismatches, "\n"))
	}
}

// benchEnv is one real kube-apiserver with a client, for a benchmark; the
// counterpart of cluster, which takes a *testing.T.
type benchEnv struct {
	tb     testing.TB
	env    *testenv.Env
	client client.Client
	scheme *runtime.Scheme
}

func newBenchEnv(tb testing.TB) *benchEnv {
	tb.Helper()
	env := testenv.StartT(tb)
	scheme := runtime.NewScheme()
	if err := clustersource.AddToScheme(scheme); err != nil {
		tb.Fatal(err)
	}
	c, err := client.New(env.Config, client.Options{Scheme: scheme})
	if err != nil {
		tb.Fatal(err)
	}
	return &benchEnv{tb: tb, env: env, client: c, scheme: scheme}
}

// start runs a controller in a manager of its own, with the options of
// cluster.start.
func (e *benchEnv) start() *running {
	e.tb.Helper()
	// The binary's own client rates (`strata controller`'s defaults), not
	// envtest's unpaced admin config: a limiter the shipped controller
	// would meet is in the figures.
	cfg, err := policies.ClientConfig(e.env.Config, 0, 0, policies.Options{})
	if err != nil {
		e.tb.Fatal(err)
	}
	mgr, err := manager.New(cfg, manager.Options{
		Scheme:                 e.scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Logger:                 testr.NewWithInterface(e.tb, testr.Options{Verbosity: 0}),
	})
	if err != nil {
		e.tb.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	ctrl, err := policies.New(mgr, policies.Options{Registerer: reg, Debounce: 50 * time.Millisecond, TargetQPS: 200, TargetBurst: 200})
	if err != nil {
		e.tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{ctrl: ctrl, reg: reg, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- mgr.Start(ctx) }()
	e.tb.Cleanup(r.stop)
	return r
}

// createWorld creates the topology, installs example 3's ColorPolicy CRD
// and PolicyKind, then creates the 200 policies.
func (e *benchEnv) createWorld() {
	e.tb.Helper()
	var first, topo []*unstructured.Unstructured
	for _, ns := range []string{benchGatewayNS, "team-0", "team-1", "team-2", "team-3"} {
		first = append(first, newObject("v1", "Namespace", "", ns, nil))
	}
	first = append(first, newObject(gatewayAPI, "GatewayClass", "", "strata", map[string]any{
		"controllerName": "strata.dev/gateway-controller",
	}))
	for g := range benchGateways {
		first = append(first, newObject(gatewayAPI, "Gateway", benchGatewayNS, gatewayName(g), map[string]any{
			"gatewayClassName": "strata",
			"listeners": []any{map[string]any{
				"name": "http", "protocol": "HTTP", "port": int64(80),
				"allowedRoutes": map[string]any{"namespaces": map[string]any{"from": "All"}},
			}},
		}))
	}
	for i := range benchRoutes {
		ns, name := routeName(i)
		// Headless: envtest's Service CIDR is a /24, too small for 1,000
		// ClusterIPs, and Strata does not look at addresses.
		topo = append(topo, newObject("v1", "Service", ns, serviceName(i), map[string]any{
			"clusterIP": "None",
			"ports":     []any{map[string]any{"name": "http", "port": int64(8080)}},
		}))
		topo = append(topo, newObject(gatewayAPI, "HTTPRoute", ns, name, map[string]any{
			"parentRefs": []any{map[string]any{"name": gatewayName(i % benchGateways), "namespace": benchGatewayNS}},
			"rules": []any{map[string]any{
				"backendRefs": []any{map[string]any{"name": serviceName(i), "port": int64(8080)}},
			}},
		}))
	}
	e.create(1, first)
	e.create(8, topo)

	kind := e.decodeFile(filepath.Join("..", "..", "..", "examples", "gep-713", "example-3", "kind.yaml"))
	e.create(1, kind)
	for _, o := range kind {
		if o.GetKind() == "CustomResourceDefinition" {
			e.established(o.GetName())
		}
	}
	e.served(colorAPI, "ColorPolicy")
	var policies []*unstructured.Unstructured
	for g := range benchGateways {
		// A default on every Gateway (atomic and patch in turn) and an
		// override on every Gateway (atomic on every fourth).
		policies = append(policies,
			colorPolicy(benchGatewayNS, "gd-"+gatewayName(g), "Gateway", gatewayName(g), g%2, fmt.Sprintf("g%d", g)),
			colorPolicy(benchGatewayNS, "go-"+gatewayName(g), "Gateway", gatewayName(g), 2+boolInt(g%4 == 0), fmt.Sprintf("g%d", g)))
	}
	for i := range benchRoutePolicies {
		ns, name := routeName(i)
		policies = append(policies, colorPolicy(ns, "rp-"+name, "HTTPRoute", name, i%4, fmt.Sprintf("r%d", i)))
	}
	e.create(8, policies)
}

// create creates objects with a few workers; the API server is local, so
// the client, not the server, is the bottleneck of sequential creates.
func (e *benchEnv) create(workers int, objs []*unstructured.Unstructured) {
	e.tb.Helper()
	work := make(chan *unstructured.Unstructured)
	errs := make(chan error, len(objs))
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for o := range work {
				if err := e.client.Create(context.Background(), o); err != nil {
					errs <- fmt.Errorf("create %s %s/%s: %w", o.GetKind(), o.GetNamespace(), o.GetName(), err)
				}
			}
		})
	}
	for _, o := range objs {
		work <- o
	}
	close(work)
	wg.Wait()
	close(errs)
	if err := errors.Join(collect(errs)...); err != nil {
		e.tb.Fatal(err)
	}
}

func collect(errs <-chan error) []error {
	var out []error
	for err := range errs {
		out = append(out, err)
	}
	return out
}

// decodeFile reads the YAML documents of a file, dropping server-managed
// fields, as cluster.apply does.
func (e *benchEnv) decodeFile(file string) []*unstructured.Unstructured {
	e.tb.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		e.tb.Fatal(err)
	}
	var out []*unstructured.Unstructured
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := d.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			e.tb.Fatal(err)
		}
		if len(u.Object) > 0 {
			unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
			unstructured.RemoveNestedField(u.Object, "status")
			out = append(out, u)
		}
	}
}

// established waits until a CRD is served.
func (e *benchEnv) established(name string) {
	e.tb.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := e.client.Get(ctx, client.ObjectKey{Name: name}, crd); err != nil {
			return false, err
		}
		for _, c := range crd.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		e.tb.Fatalf("CRD %s not established: %v", name, err)
	}
}

// served waits until the client can list a kind: an Established CRD can
// reach discovery, and so the client's REST mapper, a moment later.
func (e *benchEnv) served(apiVersion, kind string) {
	e.tb.Helper()
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion(apiVersion)
		l.SetKind(kind + "List")
		last = e.client.List(ctx, l)
		return last == nil, nil
	})
	if err != nil {
		e.tb.Fatalf("%s %s not served: %v (last: %v)", apiVersion, kind, err, last)
	}
}

// allPoliciesHaveAncestors is the initial readiness check: every
// ColorPolicy has an ancestor entry of Strata's.
func (e *benchEnv) allPoliciesHaveAncestors() error {
	l := &unstructured.UnstructuredList{}
	l.SetAPIVersion(colorAPI)
	l.SetKind("ColorPolicyList")
	if err := e.client.List(context.Background(), l); err != nil {
		return err
	}
	missing := 0
	for i := range l.Items {
		if !hasAccepted(&l.Items[i]) {
			missing++
		}
	}
	if missing > 0 {
		return fmt.Errorf("%d of %d ColorPolicies without Strata's ancestors", missing, len(l.Items))
	}
	return nil
}

// hasAccepted reports whether a stored policy has an Accepted condition in
// an ancestor entry of Strata's.
func hasAccepted(p *unstructured.Unstructured) bool {
	anc, _, _ := unstructured.NestedSlice(p.Object, "status", "ancestors")
	for _, a := range anc {
		m, ok := a.(map[string]any)
		if !ok || m["controllerName"] != benchPolicyCtrlName {
			continue
		}
		conds, _ := m["conditions"].([]any)
		for _, c := range conds {
			if cm, ok := c.(map[string]any); ok && cm["type"] == "Accepted" {
				return true
			}
		}
	}
	return false
}

// settle waits until the controller has no work left, read twice in a
// row as cluster.idle reads it (r.work: queues empty, nothing in
// progress, no key added, done or scheduled, no recomputation and no
// write in between; idleEvery apart, longer than the 50ms debounce), and
// ready passes; it returns when the counters last moved (since, if they
// never did). No quiet window: a loaded machine stretches a pause without
// meaning the controller is done, and an idle one shortens nothing.
func (e *benchEnv) settle(r *running, since time.Time, timeout time.Duration, ready func() error) time.Time {
	e.tb.Helper()
	lastChange := since
	var prev queueWork
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), idleEvery, timeout, true, func(context.Context) (bool, error) {
		w, err := r.work()
		if err != nil {
			last = err
			return false, nil
		}
		if prev.counters != "" && w.counters != prev.counters {
			lastChange = time.Now()
		}
		idle := w.busy == "" && prev.counters != "" && prev.busy == "" && prev.counters == w.counters
		prev = w
		if !idle {
			last = fmt.Errorf("still working: %s %s", w.busy, w.counters)
			return false, nil
		}
		last = nil
		if ready != nil {
			last = ready()
		}
		return last == nil, nil
	})
	if err != nil {
		e.tb.Fatalf("controller did not settle: %v (last: %v)", err, last)
	}
	return lastChange
}

// settledSnapshot waits until the controller is idle (settle), then reads every
// object Strata may write, with the write counter; a write during the
// reads makes it start over, so that the counter and the objects agree.
func (e *benchEnv) settledSnapshot(r *running) (objectState, map[string]float64) {
	e.tb.Helper()
	for {
		e.settle(r, time.Now(), 2*time.Minute, nil)
		w0, runs0 := writesByKind(r.reg), engineRuns(r.reg)
		s, err := e.snapshot()
		if err != nil {
			e.tb.Fatal(err)
		}
		if w1 := writesByKind(r.reg); equality.Semantic.DeepEqual(w0, w1) && engineRuns(r.reg) == runs0 {
			return s, w1
		}
	}
}

// objectState holds, per object ("Kind ns/name"), what Strata may write:
// its status and its annotations, normalised by meaningful: a write that
// changes nothing but timestamps, or turns an absent list into an empty
// one, does not count as a change.
type objectState map[string]writable

type writable struct {
	Status      any
	Annotations map[string]string
}

// snapshotKinds are the kinds of objects Strata could write in this world.
var snapshotKinds = []struct{ apiVersion, kind string }{
	{colorAPI, "ColorPolicy"}, {"v1", "Service"}, {gatewayAPI, "HTTPRoute"},
	{gatewayAPI, "Gateway"}, {gatewayAPI, "GatewayClass"}, {"v1", "Namespace"},
}

func (e *benchEnv) snapshot() (objectState, error) {
	out := objectState{}
	for _, k := range snapshotKinds {
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion(k.apiVersion)
		l.SetKind(k.kind + "List")
		if err := e.client.List(context.Background(), l); err != nil {
			return nil, fmt.Errorf("list %s: %w", k.kind, err)
		}
		for _, o := range l.Items {
			out[k.kind+" "+o.GetNamespace()+"/"+o.GetName()] = writable{Status: meaningful(o.Object["status"]), Annotations: o.GetAnnotations()}
		}
	}
	return out, nil
}

// meaningful drops what carries no information from a status, at any
// depth: lastTransitionTime (a condition that truly transitions changes
// its status too), and null, empty lists and empty objects (absent and
// empty mean the same in the Kubernetes API conventions).
func meaningful(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range t {
			if k == "lastTransitionTime" {
				continue
			}
			if e = meaningful(e); e != nil {
				out[k] = e
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		if len(t) == 0 {
			return nil
		}
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = meaningful(e)
		}
		return out
	default:
		return v
	}
}

// changedObjects lists, sorted, the objects whose status or annotations
// differ semantically; an object created in between counts when it has a
// status or annotations (it was created with neither).
func changedObjects(before, after objectState) []string {
	var out []string
	for k, a := range after {
		if !equality.Semantic.DeepEqual(before[k], a) {
			out = append(out, k)
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			out = append(out, k+" (deleted)")
		}
	}
	sort.Strings(out)
	return out
}

// brief names a few changed objects for the log.
func brief(keys []string) string {
	if len(keys) > 4 {
		return strings.Join(keys[:4], ", ") + fmt.Sprintf(", ... (%d more)", len(keys)-4)
	}
	return strings.Join(keys, ", ")
}

func countByKind(keys []string) map[string]int {
	out := map[string]int{}
	for _, k := range keys {
		out[strings.SplitN(k, " ", 2)[0]]++
	}
	return out
}

// writesByKind reads strata_status_writes_total by its kind label.
func writesByKind(reg *prometheus.Registry) map[string]float64 {
	out := map[string]float64{}
	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() != "strata_status_writes_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "kind" {
					out[l.GetValue()] += m.GetCounter().GetValue()
				}
			}
		}
	}
	return out
}

// engineRuns is the total of strata_engine_runs_total, over its labels.
func engineRuns(reg *prometheus.Registry) float64 {
	var total float64
	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == "strata_engine_runs_total" {
			for _, m := range mf.GetMetric() {
				total += m.GetCounter().GetValue()
			}
		}
	}
	return total
}

func sum(m map[string]float64) float64 {
	var t float64
	for _, v := range m {
		t += v
	}
	return t
}

func byKindDelta(before, after map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// percentile is the nearest-rank percentile p (0 < p <= 100).
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[max(rank, 1)-1]
}

// timedPolicy is the policy created by iteration i: on a route nobody
// targets yet (even i: patch defaults of light, patch overrides of dark,
// in turn), or on a Gateway (odd i: patch defaults and patch overrides of
// a color nobody else sets, in turn, so that where no older atomic block
// hides it, the change reaches the Gateway's 50 Services).
func timedPolicy(i int) *unstructured.Unstructured {
	name := fmt.Sprintf("bench-%03d", i)
	if i%2 == 0 {
		ns, route := routeName(benchRoutePolicies + (i/2)%(benchRoutes-benchRoutePolicies))
		return colorPolicy(ns, name, "HTTPRoute", route, 1+boolInt(i%4 == 2), fmt.Sprintf("b%d", i))
	}
	g := (i / 2) % benchGateways
	return colorPolicy(benchGatewayNS, name, "Gateway", gatewayName(g), 4+boolInt(i%4 == 3), fmt.Sprintf("b%d", i))
}

// colorPolicy builds a ColorPolicy of example 3's kind in one of six
// styles: 0 bare colors, atomic (implicit defaults); 1 defaults, patch;
// 2 overrides, patch; 3 overrides, atomic; 4 defaults, patch, of the
// accent color; 5 overrides, patch, of the accent color.
func colorPolicy(ns, name, targetKind, target string, style int, tag string) *unstructured.Unstructured {
	spec := map[string]any{
		"targetRefs": []any{map[string]any{"group": "gateway.networking.k8s.io", "kind": targetKind, "name": target}},
	}
	switch style {
	case 0:
		spec["colors"] = map[string]any{"dark": "dark-" + tag, "light": "light-" + tag}
		spec["strategy"] = "atomic"
	case 1:
		spec["defaults"] = map[string]any{"colors": map[string]any{"light": "light-" + tag}, "strategy": "patch"}
	case 2:
		spec["overrides"] = map[string]any{"colors": map[string]any{"dark": "dark-" + tag}, "strategy": "patch"}
	case 3:
		spec["overrides"] = map[string]any{"colors": map[string]any{"light": "light-" + tag}, "strategy": "atomic"}
	case 4:
		spec["defaults"] = map[string]any{"colors": map[string]any{"accent": "accent-" + tag}, "strategy": "patch"}
	default:
		spec["overrides"] = map[string]any{"colors": map[string]any{"accent": "accent-" + tag}, "strategy": "patch"}
	}
	return newObject(colorAPI, "ColorPolicy", ns, name, spec)
}

func newObject(apiVersion, kind, ns, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	if spec != nil {
		u.Object["spec"] = spec
	}
	return u
}

// targetOf names a policy's first target, for the log.
func targetOf(p *unstructured.Unstructured) string {
	refs, _, _ := unstructured.NestedSlice(p.Object, "spec", "targetRefs")
	if len(refs) == 0 {
		return ""
	}
	ref, _ := refs[0].(map[string]any)
	return fmt.Sprintf("%v %s/%v", ref["kind"], p.GetNamespace(), ref["name"])
}

func gatewayName(g int) string { return fmt.Sprintf("g-%02d", g) }

// routeName spreads the routes over the team namespaces; route i sends to
// Service s-i in its namespace and attaches to Gateway i mod 20.
func routeName(i int) (ns, name string) {
	return fmt.Sprintf("team-%d", i%benchTeams), fmt.Sprintf("r-%04d", i)
}

func serviceName(i int) string { return fmt.Sprintf("s-%04d", i) }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
