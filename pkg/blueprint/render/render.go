package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/template"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	bpv1 "github.com/strata-dev/strata/pkg/apis/blueprints/v1alpha1"
	"github.com/strata-dev/strata/pkg/blueprint/values"
)

// Labels Strata puts on every rendered object, so the controller can find
// (and prune) the children of a parent and `kubectl get -l` can too.
const (
	LabelParentKind      = "blueprints.strata.dev/parent-kind" // Gateway or HTTPRoute
	LabelParentNamespace = "blueprints.strata.dev/parent-namespace"
	LabelParentName      = "blueprints.strata.dev/parent-name"
	LabelGateway         = "blueprints.strata.dev/gateway"    // the Gateway an HTTPRoute's children were rendered for
	LabelTemplate        = "blueprints.strata.dev/template"   // the resource template that rendered the object
	LabelBlueprint       = "blueprints.strata.dev/blueprint"  // the blueprint
	LabelController      = "blueprints.strata.dev/controller" // the blueprint controller's name (LabelValue)
)

// Scope tells whether a kind is namespaced. known is false for a kind the
// caller cannot resolve (no CRD, no discovery entry): rendering refuses it.
type Scope func(gk schema.GroupKind) (namespaced, known bool)

// Kinds is what a render knows of the kinds a template may produce, given
// by the caller so this package links no client: MapperScope in the
// controller, StaticScope offline, and client-go's scheme for Types.
type Kinds struct {
	// Scope says whether a kind is namespaced; nil knows no kind, so
	// every object is refused.
	Scope Scope
	// Types makes an empty Go value of a kind: an object of a kind it
	// knows is decoded into it strictly (checkTyped). Nil checks none.
	Types runtime.ObjectCreater
}

// Input is everything one render reads. Callers fill it from files
// (`strata render`) or from the cluster cache (the controller).
type Input struct {
	// ControllerName is the blueprint controller's name (the GatewayClass
	// controllerName it serves), put on every object as LabelController.
	ControllerName string
	Blueprint      *bpv1.GatewayClassBlueprint
	Class          *gwv1.GatewayClass
	Gateway        *gwv1.Gateway
	// Route is the HTTPRoute being rendered with the blueprint's
	// httpRouteTemplate; nil renders the gatewayTemplate for Gateway.
	Route *gwv1.HTTPRoute
	// Routes are the HTTPRoutes attached to the Gateway (accepted by at
	// least one listener), sorted by namespace/name.
	Routes []*gwv1.HTTPRoute
	// Namespace is the parent's Namespace object, when known.
	Namespace *corev1.Namespace
	// Values are the merged values (values.Merge), read as .Values.
	Values map[string]any
	// Sources are the merged values' leaves with who set them
	// (values.Values.Leaves), to name the config behind a refusal.
	Sources []values.Leaf
	// Resources are the current objects of this parent's previous render,
	// by resource template name: what .Resources reads.
	Resources map[string][]*unstructured.Unstructured
}

// Output is what one render produced.
type Output struct {
	// Objects are the rendered objects, by template then document order.
	Objects []*unstructured.Unstructured
	// Templates maps each object (by index in Objects) to its template
	// name; .Resources is keyed by it.
	Templates []string
	// Status is the rendered status template (nil when there is none).
	Status map[string]any
	// Addresses are status.addresses read from Status, for a Gateway
	// render.
	Addresses []gwv1.GatewayStatusAddress
}

// Error is a render or tenant-safety failure, naming the blueprint, the
// template, the line and the value path and its source when known.
type Error struct {
	Blueprint string
	// Template is e.g. gatewayTemplate.resourceTemplates[deployment] or
	// gatewayTemplate.status.
	Template string
	Line     int    // 0 when unknown
	Path     string // e.g. .Values.replicas, when the error is about one
	// Source is the config that set the value at Path, when one did.
	Source *values.Source
	// Reason is InvalidParameters for template errors, NotAllowed for
	// tenant-safety refusals.
	Reason string
	Err    error
}

