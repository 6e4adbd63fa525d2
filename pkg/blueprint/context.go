package blueprint

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The keys of the template context, the dot every template of a render
// starts with. Objects are maps with their JSON field names
// (.Gateway.metadata.name, .Gateway.spec.listeners), apiVersion and kind
// always set and metadata.managedFields dropped, so a render from files
// and one from the cluster cache read the same; whole numbers are int64
// (values too: `eq .Values.port 80` works), other numbers float64.
const (
	// ctxGateway is the Gateway: the parent of a Gateway render, the
	// Gateway a route is rendered for in an HTTPRoute render.
	ctxGateway = "Gateway"
	// ctxHTTPRoute is the HTTPRoute being rendered; nil in a Gateway
	// render.
	ctxHTTPRoute = "HTTPRoute"
	// ctxHTTPRoutes are the HTTPRoutes attached to the Gateway (a list,
	// empty rather than nil).
	ctxHTTPRoutes = "HTTPRoutes"
	// ctxGatewayClass is the GatewayClass, nil when not given.
	ctxGatewayClass = "GatewayClass"
	// ctxNamespace is the parent's Namespace, nil when not known.
	ctxNamespace = "Namespace"
	// ctxValues are the merged values (an empty map when none).
	ctxValues = "Values"
	// ctxResources maps each resource template name to the list of the
	// objects it rendered last time (Input.Resources), an empty map when
	// none, so `index .Resources "service"` and `with` work on a first
	// render; `.Resources.service` fails there under missingkey=error.
	ctxResources = "Resources"
	// ctxHostnames is Hostnames: .Hostnames.Union and
	// .Hostnames.Intersection.
	ctxHostnames = "Hostnames"
)

// contextJSON builds the template context of in and returns it as JSON:
// each template execution decodes its own copy (newContext), so a
// template that changes a dict (set, merge) changes nothing another
// template reads, nor the caller's input.
func contextJSON(in Input) ([]byte, error) {
	ctx := map[string]any{
		ctxHTTPRoute:    nil,
		ctxGatewayClass: nil,
		ctxNamespace:    nil,
		ctxValues:       map[string]any{},
	}
	var err error
	if ctx[ctxGateway], err = objectMap(in.Gateway, gwv1.GroupVersion.String(), "Gateway"); err != nil {
		return nil, fmt.Errorf("convert the Gateway: %w", err)
	}
	if in.Route != nil {
		if ctx[ctxHTTPRoute], err = objectMap(in.Route, gwv1.GroupVersion.String(), "HTTPRoute"); err != nil {
			return nil, fmt.Errorf("convert the HTTPRoute: %w", err)
		}
	}
	routes := make([]any, 0, len(in.Routes))
	for _, r := range in.Routes {
		if r == nil {
			continue
		}
		m, err := objectMap(r, gwv1.GroupVersion.String(), "HTTPRoute")
		if err != nil {
			return nil, fmt.Errorf("convert HTTPRoute %s/%s: %w", r.Namespace, r.Name, err)
		}
		routes = append(routes, m)
	}
	ctx[ctxHTTPRoutes] = routes
	if in.Class != nil {
		if ctx[ctxGatewayClass], err = objectMap(in.Class, gwv1.GroupVersion.String(), "GatewayClass"); err != nil {
			return nil, fmt.Errorf("convert the GatewayClass: %w", err)
		}
	}
	if in.Namespace != nil {
		if ctx[ctxNamespace], err = objectMap(in.Namespace, "v1", "Namespace"); err != nil {
			return nil, fmt.Errorf("convert the Namespace: %w", err)
		}
	}
	if in.Values != nil {
		ctx[ctxValues] = in.Values
	}
	res := map[string]any{}
	for name, objs := range in.Resources {
		list := make([]any, 0, len(objs))
		for _, o := range objs {
			if o != nil && o.Object != nil {
				list = append(list, withoutManagedFields(o.Object))
			}
		}
		res[name] = list
	}
	ctx[ctxResources] = res
	routesForHosts := in.Routes
	if in.Route != nil {
		routesForHosts = []*gwv1.HTTPRoute{in.Route}
	}
	ctx[ctxHostnames] = hostnamesOf(in.Gateway, routesForHosts)
	b, err := json.Marshal(ctx)
	if err != nil {
		return nil, fmt.Errorf("values and objects must be JSON: %w", err)
	}
	return b, nil
}

// newContext decodes a fresh copy of the context.
func newContext(b []byte) (map[string]any, error) {
	var m map[string]any
	if err := utiljson.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// objectMap converts a typed object to its JSON map, with apiVersion and
// kind set (typed objects from a cache have none) and managedFields
// dropped.
func objectMap(obj runtime.Object, apiVersion, kind string) (map[string]any, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	if v, _ := m["apiVersion"].(string); v == "" {
		m["apiVersion"] = apiVersion
	}
	if v, _ := m["kind"].(string); v == "" {
		m["kind"] = kind
	}
	return withoutManagedFields(m), nil
}

// withoutManagedFields returns obj without metadata.managedFields, copying
// only the two maps it changes.
func withoutManagedFields(obj map[string]any) map[string]any {
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		return obj
	}
	if _, ok := md["managedFields"]; !ok {
		return obj
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	m := make(map[string]any, len(md))
	for k, v := range md {
		if k != "managedFields" {
			m[k] = v
		}
	}
	out["metadata"] = m
	return out
}
