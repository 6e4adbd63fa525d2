package policies

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/hierarchy/typed"
	"github.com/strata-dev/strata/pkg/engine/outcome"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"github.com/strata-dev/strata/pkg/sink/effectivepolicy"
	"github.com/strata-dev/strata/pkg/sink/status"
	"github.com/strata-dev/strata/pkg/source/cluster"
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
	// Registerer receives the controller's metrics; nil means
	// controller-runtime's.
	Registerer prometheus.Registerer
	// Now is the clock for lastTransitionTime; nil means time.Now.
	Now func() time.Time
	// EffectivePolicies makes the controller keep an EffectivePolicy object
	// next to every namespaced effective target of a managed kind, for
	// readers who may not read the policies (docs/controller.md).
	EffectivePolicies bool
	// Recorder receives the Events on policies and targets whose standing
	// changes (docs/controller.md, "Events"); nil means the manager's.
	Recorder events.EventRecorder
	// EventQPS and EventBurst bound the Events Strata emits, all objects
	// together; Events beyond the budget are dropped and counted. Default
	// 10, 100.
	EventQPS   float64
	EventBurst int
	// OnResult is told each run's result (the admission webhook answers
	// against the newest one). It is called on the controller's goroutine
	// and must neither block nor modify the result.
	OnResult func(*engine.Result)
	// AccessRecheck is how often kinds the controller may not read are
	// asked about again (access.go). Default 30s.
	AccessRecheck time.Duration
}

// AddToScheme registers every type the controller reads or writes.
func AddToScheme(s *runtime.Scheme) error {
	if err := cluster.AddToScheme(s); err != nil {
		return err
	}
	if err := authorizationv1.AddToScheme(s); err != nil { // access.go's reviews
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
	reader *cluster.Reader
	log    logr.Logger

	metrics *metrics
	access  access

	world   workqueue.TypedRateLimitingInterface[string]
	targets workqueue.TypedRateLimitingInterface[targetKey]
	// limiter paces target writes: a token is taken just before a write
	// that changes something, never when a key is queued.
	limiter *rate.Limiter
	// eventLimiter bounds Events; Allow, never Wait.
	eventLimiter *rate.Limiter

	mu      sync.Mutex
	desired map[targetKey]*status.Fragment // per target; nil = not affected
	owned   status.Owned
	watched map[schema.GroupVersionKind]toolscache.ResourceEventHandlerRegistration

	// What changed since the last run: everything (full), or some
	// policies (dirty), routes and Gateways (moved); model is the last
	// run's, kinds its policy kinds.
	full    bool
	dirty   map[policyKey]bool
	moved   map[targetKey]bool
	epDirty bool
	model   *engine.Model
	kinds   map[schema.GroupKind]cluster.PolicyGVK
}

// policyKey names a policy that changed.
type policyKey struct {
	gk schema.GroupKind
	types.NamespacedName
}

// targetKey names an object whose status Strata may write.
type targetKey struct {
	GVK schema.GroupVersionKind
	types.NamespacedName
}

const worldKey = "world"

// paced is o with the default paces of target writes and Events, which
// ClientConfig sizes the client for.
func (o Options) paced() Options {
	o.TargetQPS, o.EventQPS = cmp.Or(o.TargetQPS, 20), cmp.Or(o.EventQPS, 10)
	return o
}

// New creates the controller and adds it to the manager. The manager's
// scheme must have AddToScheme applied.
func New(mgr manager.Manager, opts Options) (*Controller, error) {
	opts = opts.paced()
	opts.TargetBurst, opts.EventBurst = cmp.Or(opts.TargetBurst, 50), cmp.Or(opts.EventBurst, 100)
	opts.Debounce, opts.AccessRecheck = cmp.Or(opts.Debounce, 100*time.Millisecond), cmp.Or(opts.AccessRecheck, 30*time.Second)
	opts.Registerer = cmp.Or[prometheus.Registerer](opts.Registerer, crmetrics.Registry)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Recorder == nil {
		opts.Recorder = mgr.GetEventRecorder("strata-policy-controller")
	}
	c := &Controller{
		opts:    opts,
		client:  mgr.GetClient(),
		cache:   mgr.GetCache(),
		mapper:  mgr.GetRESTMapper(),
		log:     mgr.GetLogger().WithName("strata"),
		desired: map[targetKey]*status.Fragment{},
		watched: map[schema.GroupVersionKind]toolscache.ResourceEventHandlerRegistration{},
		dirty:   map[policyKey]bool{},
		moved:   map[targetKey]bool{},
		full:    true,
		access:  access{allowed: map[schema.GroupVersionKind]bool{}, denied: map[schema.GroupVersionKind]string{}},
	}
	m, err := newMetrics(opts.Registerer)
	if err != nil {
		return nil, err
	}
	c.metrics = m
	c.reader = &cluster.Reader{Client: c.cache, Present: c.present, Readable: c.readable}
	c.world = workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "strata-world"})
	c.targets = workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedItemExponentialFailureRateLimiter[targetKey](50*time.Millisecond, 30*time.Second),
		workqueue.TypedRateLimitingQueueConfig[targetKey]{Name: "strata-targets"})
	c.limiter = rate.NewLimiter(rate.Limit(opts.TargetQPS), opts.TargetBurst)
	c.eventLimiter = rate.NewLimiter(rate.Limit(opts.EventQPS), opts.EventBurst)
	if err := mgr.Add(c); err != nil {
		return nil, err
	}
	return c, nil
}

