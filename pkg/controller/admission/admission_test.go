package admission_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/go-logr/logr"
	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/strata-dev/strata/internal/enginetest"
	strataadmission "github.com/strata-dev/strata/pkg/controller/admission"
)

const parable = "../../../examples/parable"

// request is an admission request for a RetryPolicy in baker.
func request(op admissionv1.Operation, object, old string) admission.Request {
	raw := func(s string) runtime.RawExtension {
		if s == "" {
			return runtime.RawExtension{}
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			panic(err)
		}
		return runtime.RawExtension{Raw: []byte(s)}
	}
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Operation: op,
		Kind:      metav1.GroupVersionKind{Group: "policies.cupcakes.example", Version: "v1", Kind: "RetryPolicy"},
		Namespace: "baker", Name: "r",
		Object: raw(object), OldObject: raw(old),
	}}
}

const (
	onMissingRoute = `{"apiVersion":"policies.cupcakes.example/v1","kind":"RetryPolicy","metadata":{"name":"r","namespace":"baker","creationTimestamp":"2026-06-01T00:00:00Z"},
 "spec":{"targetRefs":[{"group":"gateway.networking.k8s.io","kind":"HTTPRoute","name":"nope"}],"defaults":{"attempts":2}}}`
	onBaker = `{"apiVersion":"policies.cupcakes.example/v1","kind":"RetryPolicy","metadata":{"name":"r","namespace":"baker"},
 "spec":{"targetRefs":[{"group":"gateway.networking.k8s.io","kind":"HTTPRoute","name":"baker"}],"defaults":{"attempts":2}}}`
)

// TestHandler: the webhook's answers, as the API server receives them:
// warnings and no denial by default; a denial only for the classes
// chosen; no answer (admitted, no warning) before the first run, past the
// budget, or for what does not decode.
func TestHandler(t *testing.T) {
	res := enginetest.Run(t, nil, parable)
	for _, tc := range []struct {
		name     string
		deny     []string
		noResult bool
		expired  bool
		req      admission.Request
		allowed  bool
		warnings []string
		late     int64
	}{
		{name: "warned, admitted", req: request(admissionv1.Create, onMissingRoute, ""), allowed: true,
			warnings: []string{"strata: RetryPolicy baker/r targets nothing: spec.targetRefs[0]: HTTPRoute baker/nope not found"}},
		{name: "denied for a chosen class", deny: []string{"targetnotfound"}, req: request(admissionv1.Create, onMissingRoute, ""), allowed: false,
			warnings: []string{"strata: RetryPolicy baker/r targets nothing: spec.targetRefs[0]: HTTPRoute baker/nope not found"}},
		{name: "other classes still admitted", deny: []string{"invalid"}, req: request(admissionv1.Create, onMissingRoute, ""), allowed: true,
			warnings: []string{"strata: RetryPolicy baker/r targets nothing: spec.targetRefs[0]: HTTPRoute baker/nope not found"}},
		{name: "no creationTimestamp: stamped now, the newest", req: request(admissionv1.Create, onBaker, ""), allowed: true,
			warnings: []string{"strata: RetryPolicy baker/r affects 1 target in 1 namespace", "strata: RetryPolicy baker/r overrides field /attempts of baker/baker-retries in 1 context"}},
		{name: "before the first run", noResult: true, req: request(admissionv1.Create, onMissingRoute, ""), allowed: true, late: 1},
		{name: "past the budget", expired: true, req: request(admissionv1.Create, onMissingRoute, ""), allowed: true, late: 1},
		{name: "undecodable", req: request(admissionv1.Create, "", ""), allowed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			latest := &strataadmission.Latest{}
			if !tc.noResult {
				latest.Store(res)
			}
			h, err := strataadmission.NewHandler(latest, strataadmission.Options{Deny: tc.deny}, logr.Discard())
			if err != nil {
				t.Fatal(err)
			}
			ctx := t.Context()
			if tc.expired {
				c, cancel := context.WithCancel(ctx)
				cancel()
				ctx = c
			}
			if tc.name == "undecodable" {
				tc.req.Object.Raw = []byte("{not json")
			}
			resp := h.Handle(ctx, tc.req)
			if resp.Allowed != tc.allowed {
				t.Errorf("allowed %v, want %v (%v)", resp.Allowed, tc.allowed, resp.Result)
			}
			if d := cmp.Diff(tc.warnings, []string(resp.Warnings)); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
			if got := h.Late.Load(); got != tc.late {
				t.Errorf("late %d, want %d", got, tc.late)
			}
		})
	}
	if _, err := strataadmission.NewHandler(&strataadmission.Latest{}, strataadmission.Options{Deny: []string{"nope"}}, logr.Discard()); err == nil {
		t.Error("deny class nope accepted")
	}
}
