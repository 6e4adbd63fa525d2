package routing_test

import (
	"fmt"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/query/routing"
	"github.com/strata-dev/strata/pkg/source/files"
)

// Where a POST to the shop's cart goes: the checkout route's Exact path
// wins over the prefixes of every other route on the listener.
func ExampleRoute() {
	src, err := files.Read([]string{"../../../examples/parable/kinds.yaml", "../../../internal/cli/testdata/simulate/world.yaml"}, nil)
	if err != nil {
		panic(err)
	}
	res, err := engine.Run(src.Snapshot, engine.Options{})
	if err != nil {
		panic(err)
	}
	req, err := routing.NewRequest("POST", "http://shop.example.com/api/cart", nil)
	if err != nil {
		panic(err)
	}
	tr, err := routing.Route(res.Graph, req, "")
	if err != nil {
		panic(err)
	}
	fmt.Println("listener:", res.Graph.Node(tr.Listener).Ref)
	fmt.Println("rule:", res.Graph.Node(tr.Rule).Ref, "match", tr.Match, "("+tr.Condition+")")
	for _, s := range tr.Steps {
		if s.Verdict == routing.Outranked && s.Stage == routing.StageMatch {
			fmt.Printf("%s: %s\n", s.Object, s.DecidedBy)
		}
	}
	// Output:
	// listener: Gateway infra/edge#http
	// rule: HTTPRoute shop/checkout#cart match 0 (Exact /api/cart, method POST)
	// HTTPRoute shop/shop#api: Exact path
	// HTTPRoute shop/shop#web: Exact path
	// HTTPRoute shop/shop-copy#rule-0: Exact path
}
