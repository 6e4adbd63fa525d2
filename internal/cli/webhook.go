package cli

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/strata-dev/strata/pkg/controller/admission"
	"github.com/strata-dev/strata/pkg/query"
)

// webhookFlags are `strata controller`'s admission webhook flags (docs/admission.md).
type webhookFlags struct {
	enabled       bool
	port          int
	certDir       string
	service       string
	configuration string
	name          string
	options       admission.Options
}

func (h *webhookFlags) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&h.enabled, "webhook", false, "serve the validating admission webhook that answers policy writes with warnings (docs/admission.md); it never denies unless --webhook-deny says so")
	f.IntVar(&h.port, "webhook-port", webhook.DefaultPort, "port of the admission webhook server")
	f.StringVar(&h.certDir, "webhook-cert-dir", "", "directory holding tls.crt and tls.key for the webhook (cert-manager); empty: a self-signed certificate for --webhook-service, whose CA Strata writes into the webhook configuration")
	f.StringVar(&h.service, "webhook-service", "", "NAMESPACE/NAME of the webhook's Service, the self-signed certificate's host (default: <controller namespace>/strata-webhook)")
	f.StringVar(&h.configuration, "webhook-configuration", "strata-policy-warnings", "the ValidatingWebhookConfiguration whose rules Strata keeps on the policy kinds there are")
	f.StringVar(&h.name, "webhook-name", "policies.strata.dev", "the webhook in --webhook-configuration")
	f.StringSliceVar(&h.options.Deny, "webhook-deny", nil, "deny creates and updates of policies with these findings ("+strings.Join(query.FindingClasses, ", ")+"); default: never deny")
	f.DurationVar(&h.options.Budget, "webhook-budget", 100*time.Millisecond, "time one admission analysis may take; past it the write is admitted without warnings")
}

// server is the webhook server for the manager (nil when off) and the configuration's configurer.
func (h *webhookFlags) server() (webhook.Server, *admission.Configurer, error) {
	if !h.enabled {
		return nil, nil, nil
	}
	if err := h.check(); err != nil {
		return nil, nil, err
	}
	conf := &admission.Configurer{Name: h.configuration, Webhook: h.name}
	dir := h.certDir
	if dir == "" {
		ns, name := controllerNamespace(), "strata-webhook"
		if h.service != "" {
			var ok bool
			if ns, name, ok = strings.Cut(h.service, "/"); !ok || ns == "" || name == "" {
				return nil, nil, fmt.Errorf("--webhook-service %q: want NAMESPACE/NAME", h.service)
			}
		}
		tmp, err := os.MkdirTemp("", "strata-webhook-")
		if err != nil {
			return nil, nil, fmt.Errorf("webhook certificate: %w", err)
		}
		svc := name + "." + ns + ".svc"
		bundle, err := admission.SelfSigned(tmp, []string{svc, svc + ".cluster.local"})
		if err != nil {
			return nil, nil, err
		}
		dir, conf.CABundle = tmp, bundle
	}
	return webhook.NewServer(webhook.Options{Port: h.port, CertDir: dir}), conf, nil
}

// check refuses unknown deny classes before anything starts.
func (h *webhookFlags) check() error {
	for _, c := range h.options.Deny {
		if !slices.Contains(query.FindingClasses, c) {
			return fmt.Errorf("--webhook-deny %q: want one of %s", c, strings.Join(query.FindingClasses, ", "))
		}
	}
	return nil
}