// Writes is the write counter, by kind (for tests and benchmarks).
func (c *Controller) Writes() *prometheus.CounterVec { return c.metrics.writes }

// Runs counts recomputations by scope ("full" or "kinds").
func (c *Controller) Runs() *prometheus.CounterVec { return c.metrics.runs }

// changed records what an event touched: a policy, a route or a Gateway
// (obj, or its tombstone), which the model takes as a change, or anything
// else (the rest of the topology, declarations), which needs a full run.
func (c *Controller) changed(gvk schema.GroupVersionKind, policy bool, obj any) {
	if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	o, named := obj.(client.Object)
	c.mu.Lock()
	switch {
	case gvk == effectivePolicyGVK:
		c.epDirty = true // only Strata's EffectivePolicy objects to check
	case policy && named:
		c.dirty[policyKey{gvk.GroupKind(), client.ObjectKeyFromObject(o)}] = true
	case named && (typed.Kinds[gvk.GroupKind()].RouteOf != nil || gvk.GroupKind() == hierarchy.GatewayKind):
		c.moved[targetKey{gvk, client.ObjectKeyFromObject(o)}] = true
	default:
		c.full = true
	}
	c.mu.Unlock()
	c.trigger()
}

// NeedLeaderElection makes only the leader run the controller.
func (c *Controller) NeedLeaderElection() bool { return true }

// Start runs the controller until ctx ends.
func (c *Controller) Start(ctx context.Context) error {
	defer c.world.ShutDown()
	defer c.targets.ShutDown()
	if err := c.watch(ctx, cluster.CRDGVK); err != nil {
		return err
	}
	c.trigger()
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); c.runWorld(ctx) }()
	go func() { defer wg.Done(); c.runTargets(ctx) }()
	go func() { defer wg.Done(); c.recheckAccess(ctx, c.opts.AccessRecheck) }()
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
			c.metrics.reconcileErrors.Inc()
			if apierrors.IsConflict(err) {
				c.log.V(1).Info("write conflict; retrying on a fresher cache", "error", err.Error())
			} else {
				c.log.Error(err, "recompute failed; retrying")
			}
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

