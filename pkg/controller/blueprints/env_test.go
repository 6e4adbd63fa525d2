package blueprints_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/strata-dev/strata/internal/testenv"
	"github.com/strata-dev/strata/pkg/controller/blueprints"
)

// One API server and one running controller serve every test of the
// package, as one controller serves a cluster: each test works in
// namespaces and GatewayClasses of its own (named after the test), so
// tests run in parallel and the package starts kube-apiserver once.
//
// The API server outlives a test: envtest runs no namespace controller
// and no garbage collector, so what a test created stays, and a second
// run of it in the same process (go test -count 2, or -run matching it
// twice) would find its first run's namespace, GatewayClass, blueprint,
// configs and rendered children. Each run therefore has names of its own
// (begin, runName) rather than cleaning up: a deleted namespace stays
// Terminating for ever here, the controller renders children no cleanup
// list names, and a cleanup that misses one object leaves the next run
// the very trap it was to remove. The first run keeps the plain names
// (so messages read as before); later runs add "-2", "-3"...
var (
	k8s client.Client
	ctl *blueprints.Controller
	// scheme is the shared controller's, for a test that starts a
	// controller of its own (startController).
	scheme *runtime.Scheme
	// shared is the shared API server's config, for a second controller.
	shared *rest.Config
	// sharedCache is the shared controller's manager's cache (seen).
	sharedCache cache.Cache
)

const (
	controllerNS   = "strata-system"
	controllerName = "strata.dev/blueprint-controller"
	testManager    = client.FieldOwner("strata-test")
)

// TestMain starts the API server and the controller. Set
// STRATA_TEST_LOG=1 to see the controller's log.
func TestMain(m *testing.M) {
	if os.Getenv("STRATA_TEST_LOG") != "" {
		ctrllog.SetLogger(zap.New(zap.WriteTo(os.Stderr), zap.UseDevMode(true)))
	} else {
		ctrllog.SetLogger(logr.Discard())
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// No deadline here: the package's tests end within go test's -timeout.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env, err := testenv.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stop API server:", err)
		}
	}()
	shared = env.Config
	scheme = runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, blueprints.AddToScheme} {
		if err := add(scheme); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if k8s, err = client.New(env.Config, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	skip := true
	mgr, err := manager.New(env.Config, manager.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: &skip},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	reg := prometheus.NewRegistry()
	if ctl, err = blueprints.New(mgr, blueprints.Options{Registerer: reg}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	count(reg)
	sharedCache = mgr.GetCache()
	mctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			fmt.Fprintln(os.Stderr, "manager:", err)
		}
	}()
	return m.Run()
}

// runToken stands, in the YAML a test applies and in the names and
// messages it checks (runName), for the suffix of the test's run.
const runToken = "_RUN_"

// runs counts the runs of each top-level test in this process.
var runs = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

// begin starts a run of top-level test t and returns the suffix its
// names carry: "" on its first run in the process, "-2" on the second...
// Runs of one test never overlap (go test -count runs the whole list
// again once the previous round, parallel tests included, is done).
func begin(t *testing.T) string {
	runs.Lock()
	runs.n[t.Name()]++
	runs.Unlock()
	return suffix(t)
}

// suffix is the suffix of the current run of t's top-level test (t may
// be one of its subtests).
func suffix(t *testing.T) string {
	top, _, _ := strings.Cut(t.Name(), "/")
	runs.Lock()
	defer runs.Unlock()
	if n := runs.n[top]; n > 1 {
		return fmt.Sprintf("-%d", n)
	}
	return ""
}

// runName replaces runToken in s with the suffix of t's run: "prune_RUN_"
// is prune on a first run, prune-2 on the second.
func runName(t *testing.T, s string) string { return strings.ReplaceAll(s, runToken, suffix(t)) }

// apply server-side applies the objects of a YAML stream (as the test's
// own field manager), creating namespaces as needed.
func apply(t *testing.T, yaml string, args ...any) {
	t.Helper()
	applyTo(t, k8s, yaml, args...)
}

