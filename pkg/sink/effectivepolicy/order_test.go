package effectivepolicy

import (
	"bytes"
	"testing"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
)

// TestContextsSortedByPath: every target's contexts are in the order of
// their paths' keys, whether they are few (sorted by keys made at each
// comparison) or many (sorted by keys made once each): in a world whose
// few Services are the backends of many routes, and in a world of as
// many Services as routes.
func TestContextsSortedByPath(t *testing.T) {
	few, many := 0, 0
	for _, w := range contextWorlds(t) {
		order(t, w.res, &few, &many)
	}
	if few == 0 || many == 0 {
		t.Fatalf("the worlds have %d targets with a few contexts and %d with many; the test needs both", few, many)
	}
}

// contextWorld is a run of one of contextWorlds, with its sizes.
type contextWorld struct {
	sizes synth.Sizes
	res   *engine.Result
}

// contextWorlds are the runs of a world whose few Services are the
// backends of many routes (targets with many contexts) and of a world
// of as many Services as routes (targets with a few).
func contextWorlds(t *testing.T) []contextWorld {
	t.Helper()
	var out []contextWorld
	for _, sizes := range []synth.Sizes{
		{Namespaces: 2, Gateways: 4, Routes: 120, Services: 12, Policies: 40},
		{Namespaces: 3, Gateways: 6, Routes: 60, Services: 60, Policies: 40},
	} {
		res, err := engine.Run(synth.Generate(sizes, 1), engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, contextWorld{sizes, res})
	}
	return out
}

func order(t *testing.T, res *engine.Result, few, many *int) {
	t.Helper()
	for _, ep := range Build(res) {
		for _, kp := range ep.Policies {
			if n := len(kp.Contexts); n > fewContexts {
				*many++
			} else if n > 1 {
				*few++
			}
			for i := 1; i < len(kp.Contexts); i++ {
				a, b := appendPathKey(nil, kp.Contexts[i-1].Path), appendPathKey(nil, kp.Contexts[i].Path)
				if bytes.Compare(a, b) >= 0 {
					t.Errorf("%s/%s %s: context %d (%s) not before %d (%s)", ep.Namespace, ep.Name, kp.Kind, i-1, a, i, b)
				}
			}
		}
	}
}
