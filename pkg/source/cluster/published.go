package cluster

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
)

// EffectivePolicyGVK is the kind of the records the policy controller
// publishes next to every affected target.
var EffectivePolicyGVK = strata.SchemeGroupVersion.WithKind(strata.EffectivePolicyKind)

// PublishedByLabel and PublishedByValue mark the EffectivePolicy objects
// the policy controller publishes (policies.ManagedByLabel): only those
// are read, not the blueprint controller's values objects.
const (
	PublishedByLabel = "strata.dev/managed-by"
	PublishedByValue = "strata"
)

// Records are the EffectivePolicy objects Reader.Published read.
type Records struct {
	Items []*strata.EffectivePolicy
	// Forbidden says the reader could list them nowhere it looked, which
	// is not the same as none being published.
	Forbidden bool
}

// Published reads the EffectivePolicy objects the policy controller
// publishes: in every namespace when allowed, else in each of namespaces
// (else r.Namespace) the reader may read; forbidden ones are skipped.
func (r *Reader) Published(ctx context.Context, namespaces ...string) (Records, error) {
	if !r.Present(EffectivePolicyGVK) {
		return Records{}, nil
	}
	sel := client.MatchingLabels{PublishedByLabel: PublishedByValue}
	var out []*strata.EffectivePolicy
	read := func(ns string) (denied bool, err error) {
		l := newList(EffectivePolicyGVK)
		d, err := r.listIn(ctx, EffectivePolicyGVK, l, ns, sel)
		if err != nil || d != nil {
			return d != nil, err
		}
		for i := range l.Items {
			ep := &strata.EffectivePolicy{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(l.Items[i].Object, ep); err != nil {
				return false, fmt.Errorf("EffectivePolicy %s/%s: %w", l.Items[i].GetNamespace(), l.Items[i].GetName(), err)
			}
			out = append(out, ep)
		}
		return false, nil
	}
	denied, err := read("")
	if meta.IsNoMatchError(err) {
		return Records{}, nil
	}
	if err != nil || !denied {
		return Records{Items: out}, err
	}
	if len(namespaces) == 0 && r.Namespace != "" {
		namespaces = []string{r.Namespace}
	}
	forbidden := true
	for _, ns := range namespaces {
		d, err := read(ns)
		if err != nil {
			return Records{}, err
		}
		forbidden = forbidden && d
	}
	return Records{Items: out, Forbidden: forbidden}, nil
}
