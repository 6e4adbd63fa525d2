package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/strata-dev/strata/pkg/clustersource"
	"github.com/strata-dev/strata/pkg/effectivepolicy"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/status"
)

// Options configure the controller. The zero value is usable.
type Options struct {
	// ControllerName is the controllerName of kinds whose declaration names
	// none (default strata.dev/policy-controller); its domain prefixes the
	// <Kind>Affected conditions.
	ControllerName string
	// TargetQPS and TargetBurst rate-limit writes of target conditions, the
	// fanout side (GEP-713 "Fanout status update problems"). Default 20, 50.
	TargetQPS   float64
	TargetBurst int
	// Debounce batches bursts of events into one recomputation. Default
	// 100ms.
	Debounce time.Duration
	// Registerer receives the write counter; nil means controller-runtime's
	// metrics registry (served on the manager's metrics endpoint).
	Registerer prometheus.Registerer
	// Now is the clock for lastTransitionTime; nil means time.Now.
	Now func() time.Time
	// EffectivePolicies makes the controller keep an EffectivePolicy object
	// next to every namespaced effective target of a managed kind. Off by
	// default: one object per target and change is exactly the fanout
	// GEP-713 warns about.
	EffectivePolicies bool
}

// AddToScheme registers every type the controller reads or writes.
func AddToScheme(s *runtime.Scheme) error {
	if err := clustersource.AddToScheme(s); err != nil {
		return err
	}
	return effectivepolicy.AddToScheme(s)
}

// Controller is Strata's policy controller. It is a manager.Runnable that
// needs leader election: only the leader writes.
type Controller struct {
	opts   Options
	client client.Client
	cache  cache.Cache
	mapper meta.RESTMapper
	reader *clustersource.Reader
	log    logr.Logger

	writes *prometheus.CounterVec
	runs   prometheus.Counter

	world   workqueue.TypedRateLimitingInterface[string]
	targets workqueue.TypedRateLimitingInterface[targetKey]

	mu      sync.Mutex
	desired map[targetKey]*unstructured.Unstructured // fragment per target; nil = not affected
	owned   status.Owned
	watched map[schema.GroupVersionKind]toolscache.ResourceEventHandlerRegistration
	stopped map[schema.GroupVersionKind]bool
}

// targetKey names an object whose status Strata may write.
type targetKey struct {
	GVK schema.GroupVersionKind
	types.NamespacedName
}

const worldKey = "world"

// New creates the controller and adds it to the manager. The manager's
// scheme must have AddToScheme applied.
func New(mgr manager.Manager, opts Options) (*Controller, error) {
	if opts.TargetQPS == 0 {
		opts.TargetQPS = 20
	}
	if opts.TargetBurst == 0 {
		opts.TargetBurst = 50
	}
	if opts.Debounce == 0 {
		opts.Debounce = 100 * time.Millisecond
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Registerer == nil {
		opts.Registerer = crmetrics.Registry
	}
	c := &Controller{
		opts:    opts,
		client:  mgr.GetClient(),
		cache:   mgr.GetCache(),
		mapper:  mgr.GetRESTMapper(),
		log:     mgr.GetLogger().WithName("strata"),
		desired: map[targetKey]*unstructured.Unstructured{},
		watched: map[schema.GroupVersionKind]toolscache.ResourceEventHandlerRegistration{},
		stopped: map[schema.GroupVersionKind]bool{},
		writes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "strata_status_writes_total",
			Help: "Writes to the API server by Strata, by kind of the object written.",
		}, []string{"kind"}),
		runs: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "strata_engine_runs_total",
			Help: "Recomputations of the effective policies and status.",
		}),
	}
	for _, col := range []prometheus.Collector{c.writes, c.runs} {
		if err := opts.Registerer.Register(col); err != nil {
			return nil, fmt.Errorf("register metrics: %w", err)
		}
	}
	c.reader = &clustersource.Reader{Client: c.cache, Present: c.present}
	c.world = workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "strata-world"})
	c.targets = workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedMaxOfRateLimiter(
			workqueue.NewTypedItemExponentialFailureRateLimiter[targetKey](50*time.Millisecond, 30*time.Second),
			&workqueue.TypedBucketRateLimiter[targetKey]{Limiter: rate.NewLimiter(rate.Limit(opts.TargetQPS), opts.TargetBurst)},
		),
		workqueue.TypedRateLimitingQueueConfig[targetKey]{Name: "strata-targets"})
	if err := mgr.Add(c); err != nil {
		return nil, err
	}
	return c, nil
}