// reconcile is one recomputation (docs/controller.md, "What a change
// recomputes"): when only policies changed, the model takes them
// (engine.Model.Apply) and the statuses its delta names are compared;
// else a full run comparing every policy and target.
func (c *Controller) reconcile(ctx context.Context) (err error) {
	c.mu.Lock()
	full, dirty, moved, model, epDirty := c.full || c.model == nil, c.dirty, c.moved, c.model, c.epDirty
	c.full, c.dirty, c.moved, c.epDirty = false, map[policyKey]bool{}, map[targetKey]bool{}, false
	c.mu.Unlock()
	defer func() {
		if err != nil { // retry with a full run: the scope is lost
			c.mu.Lock()
			c.full = true
			c.mu.Unlock()
		}
	}()
	if !full {
		for k := range dirty {
			if _, known := c.kinds[k.gk]; !known {
				full = true
			}
		}
	}
	if full {
		defer c.observe(c.metrics.reconcileTime, "full")()
		return c.reconcileAll(ctx)
	}
	if len(dirty)+len(moved) == 0 {
		if epDirty && c.opts.EffectivePolicies {
			return c.writeEffectivePolicies(ctx, model.Result())
		}
		return nil
	}
	defer c.observe(c.metrics.reconcileTime, "kinds")()
	return c.reconcileChanges(ctx, model, dirty, moved)
}

// observe starts a timer; the returned function records the seconds
// since in h under label.
func (c *Controller) observe(h *prometheus.HistogramVec, label string) func() {
	start := time.Now()
	return func() { h.WithLabelValues(label).Observe(time.Since(start).Seconds()) }
}

// reconcileAll reads the whole cache, runs the engine and compares
// everything.
func (c *Controller) reconcileAll(ctx context.Context) error {
	if err := c.ensureTopologyWatches(ctx); err != nil {
		return err
	}
	if !c.isWatched(cluster.PolicyKindGVK) && c.present(cluster.PolicyKindGVK) {
		if err := c.watch(ctx, cluster.PolicyKindGVK); err != nil {
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
	if err := c.writeWatched(ctx, kinds); err != nil {
		return err
	}
	done := c.observe(c.metrics.engineDuration, "full")
	model, err := engine.NewModel(snap, engine.Options{ControllerName: c.opts.ControllerName, Lenient: true})
	done()
	if err != nil {
		return err
	}
	byGK := map[schema.GroupKind]cluster.PolicyGVK{}
	for _, k := range kinds {
		byGK[k.GroupKind()] = k
	}
	return c.writeAll(ctx, model, byGK)
}

// writeAll records a model of a full run and compares every policy and
// every object that can carry Strata's conditions, so that conditions
// are removed from objects no longer affected.
func (c *Controller) writeAll(ctx context.Context, model *engine.Model, kinds map[schema.GroupKind]cluster.PolicyGVK) error {
	res := model.Result()
	c.ran("full", model, kinds)
	for _, e := range res.Errors {
		c.log.Info("skipped", "reason", e.Error())
	}
	var keys []targetKey
	for _, n := range res.Graph.Nodes {
		if obj, ok := n.Object.(client.Object); ok && n.Ref.Section == "" {
			keys = append(keys, targetKey{GVK: c.gvkOf(obj), NamespacedName: client.ObjectKeyFromObject(obj)})
		}
	}
	return c.write(ctx, res, nil, keys, true)
}

// ran records the model of a run of scope over the policy kinds kinds.
func (c *Controller) ran(scope string, model *engine.Model, kinds map[schema.GroupKind]cluster.PolicyGVK) {
	res := model.Result()
	c.metrics.runs.WithLabelValues(scope).Inc()
	c.metrics.setPolicies(res)
	c.mu.Lock()
	c.model, c.kinds = model, kinds
	c.mu.Unlock()
	if c.opts.OnResult != nil {
		c.opts.OnResult(res)
	}
}

// reconcileChanges gives the model the policies, routes and Gateways
// that changed, as the cache holds them now, and compares the statuses
// its delta names: those of the policies it rendered again and of the
// objects whose targets it computed again.
func (c *Controller) reconcileChanges(ctx context.Context, model *engine.Model, dirty map[policyKey]bool, moved map[targetKey]bool) error {
	type keyed struct {
		kind  string
		key   types.NamespacedName
		value snapshot.Change
	}
	var batch []keyed
	get := func(gk schema.GroupKind, key types.NamespacedName, obj client.Object) error {
		err := c.cache.Get(ctx, key, obj)
		switch {
		case apierrors.IsNotFound(err):
			obj.SetNamespace(key.Namespace)
			obj.SetName(key.Name)
			batch = append(batch, keyed{gk.Kind, key, snapshot.Change{Object: obj, Deleted: true}})
		case err != nil:
			return fmt.Errorf("get %s %s: %w", gk.Kind, key, err)
		default:
			batch = append(batch, keyed{gk.Kind, key, snapshot.Change{Object: obj}})
		}
		return nil
	}
	for k := range dirty {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(c.kinds[k.gk].GroupVersion().WithKind(k.gk.Kind))
		if err := get(k.gk, k.NamespacedName, u); err != nil {
			return err
		}
	}
	for k := range moved {
		if err := get(k.GVK.GroupKind(), k.NamespacedName, typed.Kinds[k.GVK.GroupKind()].New().(client.Object)); err != nil {
			return err
		}
	}
	// In a fixed order, so that a batch gives one answer.
	slices.SortFunc(batch, func(a, b keyed) int {
		return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.key.Namespace, b.key.Namespace), cmp.Compare(a.key.Name, b.key.Name))
	})
	changes := make([]snapshot.Change, len(batch))
	for i, k := range batch {
		changes[i] = k.value
	}
	done := c.observe(c.metrics.engineDuration, "kinds")
	next, delta, err := model.Apply(changes...)
	done()
	if err != nil {
		return err
	}
	if delta.Full {
		return c.writeAll(ctx, next, c.kinds) // the model ran in full: anything may have changed
	}
	c.ran("kinds", next, c.kinds)
	res := next.Result()
	// A policy that starts or stops reporting a problem changes which
	// conditions fit the room of the objects it reaches (status.Fit):
	// those are compared too.
	objects := delta.Objects
	for _, p := range problemsChanged(model, next, delta) {
		objects = append(objects, p...)
	}
	slices.Sort(objects)
	objects = slices.Compact(objects)
	var keys []targetKey
	for _, n := range objects {
		if obj, ok := res.Graph.Node(n).Object.(client.Object); ok {
			keys = append(keys, targetKey{GVK: c.gvkOf(obj), NamespacedName: client.ObjectKeyFromObject(obj)})
		}
	}
	reached := *delta
	reached.Objects = objects
	return c.write(ctx, res, &reached, keys, false)
}

