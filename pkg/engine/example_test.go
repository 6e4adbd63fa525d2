package engine_test

import (
	"fmt"
	"strings"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/source/files"
)

// Run the engine on GEP-713's second example and print the color of every
// context: the more specific p2 beats p1's defaults via r1, p3's override
// beats p4 via r4.
func ExampleRun() {
	src, err := files.Read([]string{"../../examples/gep-713/example-2"}, nil)
	if err != nil {
		panic(err)
	}
	res, err := engine.Run(src.Snapshot, engine.Options{})
	if err != nil {
		panic(err)
	}
	for _, tg := range res.Kinds[0].Effective.Targets {
		for _, ctx := range tg.Contexts {
			var route string
			for _, n := range ctx.Path {
				if r := res.Graph.Node(n).Ref; r.Kind == "HTTPRoute" && r.Section == "" {
					route = r.Name
				}
			}
			fmt.Printf("%s via %s: %v (set by %s)\n", res.Graph.Node(tg.Node).Ref.Name, route,
				ctx.Result.Values["color"], ctx.Result.Prov["/color"].ID())
		}
	}
	for _, ps := range res.Outcome.Policies {
		var states []string
		for _, c := range ps.Ancestors[0].Conditions {
			if c.Status == "True" {
				states = append(states, c.Type)
			}
		}
		fmt.Println(ps.Policy.Name, strings.Join(states, ","))
	}
	// Output:
	// b1 via r1: blue (set by default/p2)
	// b1 via r2: red (set by default/p1)
	// b1 via r3: yellow (set by default/p3)
	// b2 via r4: yellow (set by default/p3)
	// p1 Accepted,PartiallyEnforced
	// p2 Accepted,Enforced
	// p3 Accepted,Enforced
	// p4 Accepted,Overridden
}
