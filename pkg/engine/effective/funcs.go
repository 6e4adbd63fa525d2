package effective

import (
	"fmt"

	"github.com/strata-dev/strata/pkg/engine/merge"
	"github.com/strata-dev/strata/pkg/engine/policykind"
)

// Funcs resolves the merge function of every atomicity kind k supports:
// Atomic and Patch built in, its custom atomicities (spec.strategies.custom)
// from the registry. merge knows nothing of kinds; this is where a kind's
// declaration meets it.
func Funcs(r merge.Registry, k *policykind.Kind) (map[string]merge.Func, error) {
	custom := make(map[string]merge.Custom, len(k.Custom))
	for n, c := range k.Custom {
		custom[n] = merge.Custom{Function: c.Function, Parameters: c.Parameters}
	}
	out, err := r.Funcs(custom)
	if err != nil {
		return nil, fmt.Errorf("kind %s: %w", k.Kind, err)
	}
	out[policykind.Atomic], out[policykind.Patch] = merge.Atomic, merge.Patch
	return out, nil
}
