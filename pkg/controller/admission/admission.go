// Package admission is Strata's validating admission webhook for policies:
// it never denies by default, and answers every create, update or delete
// of a policy with warnings from query.Admit, a dry engine run of the
// change against the policy controller's newest result, which `kubectl
// apply` prints (GEP-713 "Discoverability"; docs/admission.md).
package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/sink/status"
)

// Path is where the webhook server serves the handler.
const Path = "/validate-policies"

// Options are the webhook's knobs.
type Options struct {
	// Budget bounds the analysis of one request; past it the request is
	// admitted without warnings (and counted), never denied. Default
	// 100ms.
	Budget time.Duration
	// Deny lists finding classes (query.FindingClasses) for which a
	// create or update is denied instead of warned about; empty (the
	// default) never denies.
	Deny []string
	// Now stamps a created policy that has no creationTimestamp yet (it
	// decides ties); nil means time.Now.
	Now func() time.Time
}

// Latest holds the newest engine result; the policy controller's
// OnResult stores into it.
type Latest struct{ p atomic.Pointer[engine.Result] }

// Store makes res the newest result.
func (l *Latest) Store(res *engine.Result) { l.p.Store(res) }

// Load is the newest result, nil before the first run.
func (l *Latest) Load() *engine.Result { return l.p.Load() }

// Handler answers admission requests for policies.
type Handler struct {
	opts   Options
	latest *Latest
	log    logr.Logger
	// Late counts requests answered without analysis because the budget
	// ran out or no result existed yet (for tests and metrics).
	Late atomic.Int64
}

// NewHandler returns a handler answering against latest.
func NewHandler(latest *Latest, opts Options, log logr.Logger) (*Handler, error) {
	if opts.Budget <= 0 {
		opts.Budget = 100 * time.Millisecond
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	for _, c := range opts.Deny {
		if !slices.Contains(query.FindingClasses, c) {
			return nil, fmt.Errorf("admission: deny class %q: want one of %s", c, strings.Join(query.FindingClasses, ", "))
		}
	}
	return &Handler{opts: opts, latest: latest, log: log}, nil
}

// Handle implements admission.Handler.
func (h *Handler) Handle(ctx context.Context, req admission.Request) admission.Response {
	ch, err := h.change(req)
	if err != nil {
		// An object the API server sent that does not decode is not
		// Strata's to refuse: the API server validated it.
		h.log.V(1).Info("admission: undecodable request", "error", err.Error())
		return admission.Allowed("")
	}
	res := h.latest.Load()
	if res == nil {
		h.Late.Add(1)
		return admission.Allowed("")
	}
	a, ok := h.analyse(ctx, res, ch)
	if !ok {
		h.Late.Add(1)
		return admission.Allowed("")
	}
	if a == nil || a.Policy.Kind == "" {
		return admission.Allowed("")
	}
	warnings := make([]string, len(a.Warnings))
	what := a.Policy.Kind + " " + a.Policy.ID()
	for i, w := range a.Warnings {
		warnings[i] = "strata: " + what + " " + w
	}
	if ch.Operation != query.OpDelete {
		for _, f := range a.Findings {
			if slices.Contains(h.opts.Deny, f.Class) {
				return admission.Denied(fmt.Sprintf("strata: %s is %s: %s", what, f.Class, f.Message)).WithWarnings(warnings...)
			}
		}
	}
	return admission.Allowed("").WithWarnings(warnings...)
}

// change reads the request's objects.
func (h *Handler) change(req admission.Request) (query.Change, error) {
	ch := query.Change{Operation: string(req.Operation)}
	var err error
	if ch.Object, err = decode(req.Object.Raw); err != nil {
		return ch, fmt.Errorf("object: %w", err)
	}
	if ch.Old, err = decode(req.OldObject.Raw); err != nil {
		return ch, fmt.Errorf("oldObject: %w", err)
	}
	if ch.Operation == query.OpDelete && ch.Old == nil {
		// Older API servers send no oldObject on delete: the request
		// still names the object.
		ch.Old = &unstructured.Unstructured{}
		ch.Old.SetGroupVersionKind(schema.GroupVersionKind{Group: req.Kind.Group, Version: req.Kind.Version, Kind: req.Kind.Kind})
		ch.Old.SetNamespace(req.Namespace)
		ch.Old.SetName(req.Name)
	}
	if ch.Object != nil && ch.Object.GetCreationTimestamp().Time.IsZero() {
		// A create is stamped by the API server before validating
		// admission; a dry run of an old server may not be.
		ch.Object.SetCreationTimestamp(metav1.NewTime(h.opts.Now()))
	}
	return ch, nil
}

func decode(raw []byte) (*unstructured.Unstructured, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(raw, &u.Object); err != nil {
		return nil, err
	}
	return u, nil
}

// analyse runs query.Admit within the budget. The run is not
// interruptible; past the budget its answer is dropped and the goroutine
// ends with the run (one kind's recomputation).
func (h *Handler) analyse(ctx context.Context, res *engine.Result, ch query.Change) (*query.Admission, bool) {
	ctx, cancel := context.WithTimeout(ctx, h.opts.Budget)
	defer cancel()
	if ctx.Err() != nil {
		return nil, false // the request is over already
	}
	type answer struct {
		a   *query.Admission
		err error
	}
	done := make(chan answer, 1)
	go func() {
		a, err := query.Admit(res, ch, query.AdmitOptions{Limit: status.Limit})
		done <- answer{a, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			h.log.V(1).Info("admission: no analysis", "error", r.err.Error())
			return nil, true
		}
		return r.a, true
	case <-ctx.Done():
		return nil, false
	}
}

// Webhook is the handler as controller-runtime's webhook server serves it.
func (h *Handler) Webhook() http.Handler {
	return &admission.Webhook{Handler: h}
}
