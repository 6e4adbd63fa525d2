package routing

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// routeView is what matching reads of a route of any kind Route
// simulates, so that hostnames, precedence and backends are written once.
type routeView struct {
	gk        schema.GroupKind
	kind      string
	namespace string
	name      string
	created   time.Time
	hostnames []gwv1.Hostname
	hostnamed bool // the kind has spec.hostnames
	rules     []ruleView
}

// ruleView is one rule: its matches (the default one when it has none),
// backends and filters (a GRPCRoute's as the HTTPRoute filters they are).
type ruleView struct {
	name     string
	matches  []matchView
	backends []backendView
	filters  []gwv1.HTTPRouteFilter
}

// backendView is one backendRef and its own filters.
type backendView struct {
	ref     gwv1.BackendRef
	filters []gwv1.HTTPRouteFilter
}

// matchView is one match: as written, and its test of a request (which
// condition fails, "" when it matches; it fills the candidate).
type matchView struct {
	cond string
	miss func(r *Request, c *candidate) string
}

// views are the route kinds Route simulates, with their readings.
var views = map[schema.GroupKind]func(obj any) (routeView, bool){
	hierarchy.HTTPRouteKind: func(obj any) (routeView, bool) {
		rt, ok := obj.(*gwv1.HTTPRoute)
		if !ok {
			return routeView{}, false
		}
		v := routeView{gk: hierarchy.HTTPRouteKind, kind: "HTTPRoute", namespace: rt.Namespace, name: rt.Name, created: rt.CreationTimestamp.Time, hostnames: rt.Spec.Hostnames, hostnamed: true}
		for i, rule := range rt.Spec.Rules {
			rv := ruleView{name: ruleName(i, rule.Name)}
			ms := rule.Matches
			if len(ms) == 0 {
				ms = []gwv1.HTTPRouteMatch{{}} // "the default is a prefix path match on "/""
			}
			for j := range ms {
				m := &ms[j]
				rv.matches = append(rv.matches, matchView{cond: condition(m), miss: func(r *Request, c *candidate) string { return r.miss(m, c) }})
			}
			for _, b := range rule.BackendRefs {
				rv.backends = append(rv.backends, backendView{ref: b.BackendRef, filters: b.Filters})
			}
			rv.filters = rule.Filters
			v.rules = append(v.rules, rv)
		}
		return v, true
	},
	hierarchy.GRPCRouteKind: func(obj any) (routeView, bool) {
		rt, ok := obj.(*gwv1.GRPCRoute)
		if !ok {
			return routeView{}, false
		}
		v := routeView{gk: hierarchy.GRPCRouteKind, kind: "GRPCRoute", namespace: rt.Namespace, name: rt.Name, created: rt.CreationTimestamp.Time, hostnames: rt.Spec.Hostnames, hostnamed: true}
		for i, rule := range rt.Spec.Rules {
			rv := ruleView{name: ruleName(i, rule.Name)}
			ms := rule.Matches
			if len(ms) == 0 {
				ms = []gwv1.GRPCRouteMatch{{}} // "the implementation MUST match every gRPC request"
			}
			for j := range ms {
				m := &ms[j]
				rv.matches = append(rv.matches, matchView{cond: grpcCondition(m), miss: func(r *Request, c *candidate) string { return r.grpcMiss(m, c) }})
			}
			for _, b := range rule.BackendRefs {
				rv.backends = append(rv.backends, backendView{ref: b.BackendRef, filters: grpcFilters(b.Filters)})
			}
			rv.filters = grpcFilters(rule.Filters)
			v.rules = append(v.rules, rv)
		}
		return v, true
	},
	hierarchy.TLSRouteKind: func(obj any) (routeView, bool) {
		rt, ok := obj.(*gwv1.TLSRoute)
		if !ok {
			return routeView{}, false
		}
		return connectionView(hierarchy.TLSRouteKind, &rt.ObjectMeta, rt.Spec.Hostnames, len(rt.Spec.Rules), func(i int) (*gwv1.SectionName, []gwv1.BackendRef) {
			return rt.Spec.Rules[i].Name, rt.Spec.Rules[i].BackendRefs
		}), true
	},
	hierarchy.TCPRouteKind: func(obj any) (routeView, bool) {
		rt, ok := obj.(*gwv1.TCPRoute)
		if !ok {
			return routeView{}, false
		}
		return connectionView(hierarchy.TCPRouteKind, &rt.ObjectMeta, nil, len(rt.Spec.Rules), func(i int) (*gwv1.SectionName, []gwv1.BackendRef) {
			return rt.Spec.Rules[i].Name, rt.Spec.Rules[i].BackendRefs
		}), true
	},
	hierarchy.UDPRouteKind: func(obj any) (routeView, bool) {
		rt, ok := obj.(*gwv1.UDPRoute)
		if !ok {
			return routeView{}, false
		}
		return connectionView(hierarchy.UDPRouteKind, &rt.ObjectMeta, nil, len(rt.Spec.Rules), func(i int) (*gwv1.SectionName, []gwv1.BackendRef) {
			return rt.Spec.Rules[i].Name, rt.Spec.Rules[i].BackendRefs
		}), true
	},
}

