package policies_test

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"github.com/google/go-cmp/cmp"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/strata-dev/strata/pkg/controller/admission"
	"github.com/strata-dev/strata/pkg/controller/policies"
)

// warnings collects the Warning headers the API server returns.
type warnings struct {
	mu   sync.Mutex
	seen []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, text)
}

// take returns the warnings seen since the last take.
func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.seen
	w.seen = nil
	return out
}

// TestWebhookWarnings is the admission webhook on a real API server
// (issue "admission warnings"): the controller keeps the webhook
// configuration's rules on the policy kinds there are and its caBundle on
// a self-signed certificate; a policy written with the client comes back
// with the warnings `kubectl apply` prints; with the webhook down, writes
// go through (failurePolicy Ignore).
func TestWebhookWarnings(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "examples", "gep-713", "listenerset")
	c := newCluster(t)
	if err := admission.AddToScheme(c.scheme); err != nil { // as strata controller does
		t.Fatal(err)
	}
	ctx := t.Context()
	c.apply(objects(t, filepath.Join(dir, "kind.yaml"), filepath.Join(dir, "scenario.yaml"))...)

	// The configuration as config/webhook installs it: no rules yet.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("https://127.0.0.1:%d%s", port, admission.Path)
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	vwc.Name = "strata-policy-warnings"
	vwc.Webhooks = []admissionregistrationv1.ValidatingWebhook{{
		Name:                    "policies.strata.dev",
		ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: &url},
		FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
		SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"},
		TimeoutSeconds:          ptr.To[int32](5),
	}}
	if err := c.client.Create(ctx, vwc); err != nil {
		t.Fatal(err)
	}

	certDir := t.TempDir()
	bundle, err := admission.SelfSigned(certDir, []string{"127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := manager.New(c.env.Config, manager.Options{
		Scheme:                 c.scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Logger:                 testr.NewWithOptions(t, testr.Options{Verbosity: 0}),
		WebhookServer:          webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: port, CertDir: certDir}),
	})
	if err != nil {
		t.Fatal(err)
	}
	setup, err := admission.New(mgr, admission.Options{Budget: 5 * time.Second}, &admission.Configurer{
		Client: mgr.GetClient(), Reader: mgr.GetAPIReader(), Mapper: mgr.GetRESTMapper(),
		Name: vwc.Name, Webhook: "policies.strata.dev", CABundle: bundle,
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := policies.New(mgr, policies.Options{OnResult: setup.Observe, Debounce: 50 * time.Millisecond, TargetQPS: 200, TargetBurst: 200}); err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	stop := func() {
		if cancel != nil {
			cancel()
			<-done
			cancel = nil
		}
	}
	t.Cleanup(stop)

	// A client that keeps the warnings.
	seen := &warnings{}
	cfg := rest.CopyConfig(c.env.Config)
	cfg.WarningHandler = seen
	cl, err := client.New(cfg, client.Options{Scheme: c.scheme})
	if err != nil {
		t.Fatal(err)
	}
	policy := func(name, target, light string) *unstructured.Unstructured {
		u := decode(t, fmt.Sprintf(`
apiVersion: policies.controller.io/v1
kind: ColorPolicy
metadata: {name: %s, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: ListenerSet, name: %s}]
  colors: {light: %s}
`, name, target, light))
		return u[0]
	}

	// The rules follow the kinds: ColorPolicy's resource is admitted.
	c.eventually("webhook rules on colorpolicies", func() error {
		got := &admissionregistrationv1.ValidatingWebhookConfiguration{}
		if err := c.client.Get(ctx, client.ObjectKey{Name: vwc.Name}, got); err != nil {
			return err
		}
		w := got.Webhooks[0]
		i := slices.IndexFunc(w.Rules, func(r admissionregistrationv1.RuleWithOperations) bool {
			return slices.Equal(r.APIGroups, []string{"policies.controller.io"})
		})
		if i < 0 || !slices.Equal(w.Rules[i].Resources, []string{"colorpolicies"}) || len(w.ClientConfig.CABundle) == 0 {
			return fmt.Errorf("rules %+v, caBundle %d bytes", w.Rules, len(w.ClientConfig.CABundle))
		}
		return nil
	})

	// A second policy on ListenerSet team-a: older p-ls wins there.
	const prefix = "strata: ColorPolicy infra/p-new "
	c.eventually("warnings on a dry-run create", func() error {
		seen.take()
		if err := cl.Create(ctx, policy("p-new", "team-a", "blue"), client.DryRunAll); err != nil {
			return err
		}
		for _, w := range seen.take() {
			if strings.HasPrefix(w, prefix) {
				return nil
			}
		}
		return fmt.Errorf("no warning from strata")
	})
	if err := cl.Create(ctx, policy("p-new", "team-a", "blue")); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{prefix + "overridden everywhere: overridden by infra/p-ls in its only context"}, seen.take()); diff != "" {
		t.Errorf("create: warnings (-want +got):\n%s", diff)
	}

	// Deleting p-ls: the answer is against the run that has p-new, so
	// wait for it (a dry-run delete says what a delete would do).
	del := policy("p-ls", "team-a", "pink")
	const delWarning = "strata: ColorPolicy infra/p-ls removes the policy in force on 1 target: Service team-a/s-a"
	c.eventually("the run with p-new", func() error {
		seen.take()
		if err := cl.Delete(ctx, del, client.DryRunAll); err != nil {
			return err
		}
		got := seen.take()
		if !slices.Contains(got, delWarning) {
			return fmt.Errorf("warnings %q", got)
		}
		return nil
	})

	// The webhook down: writes go through, without warnings.
	stop()
	if err := cl.Create(ctx, policy("p-later", "team-a", "green")); err != nil {
		t.Fatalf("create with the webhook down: %v", err)
	}
	for _, w := range seen.take() {
		if strings.HasPrefix(w, "strata:") {
			t.Errorf("a warning with the webhook down: %q", w)
		}
	}
}
