package values

import (
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/strata-dev/strata/pkg/engine/policykind"
)

// The renderer stacks configs at the ranks the value space declares, so
// `render --values` and the engine order them alike (issue 11, "One
// answer from every command").
func TestRanksAsDeclared(t *testing.T) {
	b, err := os.ReadFile("../../../config/blueprints/policykinds.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"GatewayClassBlueprint": RankBlueprint, "GatewayClassConfig": RankGatewayClassConfig, "GatewayConfig": RankGatewayConfig}
	for _, doc := range strings.Split(string(b), "\n---\n") {
		var d policykind.Declaration
		if err := yaml.UnmarshalStrict([]byte(doc), &d); err != nil {
			t.Fatal(err)
		}
		k, err := policykind.Compile(&d)
		if err != nil {
			t.Fatal(err)
		}
		if k.Space() != "blueprints.strata.dev/values" || k.Rank() != want[k.Kind] {
			t.Errorf("%s: value space %q rank %d; the renderer stacks it at rank %d of blueprints.strata.dev/values", k.Kind, k.Space(), k.Rank(), want[k.Kind])
		}
		delete(want, k.Kind)
	}
	if len(want) > 0 {
		t.Errorf("not declared: %v", want)
	}
}
