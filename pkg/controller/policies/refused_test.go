package policies

import (
	"errors"
	"fmt"
	"testing"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestRefused: only a write the API server refuses as invalid (422) is
// dropped, and it counts in strata_status_writes_refused_total{kind} and
// strata_reconcile_errors_total; conflicts and other errors are retried
// as before and counted where they were.
func TestRefused(t *testing.T) {
	gk := schema.GroupKind{Group: "gateway.networking.k8s.io", Kind: "Gateway"}
	tooMany := apierrors.NewInvalid(gk, "g1", field.ErrorList{field.TooMany(field.NewPath("status", "conditions"), 12, 8)})
	for _, c := range []struct {
		name string
		err  error
		want bool
	}{
		{"invalid", tooMany, true},
		{"invalid, wrapped", fmt.Errorf("patch status: %w", tooMany), true},
		{"conflict", apierrors.NewConflict(schema.GroupResource{Group: gk.Group, Resource: "gateways"}, "g1", errors.New("changed")), false},
		{"other", errors.New("connection refused"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := newMetrics(prometheus.NewRegistry())
			if err != nil {
				t.Fatal(err)
			}
			ctrl := &Controller{metrics: m, log: logr.Discard()}
			if got := ctrl.refused(c.err, "Gateway", client.ObjectKey{Namespace: "ns", Name: "g1"}, "status"); got != c.want {
				t.Fatalf("refused = %v, want %v", got, c.want)
			}
			want := 0.0
			if c.want {
				want = 1
			}
			if got := testutil.ToFloat64(m.writesRefused.WithLabelValues("Gateway")); got != want {
				t.Errorf("strata_status_writes_refused_total{kind=Gateway} = %v, want %v", got, want)
			}
			if got := testutil.ToFloat64(m.reconcileErrors); got != want {
				t.Errorf("strata_reconcile_errors_total = %v, want %v", got, want)
			}
		})
	}
}
