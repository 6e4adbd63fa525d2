package render

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"strconv"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// The keys of the template context. Objects are maps with their JSON
// field names, apiVersion and kind always set and managedFields dropped,
// so a render from files and one from the cluster cache read the same;
// whole numbers are int64, other numbers float64.
const (
	ctxGateway      = "Gateway"      // the parent, or the Gateway a route is rendered for
	ctxHTTPRoute    = "HTTPRoute"    // the route rendered; nil in a Gateway render
	ctxHTTPRoutes   = "HTTPRoutes"   // the attached routes (a list, never nil)
	ctxGatewayClass = "GatewayClass" // nil when not given
	ctxNamespace    = "Namespace"    // the parent's, nil when not known
	ctxValues       = "Values"       // the merged values, {} when none
	ctxResources    = "Resources"    // template name -> the objects it rendered last time, {} when none
	ctxHostnames    = "Hostnames"    // Hostnames: .Union and .Intersection
)

// contextOf builds the template context of in once per render, as JSON
// values (jsonValue). Each template execution reads its own deep copy
// (copyContext), so a template that changes a dict changes nothing
// another template reads, nor the caller's input.
func contextOf(in Input) (map[string]any, error) {
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
	hosts := hostnamesOf(in.Gateway, routesForHosts)
	ctx[ctxHostnames] = map[string]any{"Union": stringList(hosts.Union), "Intersection": stringList(hosts.Intersection)}
	v, err := jsonValue(ctx)
	if err != nil {
		// The error encoding/json gives for the whole context, as when
		// the context was encoded to JSON.
		if _, jerr := json.Marshal(ctx); jerr != nil {
			err = jerr
		}
		return nil, fmt.Errorf("values and objects must be JSON: %w", err)
	}
	return v.(map[string]any), nil
}

// stringList is ss as a JSON list: nil (null) for a nil slice.
func stringList(ss []string) any {
	if ss == nil {
		return nil
	}
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// copyContext is a deep copy of a context built by contextOf, for one
// template execution.
func copyContext(ctx map[string]any) map[string]any {
	return runtime.DeepCopyJSON(ctx)
}

// jsonValue returns v as JSON would give it back (encoding/json, then
// util/json: whole numbers in range as int64, others float64). Other
// types, invalid UTF-8 and float32 take the round trip itself.
func jsonValue(v any) (any, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		if !utf8.ValidString(v) {
			return roundTrip(v)
		}
		return v, nil
	case bool:
		return v, nil
	case int64:
		return v, nil
	case int:
		return int64(v), nil
	case int32:
		return int64(v), nil
	case float64:
		return jsonFloat(v)
	case map[string]any:
		if v == nil {
			return nil, nil
		}
		out := make(map[string]any, len(v))
		for k, x := range v {
			if !utf8.ValidString(k) {
				return roundTrip(v)
			}
			y, err := jsonValue(x)
			if err != nil {
				return nil, err
			}
			out[k] = y
		}
		return out, nil
	case []any:
		if v == nil {
			return nil, nil
		}
		out := make([]any, len(v))
		for i, x := range v {
			y, err := jsonValue(x)
			if err != nil {
				return nil, err
			}
			out[i] = y
		}
		return out, nil
	}
	return roundTrip(v)
}

// jsonFloat is f as JSON gives it back: encoding/json writes a whole
// number below 1e21 without a point or an exponent, and util/json reads it
// as int64 when it fits.
func jsonFloat(f float64) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return roundTrip(f) // the encoder's error
	}
	if f != math.Trunc(f) || math.Abs(f) >= 1e21 {
		return f, nil
	}
	if math.Abs(f) < 1<<53 {
		return int64(f), nil
	}
	if i, err := strconv.ParseInt(strconv.FormatFloat(f, 'f', -1, 64), 10, 64); err == nil {
		return i, nil
	}
	return f, nil
}

// roundTrip encodes v to JSON and decodes it with util/json.
func roundTrip(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var x any
	if err := utiljson.Unmarshal(b, &x); err != nil {
		return nil, err
	}
	return x, nil
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
	out, m := maps.Clone(obj), maps.Clone(md)
	delete(m, "managedFields")
	out["metadata"] = m
	return out
}