// Writes is the write counter, by kind (for tests and benchmarks).
func (c *Controller) Writes() *prometheus.CounterVec { return c.writes }

// NeedLeaderElection makes only the leader run the controller.
func (c *Controller) NeedLeaderElection() bool { return true }

// Start runs the controller until ctx ends.
func (c *Controller) Start(ctx context.Context) error {
	defer c.world.ShutDown()
	defer c.targets.ShutDown()
	if err := c.watch(ctx, clustersource.CRDGVK); err != nil {
		return err
	}
	c.trigger()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.runWorld(ctx) }()
	go func() { defer wg.Done(); c.runTargets(ctx) }()
	<-ctx.Done()
	c.world.ShutDown()
	c.targets.ShutDown()
	wg.Wait()
	return nil
}

// trigger schedules a recomputation; events arriving within Debounce are
// served by one run (the queue holds the key once).
func (c *Controller) trigger() { c.world.AddAfter(worldKey, c.opts.Debounce) }

func (c *Controller) runWorld(ctx context.Context) {
	for {
		key, quit := c.world.Get()
		if quit {
			return
		}
		err := c.reconcile(ctx)
		if err != nil && ctx.Err() == nil {
			c.log.Error(err, "recompute failed; retrying")
			c.world.AddRateLimited(key)
		} else {
			c.world.Forget(key)
		}
		c.world.Done(key)
	}
}

func (c *Controller) runTargets(ctx context.Context) {
	for {
		key, quit := c.targets.Get()
		if quit {
			return
		}
		err := c.writeTarget(ctx, key)
		switch {
		case err == nil:
			c.targets.Forget(key)
		case ctx.Err() != nil:
		case apierrors.IsConflict(err):
			c.targets.AddRateLimited(key) // re-read and re-merge
		case apierrors.IsNotFound(err):
			c.targets.Forget(key)
		default:
			c.log.Error(err, "write target status", "kind", key.GVK.Kind, "object", key.NamespacedName)
			c.targets.AddRateLimited(key)
		}
		c.targets.Done(key)
	}
}

