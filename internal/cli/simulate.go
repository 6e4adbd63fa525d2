package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/query/routing"
	"github.com/strata-dev/strata/pkg/sink/printer"
	"github.com/strata-dev/strata/pkg/source/cluster"
)

// newSimulate is `strata simulate`: GEP-713's "What happens when a network request X comes in?"
func newSimulate(s Streams) *cobra.Command {
	var f sourceFlags
	var v viewFlag
	var gateway, route string
	var headers []string
	c := &cobra.Command{
		Use:   "simulate [METHOD] URL [-H 'Name: value']... [--gateway NAMESPACE/NAME] [--route [KIND/]NAMESPACE/NAME]",
		Short: "Show which listener, route rule and backends a request or connection reaches, and the effective policies along its way",
		Long: `Follows one HTTP request, or one TLS, TCP or UDP connection, through the
Gateways as Gateway API routes it:

  - the listener that accepts it (protocol from the URL's scheme, port
    from the URL or the scheme's default, hostname: exact before wildcard
    before none);
  - the route rule and match that win, under Gateway API's precedence
    (most specific route hostname; Exact path, then longest PathPrefix,
    then RegularExpression; method; for gRPC calls, POST
    /service/method, longest service then method; most header matches;
    most query param matches; oldest route; namespace/name; first rule),
    with the reason for every listener, route and match passed over;
  - what the rule's filters do to the request, in order: the request the
    backends receive (method, host, path, headers after
    RequestHeaderModifier and URLRewrite), or the answer the Gateway gives
    itself (a RequestRedirect's status and Location, a CORS preflight),
    the mirrors, the changes to the response; ExtensionRef filters are not
    simulated (implementation-specific);
  - the rule's backends, their share of the traffic, and what their own
    filters do;
  - per policy kind, the effective policy on every object on the way,
    in this request's context path only, with the policy that set each
    field and the ones it beat.

URL is one of:

  http://HOST[:PORT]/PATH?QUERY   an HTTP request (METHOD, default GET)
  https://HOST[:PORT]/PATH?QUERY  an HTTPS request (METHOD, default GET)
  tls://HOST[:PORT]               a TLS connection whose SNI is HOST (port
                                  443 by default): TLS listeners, by
                                  hostname, then TLSRoutes by hostname as
                                  HTTPRoutes are, or TCPRoutes when the
                                  listener terminates TLS
  tcp://[HOST]:PORT               a TCP connection: TCP listeners and
                                  TCPRoutes, by port alone
  udp://[HOST]:PORT               a UDP connection: UDP listeners and
                                  UDPRoutes, by port alone

A connection has no METHOD and no -H. A Host header (-H 'Host: name')
replaces an HTTP URL's host. When listeners of several Gateways accept
the request, name one with --gateway. The exit code is 1 when nothing
handles it (the Gateway would answer 404, or refuse the connection),
after printing why.

The routing needs the Gateways, ListenerSets and routes of every
namespace. Without them (the view role of one namespace), it is not
decided: simulate names the kinds it could not read and exits 1. Name the
route you expect with --route: its own rules are followed, and the
effective policies of its context paths are read from the EffectivePolicy
records the policy controller publishes. When the routing is decided,
--route is a check: exit 1 if another route handles the request. Policy
kinds you cannot read are answered from those records too, as describe
does.`,
		Example: `  strata simulate GET http://baker.cupcakes.example/ -f examples/parable/
  strata simulate POST https://shop.example.com/api/cart -H 'x-canary: true' --gateway infra/shop -o yaml
  strata simulate POST http://grpc.example.com/shop.Cart/AddItem
  strata simulate tls://orders.db.example.com
  strata simulate tcp://db.example.com:5432 --gateway infra/l4
  strata simulate GET http://baker.cupcakes.example/ -n baker --route baker/baker`,
		Args: arity(1, 2),
		RunE: func(c *cobra.Command, args []string) error {
			if err := v.check(); err != nil {
				return err
			}
			method, url := "", args[0]
			if len(args) == 2 {
				method, url = args[0], args[1]
			}
			req, err := query.NewSimulateRequest(method, url, headers, gateway, route)
			if err != nil {
				return err
			}
			if route != "" {
				// Ana may not see the routing objects: then the records of her route answer.
				f.recordsWhen = func(objs *cluster.Objects) bool {
					return len(routingHidden(objs.Unreadable, objs.NamespaceOnly, "", req.Request.Scheme)) > 0
				}
			}
			f.answersFromRecords = true
			res, err := f.loadScoped(s, req.Scope())
			if err != nil {
				return err
			}
			ns, _ := f.namespaceScope()
			req.Hidden = routingHidden(f.unreadable, f.namespaceOnly, ns, req.Request.Scheme)
			req.Records, req.Published = f.seen.Records, f.published
			sim, err := query.RunSimulate(res, req)
			if err != nil {
				return err
			}
			if err := printWith(s, func(w io.Writer) error {
				return printer.PrintSimulation(w, sim, v.format, printer.Human{Color: colorful(s.Out)})
			}); err != nil {
				return err
			}
			return req.Unanswered(sim)
		},
	}
	f.bind(c)
	v.bind(c)
	c.Flags().StringVar(&gateway, "gateway", "", "only this Gateway (NAMESPACE/NAME): the one the client connects to")
	c.Flags().StringVar(&route, "route", "", "the route you expect the request to reach ([KIND/]NAMESPACE/NAME; KIND defaults to the scheme's: HTTPRoute, TLSRoute, TCPRoute, UDPRoute): an error when another handles it; when you cannot read the Gateways and routes of every namespace, its own rules are followed and the effective policies of its context paths read from its published EffectivePolicy records")
	c.Flags().StringArrayVarP(&headers, "header", "H", nil, "a request header, 'Name: value' (repeatable)")
	f.completeFlag(c, "gateway", func(f *sourceFlags) cobra.CompletionFunc { return completeObjectNamed(f, hierarchy.GatewayKind) })
	f.completeFlag(c, "route", completeRoute)
	return c
}

// routingHidden lists the kinds the routing of a request of scheme reads in every namespace, not read so, and why.
func routingHidden(unreadable []cluster.Unreadable, namespaceOnly []schema.GroupVersionKind, ns, scheme string) []string {
	why := map[schema.GroupKind]string{}
	for _, u := range unreadable {
		why[u.GVK.GroupKind()] = strings.ToLower(string(u.Reason))
	}
	for _, gvk := range namespaceOnly {
		why[gvk.GroupKind()] = "namespace " + ns + " only"
	}
	var out []string
	for _, gk := range append([]schema.GroupKind{hierarchy.GatewayKind, hierarchy.ListenerSetKind}, routing.Schemes[scheme].Kinds...) {
		if w, ok := why[gk]; ok {
			out = append(out, fmt.Sprintf("%s (%s)", gk.Kind, w))
		}
	}
	return out
}