// applyTo is apply on the API server of client c (a test's own).
func applyTo(t *testing.T, c client.Client, yaml string, args ...any) {
	t.Helper()
	if len(args) > 0 {
		yaml = fmt.Sprintf(yaml, args...)
	}
	yaml = runName(t, yaml)
	for _, o := range decode(t, yaml) {
		if err := c.Apply(context.Background(), client.ApplyConfigurationFromUnstructured(o), testManager, client.ForceOwnership); err != nil {
			t.Fatalf("apply %s %s/%s: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		}
	}
}

func decode(t *testing.T, yaml string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewBufferString(yaml), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := d.Decode(&u.Object); err != nil {
			if errors.Is(err, io.EOF) {
				return out
			}
			t.Fatalf("decode: %v\n%s", err, yaml)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

// namespace creates a namespace for the test, with labels.
func namespace(t *testing.T, name string, labels ...string) {
	t.Helper()
	l := ""
	for i := 0; i+1 < len(labels); i += 2 {
		l += fmt.Sprintf("\n    %s: %q", labels[i], labels[i+1])
	}
	if l != "" {
		l = "\n  labels:" + l
	}
	apply(t, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s%s\n", name, l)
}

// global creates the controller namespace (for global configs).
func global(t *testing.T) { namespace(t, controllerNS) }

// get reads an object (nil when it does not exist).
func get(t *testing.T, apiVersion, kind, ns, name string) *unstructured.Unstructured {
	t.Helper()
	return getFrom(t, k8s, apiVersion, kind, ns, name)
}

// getFrom is get on the API server of client c.
func getFrom(t *testing.T, c client.Client, apiVersion, kind, ns, name string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	if err := c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		t.Fatalf("get %s %s/%s: %v", kind, ns, name, err)
	}
	return u
}

func del(t *testing.T, apiVersion, kind, ns, name string) {
	t.Helper()
	delFrom(t, k8s, apiVersion, kind, ns, name)
}

// delFrom is del on the API server of client c.
func delFrom(t *testing.T, c client.Client, apiVersion, kind, ns, name string) {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	if err := c.Delete(context.Background(), u); err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("delete %s %s/%s: %v", kind, ns, name, err)
	}
}

// patience is how long a test waits for a condition: generous, because
// a loaded machine is slow, not wrong. Nothing waits for a fixed time.
const patience = 2 * time.Minute

// eventually polls check until it passes (every 100ms, patience at most).
func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, patience, true, func(context.Context) (bool, error) {
		last = check()
		return last == nil, nil
	})
	if err != nil {
		t.Fatalf("waited %v for %s; last check: %v", patience, what, last)
	}
}

// What the tests wait for before they assert that nothing more happens:
// the blueprint controllers have no work left (idle), after they have
// received the test's latest writes (cached). Both are read, never
// assumed from a quiet moment, which a loaded machine can stretch.
//
// blueprints.New names its controller-runtime controller, and so
// its workqueue, queueName whatever the Options, so the workqueue and
// controller metrics controller-runtime keeps in its global registry add
// up every blueprint controller of the test binary: the shared one and
// those tests start. Idle is therefore all of them idle.
const queueName = "strata-blueprints"

// counted are the registries of the blueprint controllers started, with
// their renders and writes counters (Controller.Renders, Writes).
var counted struct {
	sync.Mutex
	regs []prometheus.Gatherer
}

func count(reg prometheus.Gatherer) {
	counted.Lock()
	defer counted.Unlock()
	counted.regs = append(counted.regs, reg)
}

// work is one read of the queues named queueName and of the blueprint
// controllers' counters.
type work struct {
	// depth is workqueue_depth over all priorities: keys ready and not yet
	// handed to a worker.
	depth float64
	// inFlight is keys handed to a worker and not done yet:
	// workqueue_adds_total - depth - the count of
	// workqueue_work_duration_seconds (observed when a key is done).
	inFlight float64
	// active is controller_runtime_active_workers. Every start of a
	// controller named queueName sets it to 0, also while another one has
	// workers busy, so it can read below the true count: it is only
	// checked not to be positive. inFlight is the exact count.
	active float64
	// counters must not move between two reads: queue adds, keys done,
	// delayed adds (workqueue_retries_total), reconciles
	// (controller_runtime_reconcile_total), renders and writes.
	counters string
}

// busy says what work is left ("" for none).
func (w work) busy() string {
	switch {
	case w.depth != 0:
		return fmt.Sprintf("%v keys queued", w.depth)
	case w.inFlight != 0:
		return fmt.Sprintf("%v keys being reconciled", w.inFlight)
	case w.active > 0:
		return fmt.Sprintf("%v workers active", w.active)
	}
	return ""
}

func (w work) String() string {
	return fmt.Sprintf("depth %v, in flight %v, active workers %v; %s", w.depth, w.inFlight, w.active, w.counters)
}

// readWork reads the queues named queueName from controller-runtime's
// registry and the counters of the controllers started.
func readWork() (work, error) {
	mfs, err := crmetrics.Registry.Gather()
	if err != nil {
		return work{}, err
	}
	var (
		w                               work
		queued                          bool
		adds, done, retries, reconciles float64
	)
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			ours := false
			for _, l := range m.GetLabel() {
				if (l.GetName() == "name" || l.GetName() == "controller") && l.GetValue() == queueName {
					ours = true
				}
			}
			if !ours {
				continue
			}
			switch mf.GetName() {
			case "workqueue_depth":
				w.depth += m.GetGauge().GetValue()
				queued = true
			case "workqueue_adds_total":
				adds += m.GetCounter().GetValue()
			case "workqueue_work_duration_seconds":
				done += float64(m.GetHistogram().GetSampleCount())
			case "workqueue_retries_total":
				retries += m.GetCounter().GetValue()
			case "controller_runtime_active_workers":
				w.active += m.GetGauge().GetValue()
			case "controller_runtime_reconcile_total":
				reconciles += m.GetCounter().GetValue()
			}
		}
	}
	if !queued {
		return work{}, fmt.Errorf("no workqueue_depth{name=%q} in controller-runtime's registry: no blueprint controller started", queueName)
	}
	w.inFlight = adds - w.depth - done
	renders, writes, err := controllerCounters()
	if err != nil {
		return work{}, err
	}
	w.counters = fmt.Sprintf("adds %v, done %v, delayed adds %v, reconciles %v, renders %v, writes %v", adds, done, retries, reconciles, renders, writes)
	return w, nil
}

