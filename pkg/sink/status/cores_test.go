package status_test

import (
	"reflect"
	"runtime"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/strata-dev/strata/internal/synth"
	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/sink/status"
)

// TestFragmentsOnEveryCore checks that the fragments, the targets'
// objects and the policies' ancestors built on several cores are, in
// order, the ones built on one, on a world with more affected objects
// and policies than one core takes at a time.
func TestFragmentsOnEveryCore(t *testing.T) {
	s := synth.Generate(synth.Sizes{Namespaces: 6, Gateways: 12, Routes: 1500, Services: 1500, Policies: 600}, 3)
	res, err := engine.Run(s, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fragments := func(procs int) []*status.Fragment {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		return status.Fragments(res, now)
	}
	one, every := fragments(1), fragments(4)
	if len(one) < 1000 {
		t.Fatalf("only %d fragments: the world is too small to share out", len(one))
	}
	if !reflect.DeepEqual(one, every) {
		t.Fatalf("%d fragments on one core, %d on every core: they differ", len(one), len(every))
	}
	targets := func(procs int) []*unstructured.Unstructured {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		return status.Targets(res, now)
	}
	if a, b := targets(1), targets(4); !reflect.DeepEqual(a, b) {
		t.Fatalf("%d targets' objects on one core, %d on every core: they differ", len(a), len(b))
	}
	// The policies' entries too: 600 policies are more than a core
	// takes at a time.
	ancestors := func(procs int) []status.PolicyStatus {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		return status.Ancestors(res, now)
	}
	if a, b := ancestors(1), ancestors(4); len(a) < 500 || !reflect.DeepEqual(a, b) {
		t.Fatalf("%d policies' ancestors on one core, %d on every core: too few, or they differ", len(a), len(b))
	}
}