// connectionView is the view of a TLSRoute, TCPRoute or UDPRoute, whose n
// rules have no matches (each serves every connection its route accepts)
// nor filters.
func connectionView(gk schema.GroupKind, meta *metav1.ObjectMeta, hostnames []gwv1.Hostname, n int, rule func(int) (*gwv1.SectionName, []gwv1.BackendRef)) routeView {
	v := routeView{gk: gk, kind: gk.Kind, namespace: meta.Namespace, name: meta.Name, created: meta.CreationTimestamp.Time,
		hostnames: hostnames, hostnamed: gk == hierarchy.TLSRouteKind}
	for i := range n {
		name, backends := rule(i)
		rv := ruleView{name: ruleName(i, name), matches: []matchView{{cond: "any connection", miss: func(*Request, *candidate) string { return "" }}}}
		for _, b := range backends {
			rv.backends = append(rv.backends, backendView{ref: b})
		}
		v.rules = append(v.rules, rv)
	}
	return v
}

// grpcFilters are GRPCRoute filters as the HTTPRoute filters they are
// (the same types and fields).
func grpcFilters(fs []gwv1.GRPCRouteFilter) []gwv1.HTTPRouteFilter {
	if len(fs) == 0 {
		return nil
	}
	out := make([]gwv1.HTTPRouteFilter, len(fs))
	for i, f := range fs {
		out[i] = gwv1.HTTPRouteFilter{Type: gwv1.HTTPRouteFilterType(f.Type), RequestHeaderModifier: f.RequestHeaderModifier,
			ResponseHeaderModifier: f.ResponseHeaderModifier, RequestMirror: f.RequestMirror, ExtensionRef: f.ExtensionRef}
	}
	return out
}

// ruleName is the rule's section name (topology.GeneratedRuleName when
// it has none).
func ruleName(i int, name *gwv1.SectionName) string {
	if name != nil && *name != "" {
		return string(*name)
	}
	return topology.GeneratedRuleName(i)
}

// grpcCall is the service and method of a gRPC call: a POST to
// /service/method (gRPC over HTTP/2, "Path → ":path" "/" Service-Name "/"
// {method name}").
func (r *Request) grpcCall() (service, method string, ok bool) {
	if r.Method != "POST" {
		return "", "", false
	}
	service, method, ok = strings.Cut(strings.TrimPrefix(r.Path, "/"), "/")
	return service, method, ok && strings.HasPrefix(r.Path, "/") && service != "" && method != "" && !strings.Contains(method, "/")
}

// grpcCondition writes a GRPCRoute match: "service pkg.Svc, method Get,
// header x=1", or "any service and method".
func grpcCondition(m *gwv1.GRPCRouteMatch) string {
	var parts []string
	if mm := m.Method; mm != nil {
		op := " "
		if mm.Type != nil && *mm.Type == gwv1.GRPCMethodMatchRegularExpression {
			op = " ~"
		}
		if mm.Service != nil && *mm.Service != "" {
			parts = append(parts, "service"+op+*mm.Service)
		}
		if mm.Method != nil && *mm.Method != "" {
			parts = append(parts, "method"+op+*mm.Method)
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "any service and method")
	}
	for _, h := range m.Headers {
		parts = append(parts, "header "+string(h.Name)+op(h.Type != nil && *h.Type == gwv1.GRPCHeaderMatchRegularExpression)+h.Value)
	}
	return strings.Join(parts, ", ")
}

// grpcMiss is miss for a GRPCRoute match.
func (r *Request) grpcMiss(m *gwv1.GRPCRouteMatch, c *candidate) string {
	service, method, ok := r.grpcCall()
	if !ok {
		return fmt.Sprintf("not a gRPC call: %s %s is not POST /service/method", r.Method, r.Path)
	}
	if mm := m.Method; mm != nil {
		regex := mm.Type != nil && *mm.Type == gwv1.GRPCMethodMatchRegularExpression
		for _, x := range []struct {
			what, want, got string
			chars           *int
		}{
			{"service", deref(mm.Service), service, &c.service},
			{"method", deref(mm.Method), method, &c.grpcMethod},
		} {
			if x.want == "" {
				continue
			}
			if why := valuesMiss(x.what, "", x.want, regex, []string{x.got}); why != "" {
				return why
			}
			*x.chars = len(x.want)
		}
	}
	for _, h := range m.Headers {
		regex := h.Type != nil && *h.Type == gwv1.GRPCHeaderMatchRegularExpression
		if why := valuesMiss("header", string(h.Name), h.Value, regex, r.header(string(h.Name))); why != "" {
			return why
		}
	}
	c.headers = len(m.Headers)
	return ""
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
