package policykind_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/strata-dev/strata/pkg/engine/policykind"
)

// Compile a policy kind declared as data (docs/policy-kinds.md, "1. A
// PolicyKind object") and read one of its policies through it: the
// declaration says which kinds it targets, where it takes effect and how
// blocks merge. A block naming no strategy merges with the atomicity of
// the kind's default (Patch here), as a default or an override by where
// it is (GEP-713 "Merge strategies").
func ExampleCompile() {
	var d policykind.Declaration
	if err := yaml.UnmarshalStrict([]byte(`
apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: timeoutpolicies.example.com}
spec:
  group: example.com
  kind: TimeoutPolicy
  targetKinds: [{group: gateway.networking.k8s.io, kind: Gateway}, {group: gateway.networking.k8s.io, kind: HTTPRoute}]
  effectiveTargetKind: {group: gateway.networking.k8s.io, kind: HTTPRoute}
  strategies: {default: PatchDefaults}
`), &d); err != nil {
		panic(err)
	}
	k, err := policykind.Compile(&d)
	if err != nil {
		panic(err)
	}
	fmt.Println(k.Key(), "takes effect on", k.EffectiveKinds(), "by default with", k.Default)

	var u unstructured.Unstructured
	if err := yaml.Unmarshal([]byte(`
apiVersion: example.com/v1
kind: TimeoutPolicy
metadata: {name: gw-timeouts, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  defaults: {request: 10s, idle: 60s}
  overrides: {idle: 30s}
`), &u.Object); err != nil {
		panic(err)
	}
	p := k.Read(&u)
	fmt.Println(p.ID(), "targets", p.TargetRefs[0].Kind, p.TargetRefs[0].Name)
	for _, b := range p.Blocks {
		fmt.Println(" ", b.Field, b.Strategy, b.Values)
	}
	// Output:
	// TimeoutPolicy.example.com takes effect on [HTTPRoute.gateway.networking.k8s.io] by default with PatchDefaults
	// shop/gw-timeouts targets Gateway gw
	//   spec.overrides PatchOverrides map[idle:30s]
	//   spec.defaults PatchDefaults map[idle:60s request:10s]
}

// A CRD carrying GEP-713's label is a declaration too (GEP-713 "Standard
// label on CRD objects"; docs/policy-kinds.md, "2. A CRD labelled"): the
// label gives the class, any kind may be targeted, and Strata reads such a
// kind for discoverability only, writing no status (Managed=false).
func ExampleFromCRD() {
	var crd unstructured.Unstructured
	if err := yaml.Unmarshal([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: timeoutpolicies.example.com
  labels: {gateway.networking.k8s.io/policy: Inherited}
spec:
  group: example.com
  scope: Namespaced
  names: {kind: TimeoutPolicy, plural: timeoutpolicies}
`), &crd.Object); err != nil {
		panic(err)
	}
	d, err := policykind.FromCRD(&crd)
	if err != nil {
		panic(err)
	}
	k, err := policykind.Compile(d)
	if err != nil {
		panic(err)
	}
	fmt.Println(k.Key(), k.Class, "managed:", k.Managed, "any target:", len(k.TargetKinds) == 0)
	// Output:
	// TimeoutPolicy.example.com Inherited managed: false any target: true
}