// Error prints `GatewayClassBlueprint B: T line L: msg (value path P)`.
func (e *Error) Error() string {
	s := "GatewayClassBlueprint"
	if e.Blueprint != "" {
		s += " " + e.Blueprint
	}
	if e.Template != "" {
		s += ": " + e.Template
	}
	if e.Line > 0 {
		s += fmt.Sprintf(" line %d", e.Line)
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	switch {
	case e.Path != "" && e.Source != nil:
		s += " (value path " + e.Path + ", set by " + e.Source.String() + ")"
	case e.Path != "":
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

// Render renders the blueprint for in's parent: every resource template
// of spec.gatewayTemplate (in.Route nil) or spec.httpRouteTemplate, then
// the status template with .Resources (docs/blueprints.md lists the
// context and the functions). Nothing is returned when any template fails
// or any object is refused, so a caller never applies half a set.
//
// Values fill only the YAML node their action sits in (holes.go): a value
// never adds an object, a key or a list item the template did not write.
// Every object is then checked (admit): list kinds, scope (a namespaced
// object lands in the parent's namespace; a cluster-scoped kind must be in
// spec.clusterScopedKinds; an unknown kind is refused), metadata, strict
// decoding of the kinds kinds.Types knows, Pod Security; a refusal caused
// by a value names the config that set it (Error.Source and Path). Every
// object gets in.Labels() and LabelTemplate.
//
// Every error is an *Error. The same input renders the same bytes. A
// render is bounded in steps, depth, output and work (steps.go, cost.go).
func Render(in Input, kinds Kinds) (*Output, error) {
	return render(in, kinds, &budget{})
}

func render(in Input, kinds Kinds, b *budget) (*Output, error) {
	bp := in.Blueprint
	if bp == nil {
		return nil, &Error{Reason: ReasonInvalidParameters, Err: errors.New("no blueprint to render")}
	}
	if in.Gateway == nil {
		return nil, &Error{Blueprint: bp.Name, Reason: ReasonInvalidParameters, Err: errors.New("no Gateway to render for")}
	}
	field, tmpl := "gatewayTemplate", bp.Spec.GatewayTemplate
	parentNS := in.Gateway.Namespace
	if in.Route != nil {
		field, tmpl = "httpRouteTemplate", bp.Spec.HTTPRouteTemplate
		parentNS = in.Route.Namespace
	}
	out := &Output{}
	if tmpl == nil {
		return out, nil
	}
	h := &holes{}
	parsed, err := parseTemplate(bp.Name, field, tmpl, b, h)
	if err != nil {
		return nil, err
	}
	ctx, err := contextOf(in)
	if err != nil {
		return nil, &Error{Blueprint: bp.Name, Template: field, Reason: ReasonInvalidParameters, Err: err}
	}
	r := &renderer{
		bp:       bp,
		kinds:    kinds,
		parentNS: parentNS,
		labels:   in.Labels(),
		sources:  in.Sources,
		cluster:  map[schema.GroupKind]bool{},
		seen:     map[objectKey]string{},
	}
	for _, gk := range bp.Spec.ClusterScopedKinds {
		r.cluster[schema.GroupKind{Group: gk.Group, Kind: gk.Kind}] = true
	}
	for i, rt := range tmpl.ResourceTemplates {
		name := parsed.names[i]
		docs, err := executeSafe(bp.Name, name, parsed.resources[i], h, b, ctx)
		if err != nil {
			return nil, r.attribute(err)
		}
		for _, d := range docs {
			obj, err := r.admit(name, rt.Name, d)
			if err != nil {
				return nil, err
			}
			out.Objects = append(out.Objects, obj)
			out.Templates = append(out.Templates, rt.Name)
		}
	}
	if parsed.status != nil {
		name := field + ".status"
		docs, err := executeSafe(bp.Name, name, parsed.status, h, b, ctx)
		if err != nil {
			return nil, r.attribute(err)
		}
		if out.Status, out.Addresses, err = decodeStatus(docs, in.Route == nil); err != nil {
			return nil, &Error{Blueprint: bp.Name, Template: name, Reason: ReasonInvalidParameters, Err: err}
		}
	}
	return out, nil
}

// Check parses every template of a blueprint without executing it, and
// decodes its values, for the GatewayClass's Accepted condition; it
// returns the first failure as an *Error.
func Check(bp *bpv1.GatewayClassBlueprint) error {
	if bp == nil {
		return &Error{Reason: ReasonInvalidParameters, Err: errors.New("no blueprint")}
	}
	for _, t := range []struct {
		field string
		tmpl  *bpv1.Template
	}{{"gatewayTemplate", bp.Spec.GatewayTemplate}, {"httpRouteTemplate", bp.Spec.HTTPRouteTemplate}} {
		if t.tmpl == nil {
			continue
		}
		if _, err := parseTemplate(bp.Name, t.field, t.tmpl, &budget{}, &holes{}); err != nil {
			return err
		}
	}
	for _, v := range []struct {
		field string
		block *apiextensionsv1.JSON
	}{{"spec.values.default", bp.Spec.Values.Default}, {"spec.values.override", bp.Spec.Values.Override}} {
		if _, err := values.Decode(v.block); err != nil {
			return &Error{Blueprint: bp.Name, Template: v.field, Reason: ReasonInvalidParameters, Err: err}
		}
	}
	return nil
}

// parsed is a Template ready to execute.
type parsed struct {
	names     []string // gatewayTemplate.resourceTemplates[NAME], by index
	resources []*template.Template
	status    *template.Template // nil when the Template has none
}

// parseTemplate parses the resource templates and the status template of
// tmpl, field being gatewayTemplate or httpRouteTemplate, all counting
// their steps in b, with their holes planted in h (holes.go).
func parseTemplate(bp, field string, tmpl *bpv1.Template, b *budget, h *holes) (*parsed, error) {
	p := &parsed{}
	parse := func(name, src string) (*template.Template, error) {
		t, err := newTemplate(name, src, b)
		if err != nil {
			return nil, templateFailure(bp, name, err, nil)
		}
		h.plant(t, b)
		return t, nil
	}
	seen := map[string]bool{}
	for i, rt := range tmpl.ResourceTemplates {
		name := fmt.Sprintf("%s.resourceTemplates[%s]", field, rt.Name)
		if rt.Name == "" {
			name = fmt.Sprintf("%s.resourceTemplates[%d]", field, i)
			return nil, &Error{Blueprint: bp, Template: name, Reason: ReasonInvalidParameters, Err: errors.New("name is required")}
		}
		if seen[rt.Name] {
			return nil, &Error{Blueprint: bp, Template: name, Reason: ReasonInvalidParameters,
				Err: fmt.Errorf("name %q is given to two resource templates; names key .Resources and must be unique", rt.Name)}
		}
		seen[rt.Name] = true
		t, err := parse(name, rt.Template)
		if err != nil {
			return nil, err
		}
		p.names = append(p.names, name)
		p.resources = append(p.resources, t)
	}
	if tmpl.Status != "" {
		var err error
		if p.status, err = parse(field+".status", tmpl.Status); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// execute runs t on a fresh copy of the context.
func execute(bp, name string, t *template.Template, ctx map[string]any) ([]byte, error) {
	var b bytes.Buffer
	if err := t.Execute(&limitWriter{w: &b}, copyContext(ctx)); err != nil {
		// The failed template may have changed its copy (set); the value
		// path is looked up in ctx, which no template changes.
		return nil, templateFailure(bp, name, err, ctx)
	}
	return b.Bytes(), nil
}

// renderer checks and labels the objects of one render.
type renderer struct {
	bp       *bpv1.GatewayClassBlueprint
	kinds    Kinds
	parentNS string
	labels   map[string]string
	cluster  map[schema.GroupKind]bool // spec.clusterScopedKinds
	seen     map[objectKey]string      // object -> template that rendered it
	sources  []values.Leaf             // Input.Sources
}

type objectKey struct{ group, kind, namespace, name string }

func (k objectKey) String() string {
	gk := schema.GroupKind{Group: k.group, Kind: k.kind}.String()
	if k.namespace == "" {
		return gk + " " + k.name
	}
	return gk + " " + k.namespace + "/" + k.name
}

// admit checks document d of template name (resource template rt) and
// returns it as an object in the parent's namespace, labelled.
func (r *renderer) admit(name, rt string, d document) (*unstructured.Unstructured, error) {
	// failAt refuses the document for a problem at JSON pointer at,
	// naming the value behind it when a value is (blame).
	failAt := func(at, reason string, format string, args ...any) error {
		e := &Error{Blueprint: r.bp.Name, Template: name, Reason: reason,
			Err: fmt.Errorf("%s: %s", d.where(), fmt.Sprintf(format, args...))}
		if h, path, src, ok := r.blame(d.holes, at); ok {
			e.Line, e.Path, e.Source = h.Line, path, src
		}
		return e
	}
	obj := &unstructured.Unstructured{Object: d.Object}
	apiVersion, ok := d.Object["apiVersion"].(string)
	if !ok || apiVersion == "" {
		return nil, failAt("/apiVersion", ReasonInvalidParameters, "apiVersion is required (a string)")
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, failAt("/apiVersion", ReasonInvalidParameters, "apiVersion: %v", err)
	}
	kind, ok := d.Object["kind"].(string)
	if !ok || kind == "" {
		return nil, failAt("/kind", ReasonInvalidParameters, "kind is required (a string)")
	}
	md, ok := d.Object["metadata"].(map[string]any)
	if !ok {
		return nil, failAt("/metadata", ReasonInvalidParameters, "metadata is required (an object with a name)")
	}
	objName, ok := md["name"].(string)
	if !ok || objName == "" {
		return nil, failAt("/metadata", ReasonInvalidParameters, "metadata.name is required (a string)")
	}
	gk := schema.GroupKind{Group: gv.Group, Kind: kind}
	what := gk.String() + " " + abbreviate(objName)
	if IsListKind(kind) {
		return nil, failAt("/kind", ReasonNotAllowed, "%s: kind %s is a list; render each object on its own (a list's items would escape the checks)", what, kind)
	}
	if err, forbidden := checkMetadata(gk, md); err != nil {
		reason := ReasonInvalidParameters
		if forbidden {
			reason = ReasonNotAllowed
		}
		return nil, failAt("/metadata", reason, "%s: %v", what, err)
	}
	for _, f := range serverFields {
		delete(md, f) // only empty ones are left
	}
	namespaced, known := false, false
	if r.kinds.Scope != nil {
		namespaced, known = r.kinds.Scope(gk)
	}
	if !known {
		return nil, failAt("/kind", ReasonNotAllowed, "%s: kind %s is not known to be namespaced or cluster-scoped (is its CustomResourceDefinition installed?)", what, gk)
	}
	ns, present := md["namespace"]
	nsString, isString := ns.(string)
	if present && ns != nil && !isString {
		return nil, failAt("/metadata/namespace", ReasonInvalidParameters, "%s: metadata.namespace must be a string", what)
	}
	if namespaced {
		switch {
		case nsString == "":
			md["namespace"] = r.parentNS
		case nsString != r.parentNS:
			return nil, failAt("/metadata/namespace", ReasonNotAllowed, "%s: metadata.namespace %q is not the parent's namespace %q; objects may only be rendered there (leave the namespace unset)", what, nsString, r.parentNS)
		}
	} else {
		if !r.cluster[gk] {
			return nil, failAt("/kind", ReasonNotAllowed, "%s: kind %s is cluster-scoped and not listed in spec.clusterScopedKinds", what, gk)
		}
		if nsString != "" {
			return nil, failAt("/metadata/namespace", ReasonInvalidParameters, "%s: kind %s is cluster-scoped; remove metadata.namespace %q", what, gk, nsString)
		}
		delete(md, "namespace")
	}
	labels, _ := md["labels"].(map[string]any) // checkMetadata: an object of strings
	if labels == nil {
		labels = map[string]any{}
	}
	for k, v := range r.labels {
		labels[k] = v
	}
	labels[LabelTemplate] = LabelValue(rt)
	md["labels"] = labels
	if err := checkTyped(r.kinds.Types, obj); err != nil {
		at := ""
		if te, ok := errors.AsType[*TypeError](err); ok && te.Pointer != "" {
			at = te.Pointer
		} else if ok && te.Field != "" {
			at = "/" + strings.ReplaceAll(te.Field, ".", "/")
		}
		return nil, failAt(at, ReasonInvalidParameters, "%v", err)
	}
	if err := CheckPodSecurity(obj, r.bp.Spec.PodSecurity); err != nil {
		reason := ReasonInvalidParameters // a pod template that does not decode
		if _, violation := errors.AsType[*PodSecurityError](err); violation {
			reason = ReasonNotAllowed
		}
		return nil, failAt("", reason, "%v", err)
	}

	key := objectKey{gk.Group, gk.Kind, obj.GetNamespace(), objName}
	if first, dup := r.seen[key]; dup {
		return nil, failAt("/metadata/name", ReasonInvalidParameters, "%s is rendered twice, by %s and by %s; names must be unique within a render", key, first, name)
	}
	r.seen[key] = name
	return obj, nil
}

// decodeStatus decodes the status template's output: at most one object;
// for a Gateway, its addresses as GatewayStatusAddresses.
func decodeStatus(docs []document, gateway bool) (map[string]any, []gwv1.GatewayStatusAddress, error) {
	switch len(docs) {
	case 0:
		return map[string]any{}, nil, nil
	case 1:
	default:
		return nil, nil, fmt.Errorf("%s: the status template must render one object, not %d documents", docs[1].where(), len(docs))
	}
	status := docs[0].Object
	raw, ok := status["addresses"]
	if !gateway || !ok || raw == nil {
		return status, nil, nil
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("addresses: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var addrs []gwv1.GatewayStatusAddress
	if err := dec.Decode(&addrs); err != nil {
		return nil, nil, fmt.Errorf("addresses: want a list of {type, value}: %w", err)
	}
	for i, a := range addrs {
		if a.Value == "" {
			return nil, nil, fmt.Errorf("addresses[%d].value is required", i)
		}
	}
	return status, addrs, nil
}
