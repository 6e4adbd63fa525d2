package merge_test

import (
	"fmt"
	"sort"

	"github.com/strata-dev/strata/pkg/engine/merge"
)

// author is a merge.Source: merge stores it in provenance and never
// looks into it (the engine's sources are its policies).
type author string

func (a author) ID() string { return string(a) }

// show prints a Value's leaves with who set each one, in pointer order.
func show(v merge.Value) {
	var ptrs []string
	for p := range v.Prov {
		ptrs = append(ptrs, p)
	}
	sort.Strings(ptrs)
	for _, p := range ptrs {
		got, _ := merge.Get(v.Values, p)
		fmt.Printf("%s = %v (%s)\n", p, got, v.Prov[p].ID())
	}
}

// Fold a Gateway's defaults under a route's: with Patch the more specific
// value wins field by field and the others are kept (GEP-713 "Scalar
// values (Patch)"); with Atomic it replaces the lower value whole
// (GEP-713 "Atomic spec").
func ExamplePatch() {
	gw := merge.Of(map[string]any{"request": "10s", "idle": "60s"}, author("gw-timeouts"))
	route := merge.Of(map[string]any{"request": "30s"}, author("web-timeouts"))
	fmt.Println("Patch:")
	show(merge.Patch(gw, route))
	fmt.Println("Atomic:")
	show(merge.Atomic(gw, route))
	// Output:
	// Patch:
	// /idle = 60s (gw-timeouts)
	// /request = 30s (web-timeouts)
	// Atomic:
	// /request = 30s (web-timeouts)
}

// An override locks the pointers it sets: PatchDefaults merges a more
// specific default over the fold so far and puts the locked pointers back
// (GEP-713 "Merge strategies": with Overrides, "less specific specs beats
// more specific ones").
func ExamplePatchDefaults() {
	override := merge.Of(map[string]any{"idle": "30s"}, author("gw-timeouts"))
	route := merge.Of(map[string]any{"request": "30s", "idle": "120s"}, author("web-timeouts"))
	show(merge.PatchDefaults(override, route, map[string]bool{"/idle": true}))
	// Output:
	// /idle = 30s (gw-timeouts)
	// /request = 30s (web-timeouts)
}
