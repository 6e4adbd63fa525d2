package effective

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/strata-dev/strata/pkg/engine/merge"
	"github.com/strata-dev/strata/pkg/engine/policykind"
)

// Funcs resolves the merge function of every atomicity kind k supports:
// Atomic and Patch, its custom atomicities from the registry, and
// StrategicMergePatch when its spec.childMerge maps a value to it, reading
// meta (the kind's CRD schema, or nil) and spec.childMerge.listKeys.
func Funcs(r merge.Registry, k *policykind.Kind, meta strategicpatch.LookupPatchMeta) (map[string]merge.Func, error) {
	custom := make(map[string]merge.Custom, len(k.Custom))
	for n, c := range k.Custom {
		custom[n] = merge.Custom{Function: c.Function, Parameters: c.Parameters}
	}
	out, err := r.Funcs(custom)
	if err != nil {
		return nil, fmt.Errorf("kind %s: %w", k.Kind, err)
	}
	out[policykind.Atomic], out[policykind.Patch] = merge.Atomic, merge.Patch
	if cm := k.ChildMerge; cm != nil && slices.Contains(slices.Collect(maps.Values(cm.Values)), policykind.StrategicMergePatch) {
		out[policykind.StrategicMergePatch] = merge.StrategicMerge(merge.WithListKeys(meta, cm.ListKeys))
	}
	return out, nil
}