// controllerCounters sums the renders and writes of every blueprint
// controller started.
func controllerCounters() (renders, writes float64, err error) {
	counted.Lock()
	defer counted.Unlock()
	for _, reg := range counted.regs {
		mfs, err := reg.Gather()
		if err != nil {
			return 0, 0, err
		}
		for _, mf := range mfs {
			for _, m := range mf.GetMetric() {
				switch mf.GetName() {
				case "strata_blueprint_renders_total":
					renders += m.GetCounter().GetValue()
				case "strata_blueprint_writes_total":
					writes += m.GetCounter().GetValue()
				}
			}
		}
	}
	return renders, writes, nil
}

// idleEvery is the time between two reads of idle. It is longer than the
// 100ms after which a reconcile that met a write conflict asks for its
// key again (RequeueAfter, which keeps the key out of the queue until
// then), so a retry due at the first read has been added by the second.
// (A refused render's retry, a minute later, is a new event.)
const idleEvery = 250 * time.Millisecond

// idle waits until every condition of first holds (typically cached: the
// controllers have received the test's latest writes; an empty queue
// alone may only mean that an event is still on its way) and then until
// the blueprint controllers have no work left, read twice in a row:
// nothing queued, nothing being reconciled, and no key added, reconciled,
// rendered or written between the two reads. A test asserts after idle
// that nothing more happened (objects' resourceVersions as before), or
// takes there the state it compares with later.
func idle(t *testing.T, what string, first ...func() error) {
	t.Helper()
	for _, f := range first {
		eventually(t, what+": the controllers have seen the test's writes", f)
	}
	var prev, last work
	var lastErr error
	err := wait.PollUntilContextTimeout(context.Background(), idleEvery, patience, true, func(context.Context) (bool, error) {
		w, err := readWork()
		if err != nil {
			lastErr = err
			return false, nil
		}
		prev, last, lastErr = last, w, nil
		return w.busy() == "" && prev.counters != "" && prev.busy() == "" && prev.counters == w.counters, nil
	})
	if err != nil {
		t.Fatalf("waited %v for the blueprint controllers to be idle (%s): last read %v, the one before %v (error: %v)", patience, what, last, prev, lastErr)
	}
}

