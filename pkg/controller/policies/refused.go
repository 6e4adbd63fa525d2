package policies

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// refused reports whether err is the API server refusing a write as
// invalid (422: the object as written fails its schema, "Too many: 12:
// must have at most 8 items"), and if so counts it
// (strata_status_writes_refused_total, and strata_reconcile_errors_total:
// the object's status is not what Strata computed) and logs it with the
// object and the API server's message. Such a write fails the same way
// however often it is sent: the caller drops it instead of retrying, and
// the next change that makes Strata compute the object again writes it
// again (docs/status.md, "Room"; docs/controller.md, "Metrics").
func (c *Controller) refused(err error, kind string, key client.ObjectKey, what string) bool {
	if !apierrors.IsInvalid(err) {
		return false
	}
	c.metrics.writesRefused.WithLabelValues(kind).Inc()
	c.metrics.reconcileErrors.Inc()
	c.log.Error(err, "the API server refused the write as invalid; not retried before the next change",
		"kind", kind, "object", key, "write", what)
	return true
}
