package routing

import (
	"fmt"
	"strings"
	"time"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/topology"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// routeView is what matching reads of a route of either kind Route
// simulates: one row per kind in views, so that hostnames, precedence,
// ties and backends are written once.
type routeView struct {
	kind      string
	namespace string
	name      string
	created   time.Time
	hostnames []gwv1.Hostname
	rules     []ruleView
}

// ruleView is one rule: its matches (the default one when it has none),
// backends and filter types.
type ruleView struct {
	name     string
	matches  []matchView
	backends []gwv1.BackendRef
	filters  []string
}

// matchView is one match: as written, and the test of a request against
// it, which says which condition fails ("" when it matches) and fills
// the candidate's precedence fields.
type matchView struct {
	cond string
	miss func(r *Request, c *candidate) string
}

// views are the route kinds Route simulates, each with the reading of
// its objects.
var views = map[schema.GroupKind]func(obj any) (routeView, bool){
	hierarchy.HTTPRouteKind: func(obj any) (routeView, bool) {
		rt, ok := obj.(*gwv1.HTTPRoute)
		if !ok {
			return routeView{}, false
		}
		v := routeView{kind: "HTTPRoute", namespace: rt.Namespace, name: rt.Name, created: rt.CreationTimestamp.Time, hostnames: rt.Spec.Hostnames}
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
				rv.backends = append(rv.backends, b.BackendRef)
			}
			for _, f := range rule.Filters {
				rv.filters = append(rv.filters, string(f.Type))
			}
			v.rules = append(v.rules, rv)
		}
		return v, true
	},
	hierarchy.GRPCRouteKind: func(obj any) (routeView, bool) {
		rt, ok := obj.(*gwv1.GRPCRoute)
		if !ok {
			return routeView{}, false
		}
		v := routeView{kind: "GRPCRoute", namespace: rt.Namespace, name: rt.Name, created: rt.CreationTimestamp.Time, hostnames: rt.Spec.Hostnames}
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
				rv.backends = append(rv.backends, b.BackendRef)
			}
			for _, f := range rule.Filters {
				rv.filters = append(rv.filters, string(f.Type))
			}
			v.rules = append(v.rules, rv)
		}
		return v, true
	},
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
		op := "="
		if h.Type != nil && *h.Type == gwv1.GRPCHeaderMatchRegularExpression {
			op = "~"
		}
		parts = append(parts, "header "+string(h.Name)+op+h.Value)
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
