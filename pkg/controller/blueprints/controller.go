package blueprints

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1b1 "sigs.k8s.io/gateway-api/apis/v1beta1"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
	"github.com/strata-dev/strata/pkg/blueprint"
	"github.com/strata-dev/strata/pkg/blueprint/render"
)

// Defaults of Options.
const (
	DefaultControllerName = blueprint.DefaultControllerName
	DefaultNamespace      = blueprint.DefaultNamespace
	DefaultFieldManager   = "strata-blueprints"
)

// Options configure the controller. The zero value is usable.
type Options struct {
	// ControllerName is the GatewayClass spec.controllerName the controller
	// serves and writes status entries as. Default
	// strata.dev/blueprint-controller.
	ControllerName string
	// Namespace is the controller's own namespace: GatewayClassConfigs
	// there are global (002). Default strata-system.
	Namespace string
	// FieldManager is the server-side apply field manager of rendered
	// objects. Default strata-blueprints.
	FieldManager string
	// NoValuesObjects turns off the EffectivePolicy object that shows each
	// parent's merged values and who set them (blueprint.ValuesObject).
	NoValuesObjects bool
	// MaxConcurrentReconciles is the number of workers. Default 4.
	MaxConcurrentReconciles int
	// Registerer receives the metrics; nil means controller-runtime's.
	Registerer prometheus.Registerer
	// Now is the clock for lastTransitionTime; nil means time.Now.
	Now func() time.Time
}

// AddToScheme registers every typed kind the controller reads or writes.
// Rendered objects are handled unstructured and need no registration.
func AddToScheme(s *runtime.Scheme) error {
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, gwv1.Install, gwv1b1.Install, bpv1.AddToScheme} {
		if err := add(s); err != nil {
			return err
		}
	}
	return nil
}

// key names the object one reconcile is about.
type key struct {
	Kind      string
	Namespace string
	Name      string
}

func (k key) nn() types.NamespacedName {
	return types.NamespacedName{Namespace: k.Namespace, Name: k.Name}
}

// The kinds of key, each with its reconcile (Reconcile).
const (
	kindClass       = "GatewayClass"
	kindBlueprint   = bpv1.BlueprintKind
	kindGateway     = "Gateway"
	kindRoute       = "HTTPRoute"
	kindClassConfig = bpv1.ClassConfigKind
	kindConfig      = bpv1.ConfigKind
)

// Controller is Strata's blueprint controller. Only the leader of a
// replica set reconciles (controller-runtime's default for controllers).
type Controller struct {
	opts     Options
	client   client.Client
	reader   client.Reader // the API server, for the rare read the caches may not have yet
	cache    cache.Cache   // the manager's: Gateway API kinds, Namespaces, blueprints, configs
	children cache.Cache   // rendered objects only (label-selected), see childCache
	mapper   meta.RESTMapper
	log      logr.Logger
	ctrl     controller.TypedController[key]

	renders *prometheus.CounterVec
	writes  *prometheus.CounterVec

	mu       sync.Mutex
	watched  map[schema.GroupVersionKind]bool // rendered kinds watched on the child cache
	applied  map[childID]appliedState         // what was last applied of each child (unchanged)
	known    map[key]blueprint.Inventory      // the last inventory read of each parent (orphaned)
	refusals refusals                         // renders refused because of a config's value (config.go)
}