// problemsChanged lists, for each policy the delta names whose status
// reports a problem (status.Problem) after the change and not before, or
// before and not after, the objects it reaches (engine.Model.Reach), in
// the model it is in.
func problemsChanged(before, after *engine.Model, delta *engine.Delta) [][]topology.NodeID {
	type key struct {
		kind *policykind.Kind // one pointer across a model's results
		id   string
	}
	want := map[key]bool{}
	for _, ps := range [][]*policykind.Policy{delta.Policies, delta.Removed} {
		for _, p := range ps {
			want[key{p.Kind, p.ID()}] = true
		}
	}
	// The policies of want in m, and whether each reports a problem.
	policies := func(m *engine.Model) (map[key]*policykind.Policy, map[key]bool) {
		ps, bad := map[key]*policykind.Policy{}, map[key]bool{}
		for _, st := range m.Result().Outcome.Policies {
			k := key{st.Policy.Kind, st.Policy.ID()}
			if want[k] {
				ps[k] = st.Policy
				bad[k] = slices.ContainsFunc(st.Ancestors, func(a outcome.Ancestor) bool { return status.Problem(a.Conditions) })
			}
		}
		return ps, bad
	}
	was, wasBad := policies(before)
	is, isBad := policies(after)
	var out [][]topology.NodeID
	for k := range want {
		if wasBad[k] == isBad[k] {
			continue
		}
		// Where it was and where it is.
		if p := was[k]; p != nil {
			out = append(out, before.Reach(p))
		}
		if p := is[k]; p != nil {
			out = append(out, after.Reach(p))
		}
	}
	return out
}

