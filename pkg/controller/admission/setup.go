package admission

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/go-logr/logr"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/strata-dev/strata/pkg/engine"
)

// Setup are the webhook's parts in a manager.
type Setup struct {
	// Handler answers the requests (registered at Path on the manager's
	// webhook server).
	Handler *Handler
	latest  *Latest
	conf    *Configurer
	queue   workqueue.TypedRateLimitingInterface[string]
	log     logr.Logger
}

// AddToScheme registers the types the webhook's configurer reads and
// writes (its ValidatingWebhookConfiguration).
func AddToScheme(s *runtime.Scheme) error { return admissionregistrationv1.AddToScheme(s) }

// New registers the webhook on mgr's webhook server and, when conf is
// not nil, a runnable that keeps the webhook configuration's rules on the
// policy kinds of the newest result (the manager's scheme must then have
// AddToScheme applied). Pass Observe as the policy controller's OnResult.
func New(mgr manager.Manager, opts Options, conf *Configurer) (*Setup, error) {
	if gvk := admissionregistrationv1.SchemeGroupVersion.WithKind("ValidatingWebhookConfiguration"); conf != nil && !mgr.GetScheme().Recognizes(gvk) {
		return nil, fmt.Errorf("admission webhook: the manager's scheme lacks %s (admission.AddToScheme)", gvk)
	}
	log := mgr.GetLogger().WithName("admission")
	latest := &Latest{}
	h, err := NewHandler(latest, opts, log)
	if err != nil {
		return nil, err
	}
	mgr.GetWebhookServer().Register(Path, h.Webhook())
	s := &Setup{Handler: h, latest: latest, conf: conf, log: log}
	if conf != nil {
		s.queue = workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "strata-webhook-configuration"})
		if err := mgr.Add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Observe takes a new engine result: requests are answered against it,
// and the webhook configuration's rules follow its kinds.
func (s *Setup) Observe(res *engine.Result) {
	s.latest.Store(res)
	if s.queue != nil {
		s.queue.Add("rules")
	}
}

// NeedLeaderElection: only the leader has results (the policy
// controller runs there), so only it writes the configuration.
func (s *Setup) NeedLeaderElection() bool { return true }

// Start keeps the webhook configuration in step until ctx ends.
func (s *Setup) Start(ctx context.Context) error {
	go func() { <-ctx.Done(); s.queue.ShutDown() }()
	for {
		key, quit := s.queue.Get()
		if quit {
			return nil
		}
		res := s.latest.Load()
		if err := s.conf.Sync(ctx, Rules(res, s.conf.Mapper)); err != nil && ctx.Err() == nil {
			s.log.Error(err, "keep the webhook configuration's rules; retrying")
			s.queue.AddRateLimited(key)
		} else {
			s.queue.Forget(key)
		}
		s.queue.Done(key)
	}
}

// SelfSigned writes a self-signed serving certificate for hosts (DNS
// names or IP addresses) into dir as tls.crt and tls.key, where the
// webhook server reads them, and returns the CA bundle the webhook
// configuration must carry: the bootstrap for clusters without
// cert-manager (docs/admission.md).
func SelfSigned(dir string, hosts []string) ([]byte, error) {
	if len(hosts) == 0 {
		return nil, fmt.Errorf("self-signed certificate: no host")
	}
	var ips []net.IP
	var dns []string
	for _, h := range hosts[1:] {
		if ip := net.ParseIP(h); ip != nil {
			ips = append(ips, ip)
		} else {
			dns = append(dns, h)
		}
	}
	certPEM, keyPEM, err := cert.GenerateSelfSignedCertKey(hosts[0], ips, dns)
	if err == nil {
		err = os.MkdirAll(dir, 0o700)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "tls.crt"), certPEM, 0o600)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "tls.key"), keyPEM, 0o600)
	}
	if err != nil {
		return nil, fmt.Errorf("self-signed certificate: %w", err)
	}
	return certPEM, nil
}