// New creates the controller and adds it to the manager. The manager's
// scheme must have AddToScheme applied.
func New(mgr manager.Manager, opts Options) (*Controller, error) {
	opts.ControllerName, opts.Namespace = cmp.Or(opts.ControllerName, DefaultControllerName), cmp.Or(opts.Namespace, DefaultNamespace)
	opts.FieldManager, opts.MaxConcurrentReconciles = cmp.Or(opts.FieldManager, DefaultFieldManager), cmp.Or(opts.MaxConcurrentReconciles, 4)
	opts.Registerer = cmp.Or[prometheus.Registerer](opts.Registerer, crmetrics.Registry)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	c := &Controller{
		opts:    opts,
		client:  mgr.GetClient(),
		reader:  mgr.GetAPIReader(),
		cache:   mgr.GetCache(),
		mapper:  mgr.GetRESTMapper(),
		log:     mgr.GetLogger().WithName("blueprints"),
		watched: map[schema.GroupVersionKind]bool{},
		applied: map[childID]appliedState{},
		known:   map[key]blueprint.Inventory{},
		renders: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "strata_blueprint_renders_total", Help: "Blueprint renders, by parent kind and result (applied, invalid, refused)."}, []string{"kind", "result"}),
		writes:  prometheus.NewCounterVec(prometheus.CounterOpts{Name: "strata_blueprint_writes_total", Help: "Writes to the API server by the blueprint controller, by kind of the object written and operation (apply, delete, status, inventory)."}, []string{"kind", "op"}),
	}
	for _, col := range []prometheus.Collector{c.renders, c.writes} {
		if err := opts.Registerer.Register(col); err != nil {
			return nil, fmt.Errorf("register metrics: %w", err)
		}
	}

	// Rendered objects are watched through a cache of their own holding
	// only objects with Strata's parent label.
	sel := labels.NewSelector()
	req, err := labels.NewRequirement(render.LabelParentKind, selection.Exists, nil)
	if err != nil {
		return nil, err
	}
	children, err := cache.New(mgr.GetConfig(), cache.Options{
		HTTPClient:           mgr.GetHTTPClient(),
		Scheme:               mgr.GetScheme(),
		Mapper:               mgr.GetRESTMapper(),
		DefaultLabelSelector: sel.Add(*req),
	})
	if err != nil {
		return nil, fmt.Errorf("child cache: %w", err)
	}
	c.children = children
	if err := mgr.Add(childCache{children}); err != nil {
		return nil, err
	}

	if err := c.index(context.Background(), mgr); err != nil {
		return nil, err
	}
	c.ctrl, err = controller.NewTyped[key]("strata-blueprints", mgr, controller.TypedOptions[key]{
		Reconciler:              reconcile.TypedFunc[key](c.reconcile),
		MaxConcurrentReconciles: opts.MaxConcurrentReconciles,
	})
	if err != nil {
		return nil, err
	}
	if err := c.watch(); err != nil {
		return nil, err
	}
	if err := c.watchRefusals(); err != nil {
		return nil, err
	}
	return c, nil
}

// childCache makes the manager start the child cache with its own caches,
// before the controllers (manager.Manager puts runnables with a GetCache
// method in that group).
type childCache struct{ cache.Cache }

func (c childCache) GetCache() cache.Cache { return c.Cache }

// reconcile dispatches a key to the reconcile of its kind. A write
// conflict means the cache was behind: the key is retried shortly,
// without an error log.
func (c *Controller) reconcile(ctx context.Context, k key) (reconcile.Result, error) {
	var (
		res reconcile.Result
		err error
	)
	switch k.Kind {
	case kindClass:
		err = c.reconcileClass(ctx, k.Name)
	case kindBlueprint:
		err = c.reconcileBlueprint(ctx, k.Name)
	case kindGateway:
		res, err = c.reconcileGateway(ctx, k)
	case kindRoute:
		res, err = c.reconcileRoute(ctx, k)
	case kindClassConfig, kindConfig:
		err = c.reconcileConfig(ctx, k)
	default:
		return reconcile.Result{}, fmt.Errorf("unknown key kind %q", k.Kind)
	}
	if apierrors.IsConflict(err) {
		c.log.V(1).Info("write conflict; retrying on a fresher cache", "kind", k.Kind, "object", k.nn().String())
		return reconcile.Result{RequeueAfter: 100 * time.Millisecond}, nil
	}
	return res, err
}

// now is the lastTransitionTime of a condition that changes status now,
// to the second (what the API server stores).
func (c *Controller) now() time.Time { return c.opts.Now().UTC().Truncate(time.Second) }

// kinds are what a render knows of the kinds it may produce: their scope
// from the manager's REST mapper, their Go types from client-go's scheme.
func (c *Controller) kinds() render.Kinds {
	return render.Kinds{Scope: render.MapperScope(c.mapper), Types: clientgoscheme.Scheme}
}

// servedKinds are the kinds the controller watches from the start; their
// CRDs must be installed before it starts.
var servedKinds = []schema.GroupKind{
	{Group: gwv1.GroupName, Kind: "GatewayClass"},
	{Group: gwv1.GroupName, Kind: "Gateway"},
	{Group: gwv1.GroupName, Kind: "HTTPRoute"},
	{Group: gwv1.GroupName, Kind: "ReferenceGrant"},
	{Group: bpv1.Group, Kind: bpv1.BlueprintKind},
	{Group: bpv1.Group, Kind: bpv1.ClassConfigKind},
	{Group: bpv1.Group, Kind: bpv1.ConfigKind},
}

// Served checks that the cluster serves every kind the controller
// watches from the start, so a caller can run without the blueprint
// controller when they are not installed.
func Served(mapper meta.RESTMapper) error {
	var missing []string
	for _, gk := range servedKinds {
		if _, err := mapper.RESTMapping(gk); err != nil {
			missing = append(missing, gk.String())
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the cluster does not serve %v; install their CRDs", missing)
	}
	return nil
}
