package query_test

import (
	"fmt"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/source/files"
)

// Describe Service b2 of GEP-713's third example: which policies affect
// it, and who set each field of its effective ColorPolicy.
func ExampleDescribe() {
	src, err := files.Read([]string{"../../examples/gep-713/example-3"}, nil)
	if err != nil {
		panic(err)
	}
	res, err := engine.Run(src.Snapshot, engine.Options{})
	if err != nil {
		panic(err)
	}
	b2, err := query.Resolve(res, "svc/b2", "default")
	if err != nil {
		panic(err)
	}
	d := query.Describe(res, b2.Node)
	for _, p := range d.Policies {
		fmt.Printf("%s %s: %s, attached to %s\n", p.Policy.Kind, p.Policy.ID(), p.Relation, p.AttachedTo[0])
	}
	for _, f := range d.Effective[0].Targets[0].Contexts[0].Fields {
		fmt.Printf("%s = %v, set by %s, beaten: %v\n", f.Field, f.Value, f.SetBy, f.Beaten)
	}
	// Output:
	// ColorPolicy default/p3: Inherited, attached to Gateway default/g2
	// ColorPolicy default/p4: Inherited, attached to HTTPRoute default/r4
	// /colors/dark = olive, set by default/p4, beaten: []
	// /colors/light = yellow, set by default/p3, beaten: [default/p4]
}