// object names an object of an API server.
type object struct{ apiVersion, kind, ns, name string }

func (o object) String() string { return fmt.Sprintf("%s %s/%s", o.kind, o.ns, o.name) }

// managerCacheKinds are the kinds a blueprint controller watches through
// its manager's cache (rendered objects go through a cache of its own).
var managerCacheKinds = map[string]bool{
	"GatewayClass": true, "Gateway": true, "HTTPRoute": true, "ReferenceGrant": true, "Namespace": true,
	"GatewayClassBlueprint": true, "GatewayClassConfig": true, "GatewayConfig": true,
}

// cached checks that cache ca, a controller's, holds each of objs as the
// API server of client c has it now (or neither has it): the controller
// has received the events of the test's latest writes (its event handlers
// queue the keys they cause right after the informer has stored the
// object, well within the idleEvery between idle's two reads). It reads
// typed objects, from the informers the controller watches with.
func cached(c client.Client, ca cache.Cache, objs ...object) func() error {
	return func() error {
		for _, o := range objs {
			if !managerCacheKinds[o.kind] {
				return fmt.Errorf("%s: a blueprint controller does not watch %s through its manager's cache", o, o.kind)
			}
			u := &unstructured.Unstructured{}
			u.SetAPIVersion(o.apiVersion)
			u.SetKind(o.kind)
			key := client.ObjectKey{Namespace: o.ns, Name: o.name}
			stored, err := resourceVersion(c, key, u)
			if err != nil {
				return err
			}
			typed, err := scheme.New(u.GroupVersionKind())
			if err != nil {
				return err
			}
			inCache, err := resourceVersion(ca, key, typed.(client.Object))
			if err != nil {
				return err
			}
			if inCache != stored {
				return fmt.Errorf("%s: the API server has resourceVersion %q, the controller's cache %q", o, stored, inCache)
			}
		}
		return nil
	}
}

// resourceVersion reads an object's resourceVersion ("" when absent).
func resourceVersion(r client.Reader, key client.ObjectKey, obj client.Object) (string, error) {
	if err := r.Get(context.Background(), key, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return "", nil
		}
		return "", err
	}
	return obj.GetResourceVersion(), nil
}

// seen is cached for the shared controller.
func seen(objs ...object) func() error { return cached(k8s, sharedCache, objs...) }

// touch sets the annotation strata.dev/test-touch of an object to a new
// value, a change the controller reacts to (it re-renders) and which
// changes nothing it renders or writes, and returns the object's new
// resourceVersion.
func touch(t *testing.T, o object) string {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(o.apiVersion)
	u.SetKind(o.kind)
	u.SetNamespace(o.ns)
	u.SetName(o.name)
	patch := fmt.Sprintf(`{"metadata":{"annotations":{"strata.dev/test-touch":"%d"}}}`, time.Now().UnixNano())
	if err := k8s.Patch(context.Background(), u, client.RawPatch(types.MergePatchType, []byte(patch)), client.FieldOwner("strata-test-touch")); err != nil {
		t.Fatalf("touch %s: %v", o, err)
	}
	return u.GetResourceVersion()
}

// cond finds a condition in a list of conditions at path.
func cond(obj map[string]any, typ string, path ...string) *metav1.Condition {
	list, _, _ := unstructured.NestedSlice(obj, path...)
	return findCond(list, typ)
}

func findCond(list []any, typ string) *metav1.Condition {
	for _, c := range list {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != typ {
			continue
		}
		out := &metav1.Condition{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, out); err != nil {
			return nil
		}
		return out
	}
	return nil
}

// hasCond checks a condition's status and reason, and that its message
// contains every one of msgs.
func hasCond(c *metav1.Condition, typ, status, reason string, msgs ...string) error {
	if c == nil {
		return fmt.Errorf("no %s condition", typ)
	}
	if string(c.Status) != status || c.Reason != reason {
		return fmt.Errorf("%s = %s/%s (%s), want %s/%s", typ, c.Status, c.Reason, c.Message, status, reason)
	}
	for _, m := range msgs {
		if !strings.Contains(c.Message, m) {
			return fmt.Errorf("%s message %q does not contain %q", typ, c.Message, m)
		}
	}
	return nil
}

