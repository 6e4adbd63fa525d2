package engine_test

import (
	"os"
	"strings"
	"testing"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/source/files"
)

// FuzzRun feeds arbitrary documents next to GEP-713's third example: the
// reader may refuse them with an error, but neither reading nor the engine
// may panic, whatever a policy's spec holds.
func FuzzRun(f *testing.F) {
	kind, err := os.ReadFile("../../examples/gep-713/example-3/kind.yaml")
	if err != nil {
		f.Fatal(err)
	}
	scenario, err := os.ReadFile("../../examples/gep-713/example-3/scenario.yaml")
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		"apiVersion: policies.controller.io/v1\nkind: ColorPolicy\nmetadata: {name: x, namespace: default}\nspec: {targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g1}], overrides: {colors: null, strategy: patch}}",
		"apiVersion: policies.controller.io/v1\nkind: ColorPolicy\nmetadata: {name: x, namespace: default}\nspec: {targetRef: {kind: HTTPRoute, name: r1, sectionName: rule-0}, defaults: [1, 2]}",
		"apiVersion: policies.controller.io/v1\nkind: ColorPolicy\nmetadata: {name: x, namespace: default}\nspec: {targetRefs: {a: b}, strategy: 7}",
		"apiVersion: policies.controller.io/v1\nkind: ColorPolicy\nmetadata: {name: x}\nspec: {targetRefs: [{group: '', kind: Namespace, selector: {matchExpressions: [{key: a, operator: Bogus}]}}]}",
		"apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r9, namespace: default}\nspec: {parentRefs: [{name: g1, sectionName: http, port: 80}], rules: [{name: rule-0}, {}]}",
		"apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: Service, metadata: {name: b1, namespace: default}}]",
		// A kind with a strict schema (admission as the API server would),
		// and one whose CRD is malformed.
		retryWorld + "\n---\n" + retryCRD + "\n---\n" + retry("policies.example.com/v1", "  default: {attempts: 3}\n  defaults: {attempts: x, backoff: [1]}\n"),
		"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: xs.policies.controller.io}\nspec: {group: policies.controller.io, names: {kind: ColorPolicy}, versions: [{name: v1, schema: {openAPIV3Schema: {type: 5}}}]}",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		in := string(kind) + "\n---\n" + string(scenario) + "\n---\n" + doc
		src, err := files.Read([]string{"-"}, strings.NewReader(in))
		if err != nil {
			return
		}
		_, _ = engine.Run(src.Snapshot, engine.Options{})
	})
}
