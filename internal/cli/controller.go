package cli

import (
	"cmp"
	"crypto/tls"
	goflag "flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"go.uber.org/zap/zapcore"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/strata-dev/strata/pkg/controller/admission"
	"github.com/strata-dev/strata/pkg/controller/blueprints"
	"github.com/strata-dev/strata/pkg/controller/policies"
)

// newController is `strata controller`: the policy controller, with kubectl's connection flags.
func newController(s Streams) *cobra.Command {
	kube := genericclioptions.NewConfigFlags(true)
	var (
		opts                    policies.Options
		runBlueprints           bool
		bpOpts                  blueprints.Options
		metrics                 metricsFlags
		probeAddr               string
		leaderElect             bool
		leaderElectionNamespace string
		hook                    webhookFlags
		zapOpts                 = zap.Options{}
		clientQPS               float32
		clientBurst             int
	)
	c := &cobra.Command{
		Use:   "controller",
		Short: "Run the policy controller against a cluster: policy status and <Kind>Affected conditions; and the blueprint controller",
		Long: `Runs Strata's policy controller. It discovers policy kinds from PolicyKind
objects and CRDs labelled gateway.networking.k8s.io/policy, computes the
effective policies of the cluster and writes, for the kinds it manages,
policy status.ancestors and <Kind>Affected conditions on targets. It writes
only what differs from what is stored. See docs/controller.md.

With --blueprints (the default) it also runs the blueprint controller: for
every GatewayClass whose controllerName is --blueprint-controller-name and
whose parametersRef names a GatewayClassBlueprint, it renders the blueprint
for each Gateway of the class and each HTTPRoute attached to one, applies
the result with server-side apply, and writes their status and that of the
GatewayClassConfigs and GatewayConfigs. See docs/blueprints.md.`,
		Example: `  strata controller --leader-elect`,
		Args:    arity(0, 0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := controllerRESTConfig(kube)
			if err != nil {
				return err
			}
			if cfg, err = policies.ClientConfig(cfg, clientQPS, clientBurst, opts); err != nil {
				return err
			}
			metricsOpts, err := metrics.options()
			if err != nil {
				return err
			}
			// controller-runtime's global logger is set only once the command runs.
			logger := zap.New(zap.UseFlagOptions(&zapOpts), zap.WriteTo(zapcore.Lock(zapcore.AddSync(s.Err))))
			ctrl.SetLogger(logger)
			scheme := runtime.NewScheme()
			for _, add := range []func(*runtime.Scheme) error{policies.AddToScheme, blueprints.AddToScheme, admission.AddToScheme} {
				if err := add(scheme); err != nil {
					return err
				}
			}
			hookServer, hookConf, err := hook.server()
			if err != nil {
				return err
			}
			mgr, err := ctrl.NewManager(cfg, ctrl.Options{
				Logger:                 logger,
				WebhookServer:          hookServer,
				Scheme:                 scheme,
				Metrics:                metricsOpts,
				HealthProbeBindAddress: probeAddr,
				LeaderElection:         leaderElect,
				LeaderElectionID:       "strata-policy-controller",
				// The pod's namespace: $POD_NAMESPACE, else the service account's namespace file.
				LeaderElectionNamespace: cmp.Or(leaderElectionNamespace, os.Getenv("POD_NAMESPACE")),
				// Release the lease on shutdown so a new leader takes over at once (graceful shutdown).
				LeaderElectionReleaseOnCancel: true,
			})
			if err != nil {
				return fmt.Errorf("manager: %w", err)
			}
			if hook.enabled {
				hookConf.Client, hookConf.Reader, hookConf.Mapper = mgr.GetClient(), mgr.GetAPIReader(), mgr.GetRESTMapper()
				setup, err := admission.New(mgr, hook.options, hookConf)
				if err != nil {
					return err
				}
				opts.OnResult = setup.Observe
			}
			if _, err := policies.New(mgr, opts); err != nil {
				return err
			}
			if runBlueprints {
				// Without its CRDs the blueprint controller would never sync: leave it out.
				if err := blueprints.Served(mgr.GetRESTMapper()); err != nil {
					logger.Info("blueprint controller not started; restart once the CRDs are installed", "reason", err.Error())
				} else if _, err := blueprints.New(mgr, bpOpts); err != nil {
					return err
				}
			}
			for _, add := range []func(string, healthz.Checker) error{mgr.AddHealthzCheck, mgr.AddReadyzCheck} {
				if err := add("ping", healthz.Ping); err != nil {
					return err
				}
			}
			return mgr.Start(ctrl.SetupSignalHandler())
		},
	}
	kube.AddFlags(c.Flags())
	f := c.Flags()
	f.StringVar(&opts.ControllerName, "controller-name", "", "controllerName for policy kinds that declare none; its domain prefixes <Kind>Affected conditions (default strata.dev/policy-controller)")
	f.BoolVar(&opts.EffectivePolicies, "effective-policies", true, "keep an EffectivePolicy object next to every effective target, readable with the namespace's view role: what affects it, for readers who may not read the policies (--effective-policies=false turns it off)")
	f.Float64Var(&opts.TargetQPS, "target-qps", 20, "rate limit of writes of target conditions (fanout)")
	f.IntVar(&opts.TargetBurst, "target-burst", 50, "burst of writes of target conditions")
	f.Float64Var(&opts.EventQPS, "event-qps", 10, "rate limit of Events on policies and targets whose standing changes; Events beyond it are dropped and counted")
	f.IntVar(&opts.EventBurst, "event-burst", 100, "burst of Events on policies and targets")
	f.Float32Var(&clientQPS, "kube-api-qps", policies.DefaultClientQPS, "requests per second to the API server, every kind and verb together (client-go's limiter); at least --target-qps plus --event-qps (docs/install.md, \"Client rates\")")
	f.IntVar(&clientBurst, "kube-api-burst", policies.DefaultClientBurst, "burst of requests to the API server above --kube-api-qps")
	f.BoolVar(&runBlueprints, "blueprints", true, "run the blueprint controller (GatewayClassBlueprints, docs/blueprints.md)")
	f.StringVar(&bpOpts.ControllerName, "blueprint-controller-name", blueprints.DefaultControllerName, "GatewayClass controllerName the blueprint controller serves")
	f.BoolVar(&bpOpts.NoValuesObjects, "no-blueprint-values-objects", false, "do not apply, next to each rendered Gateway and HTTPRoute, the EffectivePolicy <name>.blueprint-values showing its merged values and who set them")
	f.StringVar(&bpOpts.Namespace, "controller-namespace", controllerNamespace(), "the controller's namespace: GatewayClassConfigs there are global (default: $POD_NAMESPACE, else "+blueprints.DefaultNamespace+")")
	f.StringVar(&metrics.addr, "metrics-bind-address", "", "address of the Prometheus metrics endpoint (default :8443 with --metrics-secure, :8080 without; 0 disables)")
	f.BoolVar(&metrics.secure, "metrics-secure", true, "serve metrics over HTTPS to clients the API server authenticates (TokenReview) and authorizes (SubjectAccessReview: get on the non-resource URL /metrics); --metrics-secure=false serves plain HTTP to anyone")
	f.StringVar(&metrics.certDir, "metrics-cert-dir", "", "folder of the metrics server's certificate and key (cert-manager, or a Secret mounted there), reloaded when they change (a folder without them is refused); without one, a self-signed certificate made at start")
	f.StringVar(&metrics.certName, "metrics-cert-name", "tls.crt", "file name of the metrics server's certificate in --metrics-cert-dir")
	f.StringVar(&metrics.keyName, "metrics-cert-key", "tls.key", "file name of the metrics server's private key in --metrics-cert-dir")
	f.BoolVar(&metrics.http2, "metrics-enable-http2", false, "allow HTTP/2 on the HTTPS metrics endpoint; off by default against HTTP/2 Stream Cancellation and Rapid Reset (CVE-2023-44487, CVE-2023-39325)")
	f.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "address of /healthz and /readyz")
	f.BoolVar(&leaderElect, "leader-elect", false, "elect a leader so that only one replica writes")
	f.StringVar(&leaderElectionNamespace, "leader-election-namespace", "", "namespace of the leader election lease (default: the pod's namespace)")
	hook.addFlags(f)
	zfs := goflag.NewFlagSet("zap", goflag.ContinueOnError)
	zapOpts.BindFlags(zfs)
	f.AddGoFlagSet(zfs)
	return c
}

