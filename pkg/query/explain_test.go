package query_test

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/strata-dev/strata/pkg/query"
)

// explain's answer on GEP-713's example 3: a field in force, a field set
// nowhere, an unknown --kind, and a field set nowhere Strata could look
// while a policy kind could not be read (an IncompleteError, not "not
// set").
func TestRunExplain(t *testing.T) {
	res := run(t, example3)
	b2 := node(t, res, "service/b2", "default")
	hidden := query.Seen{HiddenKinds: []schema.GroupKind{{Group: "policies.cupcakes.example", Kind: "RetryPolicy"}}}
	for _, c := range []struct {
		name, field, kind string
		seen              query.Seen
		chains            int
		err               string
		incomplete        bool
	}{
		{name: "in force", field: "/colors/light", chains: 1},
		{name: "of one kind", field: "/colors/light", kind: "colorpolicy", chains: 1},
		{name: "set nowhere", field: "/nope", err: "field /nope is not set on Service default/b2 by any policy"},
		{name: "an unknown kind", field: "/colors/light", kind: "nopepolicy", err: `--kind "nopepolicy": unknown policy kind "nopepolicy"`},
		{name: "set nowhere seen", field: "/nope", seen: hidden, err: "field /nope is not set", incomplete: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			x, err := query.RunExplain(res, query.ExplainRequest{Node: b2, Arg: "service/b2", Field: c.field, Kind: c.kind}, c.seen, nil)
			if c.err != "" {
				var inc *query.IncompleteError
				if err == nil || !strings.Contains(err.Error(), c.err) || errors.As(err, &inc) != c.incomplete {
					t.Fatalf("error %v, want %q (incomplete %v)", err, c.err, c.incomplete)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(x.Chains) != c.chains || x.Field != c.field || x.Object.Name != "b2" {
				t.Errorf("%d chains of %s on %s, want %d of %s on b2", len(x.Chains), x.Field, x.Object.Name, c.chains, c.field)
			}
		})
	}
}
