package cli

import (
	"bufio"
	"bytes"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/query/routing"
	"github.com/strata-dev/strata/pkg/sink/printer"
)

// newSimulate is `strata simulate`: GEP-713's "What happens when a network
// request X comes in?", answered by query.Simulate and printed by
// printer.PrintSimulation.
func newSimulate(s Streams) *cobra.Command {
	var f sourceFlags
	var v viewFlag
	var gateway string
	var headers []string
	c := &cobra.Command{
		Use:   "simulate METHOD URL [-H 'Name: value']... [--gateway NAMESPACE/NAME]",
		Short: "Show which listener, route rule and backends a request reaches, and the effective policies along its way",
		Long: `Follows one HTTP request through the Gateways as Gateway API routes it:

  - the listener that accepts it (protocol from the URL's scheme, port
    from the URL or the scheme's default, hostname: exact before wildcard
    before none);
  - the HTTPRoute or GRPCRoute rule and match that win, under Gateway
    API's precedence (most specific route hostname; Exact path, then
    longest PathPrefix, then RegularExpression; method; for gRPC calls,
    POST /service/method, longest service then method; most header
    matches; most query param matches; oldest route; namespace/name;
    first rule), with the reason for every listener, route and match
    passed over;
  - the rule's backends and their share of the traffic;
  - per policy kind, the effective policy on every object on the way,
    in this request's context path only, with the policy that set each
    field and the ones it beat.

A Host header (-H 'Host: name') replaces the URL's host. When listeners of
several Gateways accept the request, name one with --gateway. The exit
code is 1 when no rule handles the request (the Gateway would answer 404),
after printing why.`,
		Example: `  strata simulate GET http://baker.cupcakes.example/ -f examples/parable/
  strata simulate POST https://shop.example.com/api/cart -H 'x-canary: true' --gateway infra/shop -o yaml
  strata simulate POST http://grpc.example.com/shop.Cart/AddItem`,
		Args: cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			if err := v.check(); err != nil {
				return err
			}
			req, err := routing.NewRequest(args[0], args[1], headers)
			if err != nil {
				return err
			}
			res, err := f.loadScoped(s, query.SimulationScope(req, gateway))
			if err != nil {
				return err
			}
			sim, err := query.Simulate(res, req, gateway)
			if err != nil {
				return err
			}
			var buf bytes.Buffer
			bw := bufio.NewWriter(&buf)
			if err := printer.PrintSimulation(bw, sim, v.format, printer.Human{Color: colorful(s.Out)}); err != nil {
				return err
			}
			if err := bw.Flush(); err != nil {
				return err
			}
			if _, err := s.Out.Write(buf.Bytes()); err != nil {
				return err
			}
			if sim.Failure != "" {
				return fmt.Errorf("%s %s: %s", req.Method, req.URL, sim.Failure)
			}
			return nil
		},
	}
	f.bind(c)
	v.bind(c)
	c.Flags().StringVar(&gateway, "gateway", "", "only this Gateway (NAMESPACE/NAME): the one the client connects to")
	c.Flags().StringArrayVarP(&headers, "header", "H", nil, "a request header, 'Name: value' (repeatable)")
	return c
}