// gatewayCond checks a condition of a Gateway.
func gatewayCond(t *testing.T, ns, name, typ, status, reason string, msgs ...string) func() error {
	return func() error {
		gw := get(t, gatewayAPI, "Gateway", ns, name)
		if gw == nil {
			return fmt.Errorf("Gateway %s/%s not found", ns, name)
		}
		return hasCond(cond(gw.Object, typ, "status", "conditions"), typ, status, reason, runNames(t, msgs)...)
	}
}

// runNames is runName of each of msgs.
func runNames(t *testing.T, msgs []string) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = runName(t, m)
	}
	return out
}

// data reads a ConfigMap's data (nil when absent).
func data(t *testing.T, ns, name string) map[string]string {
	cm := get(t, "v1", "ConfigMap", ns, name)
	if cm == nil {
		return nil
	}
	d, _, _ := unstructured.NestedStringMap(cm.Object, "data")
	if d == nil {
		d = map[string]string{}
	}
	return d
}

// dataIs checks a ConfigMap's data.
func dataIs(t *testing.T, ns, name string, want map[string]string) func() error {
	return func() error {
		got := data(t, ns, name)
		if got == nil {
			return fmt.Errorf("ConfigMap %s/%s not found", ns, name)
		}
		for k, v := range want {
			if got[k] != v {
				return fmt.Errorf("ConfigMap %s/%s: %s = %q, want %q (data %v)", ns, name, k, got[k], v, got)
			}
		}
		return nil
	}
}

func gone(t *testing.T, apiVersion, kind, ns, name string) func() error {
	return func() error {
		if get(t, apiVersion, kind, ns, name) != nil {
			return fmt.Errorf("%s %s/%s still exists", kind, ns, name)
		}
		return nil
	}
}

const (
	gatewayAPI   = "gateway.networking.k8s.io/v1"
	blueprintAPI = "blueprints.strata.dev/v1alpha1"
)

// class applies a GatewayClass of Strata's blueprint controller using
// blueprint bp.
func class(t *testing.T, name, bp string) {
	t.Helper()
	classOf(t, name, controllerName, bp)
}

// classOf applies a GatewayClass of the blueprint controller named
// controller using blueprint bp.
func classOf(t *testing.T, name, controller, bp string) {
	t.Helper()
	apply(t, `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: %s
spec:
  controllerName: %s
  parametersRef:
    group: blueprints.strata.dev
    kind: GatewayClassBlueprint
    name: %s
`, name, controller, bp)
}

// gateway applies a Gateway with one HTTP listener on port 80.
func gateway(t *testing.T, ns, name, className string) {
	t.Helper()
	apply(t, `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: %s
  namespace: %s
spec:
  gatewayClassName: %s
  listeners:
  - name: http
    protocol: HTTP
    port: 80
`, name, ns, className)
}

// indent indents every line of s by n spaces (for templates in YAML).
func indent(n int, s string) string {
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pad)
}

// started is a blueprint controller a test started, with a manager of
// its own.
type started struct {
	// cache is its manager's cache, for cached.
	cache cache.Cache
	// stop stops it and returns once its manager has stopped; it stops
	// with the test otherwise.
	stop func()
}

// startController starts a blueprint controller with default options
// (but a metrics registry of its own) and a manager of its own on the API
// server of cfg.
func startController(t *testing.T, cfg *rest.Config) started {
	t.Helper()
	return startControllerWith(t, cfg, blueprints.Options{})
}

// startControllerWith starts a blueprint controller with opts (and a
// registry of its own) on cfg's API server.
//
// Its controller uses client-go's plain workqueue, not controller-runtime's
// priority queue: a plain queue hands out what it holds until it is empty
// when the controller stops, while a priority queue keeps it, and keeps
// counting it in workqueue_depth of every controller named queueName,
// so that no later idle of the package would ever come.
func startControllerWith(t *testing.T, cfg *rest.Config, opts blueprints.Options) started {
	t.Helper()
	skip, priorityQueue := true, false
	mgr, err := manager.New(cfg, manager.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: &skip, UsePriorityQueue: &priorityQueue},
	})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	opts.Registerer = reg
	if _, err := blueprints.New(mgr, opts); err != nil {
		t.Fatal(err)
	}
	count(reg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("controller: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return started{cache: mgr.GetCache(), stop: stop}
}
