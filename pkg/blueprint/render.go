package blueprint

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
)

// Labels Strata puts on every rendered object, so the controller can find
// (and prune) the children of a parent and `kubectl get -l` can too.
const (
	// LabelParentKind is Gateway or HTTPRoute.
	LabelParentKind = "blueprints.strata.dev/parent-kind"
	// LabelParentNamespace and LabelParentName name the parent.
	LabelParentNamespace = "blueprints.strata.dev/parent-namespace"
	LabelParentName      = "blueprints.strata.dev/parent-name"
	// LabelGateway names the Gateway an HTTPRoute's children were rendered
	// for (a route is rendered once per parent Gateway).
	LabelGateway = "blueprints.strata.dev/gateway"
	// LabelTemplate is the resource template that rendered the object.
	LabelTemplate = "blueprints.strata.dev/template"
	// LabelBlueprint is the blueprint.
	LabelBlueprint = "blueprints.strata.dev/blueprint"
)

// Scope tells whether a kind is namespaced. known is false for a kind the
// caller cannot resolve (no CRD, no discovery entry): rendering refuses it.
type Scope func(gk schema.GroupKind) (namespaced, known bool)

// Input is everything one render reads. Callers fill it from files
// (`strata render`) or from the cluster cache (the controller).
type Input struct {
	Blueprint *bpv1.GatewayClassBlueprint
	Class     *gwv1.GatewayClass
	Gateway   *gwv1.Gateway
	// Route is the HTTPRoute being rendered with the blueprint's
	// httpRouteTemplate; nil renders the gatewayTemplate for Gateway.
	Route *gwv1.HTTPRoute
	// Routes are the HTTPRoutes attached to the Gateway (accepted by at
	// least one listener), sorted by namespace/name.
	Routes []*gwv1.HTTPRoute
	// Namespace is the parent's Namespace object, when known.
	Namespace *corev1.Namespace
	// Values are the merged values (Merge), read as .Values.
	Values map[string]any
	// Resources are the current objects of this parent's previous render,
	// by resource template name (nil offline or on a first render): what
	// .Resources reads, so one template (or the status template) can read
	// another's status.
	Resources map[string][]*unstructured.Unstructured
}

// Output is what one render produced.
type Output struct {
	// Objects are the rendered objects, by template name then document
	// order, each labelled with its parent and template and placed in the
	// parent's namespace when namespaced.
	Objects []*unstructured.Unstructured
	// Templates maps each object (by index in Objects) to its template
	// name; .Resources is keyed by it.
	Templates []string
	// Status is the rendered status template as a map (nil when the
	// template has none).
	Status map[string]any
	// Addresses are status.addresses read from Status, for a Gateway.
	Addresses []gwv1.GatewayStatusAddress
}

// Error is a render or tenant-safety failure. It names the blueprint, the
// template, the line and, for a missing value, the value path, so a
// condition carrying it tells the user where to look.
type Error struct {
	Blueprint string
	// Template is e.g. gatewayTemplate.resourceTemplates[deployment] or
	// gatewayTemplate.status.
	Template string
	Line     int    // 0 when unknown
	Path     string // e.g. .Values.replicas, when the error is about one
	// Reason is the condition reason: InvalidParameters for template
	// errors, NotAllowed for tenant-safety refusals.
	Reason string
	Err    error
}

// Error prints `blueprint B: T line L: msg (value path P)`.
func (e *Error) Error() string {
	s := "GatewayClassBlueprint " + e.Blueprint + ": " + e.Template
	if e.Line > 0 {
		s += fmt.Sprintf(" line %d", e.Line)
	}
	s += ": " + e.Err.Error()
	if e.Path != "" {
		s += " (value path " + e.Path + ")"
	}
	return s
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Reasons of Error.
const (
	ReasonInvalidParameters = "InvalidParameters"
	ReasonNotAllowed        = "NotAllowed"
)

// Render renders the blueprint for in's parent: every resource template,
// then the status template with .Resources. Nothing is returned when any
// template fails or any object is refused, so a caller never applies half
// a set.
func Render(in Input, scope Scope) (*Output, error) {
	return nil, errors.New("not implemented yet")
}

// Check parses every template of a blueprint without executing it, for
// the GatewayClass's Accepted condition.
func Check(bp *bpv1.GatewayClassBlueprint) error {
	return errors.New("not implemented yet")
}