// reconcile is one recomputation: read the cache, run the engine, write
// policy status that differs from what is stored, and queue the targets
// whose conditions differ.
func (c *Controller) reconcile(ctx context.Context) error {
	if err := c.ensureTopologyWatches(ctx); err != nil {
		return err
	}
	if !c.isWatched(clustersource.PolicyKindGVK) && c.present(clustersource.PolicyKindGVK) {
		if err := c.watch(ctx, clustersource.PolicyKindGVK); err != nil {
			return err
		}
	}
	snap, kinds, err := c.reader.Snapshot(ctx)
	if err != nil {
		return err
	}
	if err := c.ensurePolicyWatches(ctx, kinds); err != nil {
		return err
	}
	res, err := engine.Run(snap, engine.Options{ControllerName: c.opts.ControllerName, Lenient: true})
	if err != nil {
		return err
	}
	c.runs.Inc()
	for _, e := range res.Errors {
		c.log.Info("skipped", "reason", e.Error())
	}
	now := metav1.NewTime(c.opts.Now().UTC().Truncate(time.Second))
	var errs []error
	owned := status.OwnedBy(res.Kinds)
	for _, desired := range status.Policies(res, now) {
		if err := c.writePolicy(ctx, desired, owned.Controllers); err != nil {
			errs = append(errs, err)
		}
	}
	fragments := map[targetKey]*unstructured.Unstructured{}
	for _, f := range status.Targets(res, now) {
		fragments[targetKey{GVK: f.GroupVersionKind(), NamespacedName: types.NamespacedName{Namespace: f.GetNamespace(), Name: f.GetName()}}] = f
	}
	c.mu.Lock()
	for k, v := range owned.Types {
		c.owned.Types = setOr(c.owned.Types, k, v)
	}
	for k, v := range owned.Controllers {
		c.owned.Controllers = setOr(c.owned.Controllers, k, v)
	}
	c.desired = map[targetKey]*unstructured.Unstructured{}
	c.mu.Unlock()
	// Every object that can carry Strata's conditions is compared, so that
	// conditions are removed from objects no longer affected.
	for _, n := range res.Graph.Nodes {
		obj, ok := n.Object.(client.Object)
		if !ok || n.Ref.Section != "" {
			continue
		}
		current, err := toUnstructured(obj, c.gvkOf(obj))
		if err != nil {
			return err
		}
		key := targetKey{GVK: current.GroupVersionKind(), NamespacedName: client.ObjectKeyFromObject(obj)}
		frag := fragments[key]
		c.mu.Lock()
		_, changed := status.Merge(current, frag, c.owned)
		if changed {
			c.desired[key] = frag
		}
		c.mu.Unlock()
		if changed {
			c.targets.AddRateLimited(key)
		}
	}
	if c.opts.EffectivePolicies {
		if err := c.writeEffectivePolicies(ctx, res); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// writePolicy patches a policy's status when its ancestors differ from
// what is stored, with optimistic locking: a conflict means the cache is
// behind, and the next run (the update event triggers one) retries.
func (c *Controller) writePolicy(ctx context.Context, desired *unstructured.Unstructured, ours map[string]bool) error {
	current := &unstructured.Unstructured{}
	current.SetGroupVersionKind(desired.GroupVersionKind())
	if err := c.cache.Get(ctx, client.ObjectKeyFromObject(desired), current); err != nil {
		return client.IgnoreNotFound(err)
	}
	// Strata's entries from the engine, everyone else's as stored now (the
	// snapshot the engine saw may be older than another controller's
	// latest write).
	mine := func(e any) bool {
		m, ok := e.(map[string]any)
		return ok && ours[str(m["controllerName"])]
	}
	desiredList, _, _ := unstructured.NestedSlice(desired.Object, "status", "ancestors")
	have, _, _ := unstructured.NestedSlice(current.Object, "status", "ancestors")
	var want []any
	for _, e := range have {
		if !mine(e) {
			want = append(want, e)
		}
	}
	for _, e := range desiredList {
		if mine(e) {
			want = append(want, e)
		}
	}
	if len(want) > status.MaxAncestors {
		want = want[:status.MaxAncestors]
	}
	if equality.Semantic.DeepEqual(want, have) || len(want) == 0 && len(have) == 0 {
		return nil
	}
	next := current.DeepCopy()
	if err := unstructured.SetNestedSlice(next.Object, want, "status", "ancestors"); err != nil {
		return err
	}
	patch := client.MergeFromWithOptions(current, client.MergeFromWithOptimisticLock{})
	if err := c.client.Status().Patch(ctx, next, patch); err != nil {
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("patch status of %s %s: %w", current.GetKind(), client.ObjectKeyFromObject(current), err)
	}
	c.writes.WithLabelValues(current.GetKind()).Inc()
	return nil
}

// writeTarget merges Strata's latest fragment into the object as it is now
// and writes what differs: status through the status subresource,
// annotations through the object.
func (c *Controller) writeTarget(ctx context.Context, key targetKey) error {
	c.mu.Lock()
	frag, owned := c.desired[key], c.owned
	c.mu.Unlock()
	obj, err := c.newObject(key.GVK)
	if err != nil {
		return err
	}
	if err := c.cache.Get(ctx, key.NamespacedName, obj); err != nil {
		return err
	}
	current, err := toUnstructured(obj, key.GVK)
	if err != nil {
		return err
	}
	desired, changed := status.Merge(current, frag, owned)
	if !changed {
		return nil
	}
	patch := client.MergeFromWithOptions(current, client.MergeFromWithOptimisticLock{})
	if status.AnnotationsChanged(current, desired) {
		next := current.DeepCopy()
		next.SetAnnotations(desired.GetAnnotations())
		if err := c.client.Patch(ctx, next, patch); err != nil {
			return err
		}
		c.writes.WithLabelValues(key.GVK.Kind).Inc()
		return nil // the update event brings a fresh object for the status
	}
	if err := c.client.Status().Patch(ctx, desired, patch); err != nil {
		return err
	}
	c.writes.WithLabelValues(key.GVK.Kind).Inc()
	return nil
}

func (c *Controller) gvkOf(obj client.Object) schema.GroupVersionKind {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind != "" {
		return gvk
	}
	gvks, _, err := c.client.Scheme().ObjectKinds(obj)
	if err != nil || len(gvks) == 0 {
		return gvk
	}
	return gvks[0]
}

func (c *Controller) newObject(gvk schema.GroupVersionKind) (client.Object, error) {
	o, err := c.client.Scheme().New(gvk)
	if err != nil {
		return nil, err
	}
	return o.(client.Object), nil
}

func toUnstructured(obj client.Object, gvk schema.GroupVersionKind) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

func str(v any) string { s, _ := v.(string); return s }

func setOr(m map[string]bool, k string, v bool) map[string]bool {
	if m == nil {
		m = map[string]bool{}
	}
	m[k] = m[k] || v
	return m
}