// metricsFlags are kubebuilder's metrics server flags: HTTPS with authn/authz by default.
type metricsFlags struct {
	addr                       string
	secure, http2              bool
	certDir, certName, keyName string
}

// options are controller-runtime's metrics server options for the flags.
func (m metricsFlags) options() (metricsserver.Options, error) {
	if !m.secure {
		return metricsserver.Options{BindAddress: cmp.Or(m.addr, ":8080")}, nil
	}
	if m.certDir != "" {
		for _, f := range []string{m.certName, m.keyName} {
			if _, err := os.Stat(filepath.Join(m.certDir, f)); err != nil {
				return metricsserver.Options{}, fmt.Errorf("--metrics-cert-dir: %w (set --metrics-cert-name and --metrics-cert-key to the Secret's keys)", err)
			}
		}
	}
	o := metricsserver.Options{
		BindAddress:    cmp.Or(m.addr, ":8443"),
		SecureServing:  true,
		FilterProvider: filters.WithAuthenticationAndAuthorization,
		CertDir:        m.certDir,
		CertName:       m.certName,
		KeyName:        m.keyName,
	}
	if !m.http2 {
		o.TLSOpts = []func(*tls.Config){func(c *tls.Config) { c.NextProtos = []string{"http/1.1"} }}
	}
	return o, nil
}

// controllerNamespace is the namespace the controller runs in, from $POD_NAMESPACE.
func controllerNamespace() string {
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	return blueprints.DefaultNamespace
}
