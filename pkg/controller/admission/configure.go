package admission

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/strata-dev/strata/pkg/engine"
)

// Configurer keeps the ValidatingWebhookConfiguration installed with
// Strata pointed at the policy kinds there are (they come and go with
// CRDs, so the rules cannot be written at install time), and sets the
// caBundle when Strata serves a self-signed certificate.
type Configurer struct {
	Client client.Client
	// Reader reads the configuration; nil means Client (the controller
	// passes the manager's API reader, not a cache).
	Reader client.Reader
	Mapper meta.RESTMapper
	// Name is the ValidatingWebhookConfiguration's; Webhook the name of
	// the webhook in it whose rules and caBundle are kept.
	Name, Webhook string
	// CABundle, when set, is written as the webhook's clientConfig
	// caBundle (a self-signed serving certificate); nil leaves it to
	// whoever sets it (cert-manager's CA injector).
	CABundle []byte
}

// Rules are the admission rules for the kinds of a result: one per API
// group, on the kinds' resources, all versions, sorted.
func Rules(res *engine.Result, mapper meta.RESTMapper) []admissionregistrationv1.RuleWithOperations {
	byGroup := map[string][]string{}
	for _, k := range res.PolicyKinds() {
		m, err := mapper.RESTMapping(schema.GroupKind{Group: k.Group, Kind: k.Kind})
		if err != nil {
			continue // not served (declared only): nothing to admit
		}
		if r := m.Resource.Resource; !slices.Contains(byGroup[k.Group], r) {
			byGroup[k.Group] = append(byGroup[k.Group], r)
		}
	}
	groups := slices.Sorted(maps.Keys(byGroup))
	scope := admissionregistrationv1.AllScopes
	out := make([]admissionregistrationv1.RuleWithOperations, 0, len(groups))
	for _, g := range groups {
		rs := byGroup[g]
		slices.Sort(rs)
		out = append(out, admissionregistrationv1.RuleWithOperations{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update, admissionregistrationv1.Delete},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{g}, APIVersions: []string{"*"}, Resources: rs, Scope: &scope},
		})
	}
	return out
}

// Sync writes rules (and the caBundle) into the webhook when they differ
// from what is stored; it writes nothing otherwise, so the steady state
// costs one read.
func (c *Configurer) Sync(ctx context.Context, rules []admissionregistrationv1.RuleWithOperations) error {
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	r := c.Reader
	if r == nil {
		r = c.Client
	}
	if err := r.Get(ctx, client.ObjectKey{Name: c.Name}, vwc); err != nil {
		return fmt.Errorf("webhook configuration %s: %w", c.Name, err)
	}
	i := slices.IndexFunc(vwc.Webhooks, func(w admissionregistrationv1.ValidatingWebhook) bool { return w.Name == c.Webhook })
	if i < 0 {
		return fmt.Errorf("webhook configuration %s: no webhook %s", c.Name, c.Webhook)
	}
	w := &vwc.Webhooks[i]
	changed := false
	if !equality.Semantic.DeepEqual(w.Rules, rules) && !(len(w.Rules) == 0 && len(rules) == 0) {
		w.Rules, changed = rules, true
	}
	if c.CABundle != nil && !bytes.Equal(w.ClientConfig.CABundle, c.CABundle) {
		w.ClientConfig.CABundle, changed = c.CABundle, true
	}
	if !changed {
		return nil
	}
	if err := c.Client.Update(ctx, vwc); err != nil {
		return fmt.Errorf("webhook configuration %s: %w", c.Name, err)
	}
	return nil
}