// write sends what differs: status of the policies (those delta
// rendered again; nil: all), and queues the given target objects whose
// Strata part differs. With all, the desired state of targets not listed
// is dropped.
func (c *Controller) write(ctx context.Context, res *engine.Result, delta *engine.Delta, keys []targetKey, all bool) error {
	now := metav1.NewTime(c.opts.Now().UTC().Truncate(time.Second))
	var errs []error
	owned := status.OwnedBy(res.PolicyKinds())
	limits := map[schema.GroupKind]int{}
	for _, k := range res.PolicyKinds() {
		limits[k.Key()] = status.Limit(k)
	}
	var policies []status.PolicyStatus
	var frags []*status.Fragment
	if delta == nil {
		policies, frags = status.Ancestors(res, now), status.Fragments(res, now)
	} else {
		policies, frags = status.AncestorsOf(res, delta.Policies, now), status.FragmentsOf(res, delta.Objects, now)
	}
	for _, ps := range policies {
		if err := c.writePolicy(ctx, ps, owned.Controllers, limits[ps.Policy.Kind.Key()], now); err != nil {
			errs = append(errs, err)
		}
	}
	fragments := map[targetKey]*status.Fragment{}
	for _, f := range frags {
		fragments[targetKey{GVK: f.GVK, NamespacedName: types.NamespacedName{Namespace: f.Namespace, Name: f.Name}}] = f
	}
	c.mu.Lock()
	// New maps, never written again: writeTarget reads them unlocked.
	c.owned.Types = union(c.owned.Types, owned.Types)
	c.owned.Controllers = union(c.owned.Controllers, owned.Controllers)
	if all {
		c.desired = map[targetKey]*status.Fragment{}
	}
	ownedNow := c.owned
	c.mu.Unlock()
	for _, key := range keys {
		obj, err := c.newObject(key.GVK)
		if err != nil {
			return err
		}
		if err := c.cache.Get(ctx, key.NamespacedName, obj); err != nil {
			if client.IgnoreNotFound(err) != nil {
				errs = append(errs, err)
			}
			continue
		}
		current, err := toUnstructured(obj, key.GVK)
		if err != nil {
			return err
		}
		frag := fragments[key]
		c.mu.Lock()
		c.desired[key] = frag
		c.mu.Unlock()
		if _, changed := status.Merge(current, frag, ownedNow); changed {
			c.targets.Add(key)
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
// what is stored, with optimistic locking; a conflict is retried with a
// full run on a fresher cache. limit is the most entries the CRD accepts
// (status.Limit): when other controllers have taken more room than the
// snapshot showed, the write is retried rather than cutting Strata's
// entries, which could drop those that report problems.
func (c *Controller) writePolicy(ctx context.Context, ps status.PolicyStatus, ours map[string]bool, limit int, now metav1.Time) error {
	current := &unstructured.Unstructured{}
	current.SetGroupVersionKind(ps.Policy.Object.GroupVersionKind())
	if err := c.cache.Get(ctx, client.ObjectKeyFromObject(ps.Policy.Object), current); err != nil {
		return client.IgnoreNotFound(err)
	}
	// Strata's entries from the engine, everyone else's as stored now.
	have, _, _ := unstructured.NestedSlice(current.Object, "status", "ancestors")
	isOurs := func(name string) bool { return ours[name] }
	want, theirs := status.MergeAncestors(have, ps.Ancestors, isOurs, now)
	if limit <= 0 {
		limit = status.MaxAncestors
	}
	if len(want) > limit {
		if len(want) > theirs {
			return fmt.Errorf("status of %s %s: other controllers' %d entries leave room for %d of Strata's %d in status.ancestors; retrying on a fresher cache",
				current.GetKind(), client.ObjectKeyFromObject(current), theirs, max(limit-theirs, 0), len(want)-theirs)
		}
		want = want[:limit]
	}
	if equality.Semantic.DeepEqual(want, have) || len(want) == 0 && len(have) == 0 {
		return nil
	}
	next := current.DeepCopy()
	if err := unstructured.SetNestedSlice(next.Object, want, "status", "ancestors"); err != nil {
		return err
	}
	wrote, err := c.patch(ctx, current, next, "status")
	if apierrors.IsNotFound(err) {
		return nil // deleted meanwhile; its delete event recomputes
	} else if err != nil {
		return fmt.Errorf("patch status of %s %s: %w", current.GetKind(), client.ObjectKeyFromObject(current), err)
	} else if !wrote {
		return nil
	}
	c.emit(next, changedStandings(ancestorStandings(have, isOurs), ancestorStandings(want, isOurs)))
	return nil
}

// writeTarget merges Strata's latest fragment into the object as it is now
// and writes what differs: annotations through the object, then status.
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
	before := targetStandings(current, owned)
	if status.AnnotationsChanged(current, desired) {
		if err := c.limiter.Wait(ctx); err != nil {
			return err
		}
		next := current.DeepCopy()
		next.SetAnnotations(desired.GetAnnotations())
		if wrote, err := c.patch(ctx, current, next, "annotations"); !wrote {
			return err
		}
		// Continue from the object the API server returned, which carries
		// the new resourceVersion, for the status write if one is needed.
		current = next
		if desired, changed = status.Merge(current, frag, owned); !changed {
			c.emit(next, changedStandings(before, targetStandings(next, owned)))
			return nil
		}
	}
	if err := c.limiter.Wait(ctx); err != nil {
		return err
	}
	if wrote, err := c.patch(ctx, current, desired, "status"); !wrote {
		return err
	}
	c.emit(desired, changedStandings(before, targetStandings(desired, owned)))
	return nil
}

// patch writes next over current with optimistic locking: its status
// when what is "status", else its annotations. It reports whether it
// wrote; a write the API server refuses as invalid fails the same way
// again, so it is dropped (refused) until the next change.
func (c *Controller) patch(ctx context.Context, current, next *unstructured.Unstructured, what string) (bool, error) {
	kind, p := current.GetKind(), client.MergeFromWithOptions(current, client.MergeFromWithOptimisticLock{})
	done := c.observe(c.metrics.writeDuration, kind)
	var err error
	if what == "status" {
		err = c.client.Status().Patch(ctx, next, p)
	} else {
		err = c.client.Patch(ctx, next, p)
	}
	done()
	if err != nil {
		if c.refused(err, kind, client.ObjectKeyFromObject(current), what) {
			return false, nil
		}
		return false, err
	}
	c.metrics.writes.WithLabelValues(kind).Inc()
	return true, nil
}

// emit records an Event on obj for each standing a successful write
// changed, with the engine's message; Events beyond Options.EventQPS are
// dropped and counted.
func (c *Controller) emit(obj *unstructured.Unstructured, changes []standing) {
	for _, s := range changes {
		if !c.eventLimiter.Allow() {
			c.metrics.eventsDropped.Inc()
			c.log.V(1).Info("event dropped: over --event-qps", "kind", obj.GetKind(), "object", client.ObjectKeyFromObject(obj), "reason", s.Reason)
			continue
		}
		note := s.note()
		if len(note) > maxEventNote {
			note = note[:maxEventNote-3] + "..."
		}
		c.opts.Recorder.Eventf(obj, nil, s.eventType(), s.Reason, s.Type, "%s", note)
	}
}

// maxEventNote is the longest note the API server accepts on an
// events.k8s.io/v1 Event (1 kB).
const maxEventNote = 1024

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

// union is a new set holding a's members and b's (a member true in
// either is true).
func union(a, b map[string]bool) map[string]bool {
	out := maps.Clone(a)
	if out == nil {
		out = make(map[string]bool, len(b))
	}
	for k, v := range b {
		out[k] = out[k] || v
	}
	return out
}
