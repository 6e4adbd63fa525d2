package engine_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/source/files"
)

// retryWorld is a namespace with one Service, and RetryPolicy declared by
// a PolicyKind (Inherited: defaults and overrides blocks).
const retryWorld = `
apiVersion: v1
kind: Namespace
metadata: {name: app}
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: app}
spec: {ports: [{name: http, port: 80}]}
---
apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: retrypolicies.policies.example.com}
spec:
  group: policies.example.com
  kind: RetryPolicy
  class: Inherited
  targetKinds: [{group: "", kind: Namespace}, {group: "", kind: Service}]
`

// retryCRD is RetryPolicy's CRD, with a schema as a platform team would
// write it: typed blocks, an enum, a required field, a bounded list and
// a CEL rule.
const retryCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: retrypolicies.policies.example.com}
spec:
  group: policies.example.com
  scope: Namespaced
  names: {kind: RetryPolicy, plural: retrypolicies}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [targetRefs]
            properties:
              targetRefs:
                type: array
                maxItems: 2
                items:
                  type: object
                  required: [kind, name]
                  properties:
                    group: {type: string}
                    kind: {type: string}
                    name: {type: string}
              defaults: &block
                type: object
                x-kubernetes-validations:
                - rule: "!has(self.attempts) || self.attempts <= 10"
                  message: at most 10 attempts
                properties:
                  attempts: {type: integer}
                  backoff: {type: string, enum: [fixed, exponential]}
              overrides: *block
`

// openKind is OpenPolicy, whose CRD's schema keeps any field of the spec,
// as the GEP-713 examples' ColorPolicy CRD does.
const openKind = `
apiVersion: strata.dev/v1alpha1
kind: PolicyKind
metadata: {name: openpolicies.policies.example.com}
spec: {group: policies.example.com, kind: OpenPolicy}
`

const openCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: openpolicies.policies.example.com}
spec:
  group: policies.example.com
  scope: Namespaced
  names: {kind: OpenPolicy, plural: openpolicies}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

// retry is a RetryPolicy in namespace app targeting it, with spec lines
// after targetRefs.
func retry(apiVersion, spec string) string {
	return "apiVersion: " + apiVersion + "\nkind: RetryPolicy\nmetadata: {name: p, namespace: app}\nspec:\n  targetRefs: [{group: '', kind: Namespace, name: app}]\n" + spec
}

// Issue 11, "Objects that must be refused or flagged": offline, a policy
// is admitted against its CRD's openAPIV3Schema as the API server would
// (unknown fields dropped with a warning, violations Invalid naming the
// field); without a schema, fields its kind does not expect are warned
// about.
func TestPolicyAdmission(t *testing.T) {
	tests := []struct {
		name     string
		crd      bool
		policy   string
		fields   []string // the fields of the policy's blocks, as block.field
		invalid  []string // substrings of Policy.Invalid, in order
		warnings []string // substrings of Policy.Warnings, in order
	}{
		{
			name:   "valid",
			crd:    true,
			policy: retry("policies.example.com/v1", "  defaults: {attempts: 3, backoff: fixed}\n"),
			fields: []string{"spec.defaults.attempts", "spec.defaults.backoff"},
		},
		{
			name:     "typo default for defaults is dropped, not read as a field",
			crd:      true,
			policy:   retry("policies.example.com/v1", "  default: {attempts: 3}\n"),
			fields:   []string{},
			warnings: []string{`unknown field "spec.default": not in the schema of CustomResourceDefinition retrypolicies.policies.example.com`},
		},
		{
			name:     "unknown field in a block",
			crd:      true,
			policy:   retry("policies.example.com/v1", "  defaults: {attempts: 3, atempts: 4}\n"),
			fields:   []string{"spec.defaults.attempts"},
			warnings: []string{`unknown field "spec.defaults.atempts"`},
		},
		{
			name:     "wrong type",
			crd:      true,
			policy:   retry("policies.example.com/v1", "  defaults: {attempts: three}\n"),
			invalid:  []string{`spec.defaults.attempts: Invalid value: "string": spec.defaults.attempts in body must be of type integer`},
			warnings: []string{"spec.defaults.attempts: Invalid value: \"string\": spec.defaults.attempts in body must be of type integer: \"string\"; the API server would refuse it: Invalid"},
		},
		{
			name:     "not in the enum",
			crd:      true,
			policy:   retry("policies.example.com/v1", "  overrides: {backoff: linear}\n"),
			invalid:  []string{`spec.overrides.backoff: Unsupported value: "linear": supported values: "fixed", "exponential"`},
			warnings: []string{"spec.overrides.backoff: Unsupported value"},
		},
		{
			name:     "too many items",
			crd:      true,
			policy:   strings.Replace(retry("policies.example.com/v1", ""), "[{group: '', kind: Namespace, name: app}]", "[{kind: Namespace, name: app}, {kind: Service, name: svc}, {kind: Service, name: other}]", 1),
			invalid:  []string{"spec.targetRefs: Too many: 3: must have at most 2 items"},
			warnings: []string{"spec.targetRefs: Too many"},
		},
		{
			name:     "required field missing",
			crd:      true,
			policy:   strings.Replace(retry("policies.example.com/v1", ""), "name: app}", "}", 1),
			invalid:  []string{`spec.targetRefs[0].name: Required value`, "spec.targetRefs[0]: name or selector is required"},
			warnings: []string{`spec.targetRefs[0].name: Required value`},
		},
		{
			name:     "CEL rule",
			crd:      true,
			policy:   retry("policies.example.com/v1", "  defaults: {attempts: 11}\n"),
			invalid:  []string{"spec.defaults: Invalid value: at most 10 attempts"},
			warnings: []string{"at most 10 attempts"},
		},
		{
			name:     "version the CRD does not define",
			crd:      true,
			policy:   retry("policies.example.com/v2", "  defaults: {attempts: 3}\n"),
			fields:   []string{"spec.defaults.attempts"},
			invalid:  []string{"apiVersion: CustomResourceDefinition retrypolicies.policies.example.com has no version v2 (versions: v1)"},
			warnings: []string{"has no version v2"},
		},
		{
			name:     "without a schema, a typo of defaults is warned about",
			policy:   retry("policies.example.com/v1", "  default: {attempts: 3}\n"),
			fields:   []string{"spec.default"},
			warnings: []string{"spec.default: not a field RetryPolicy declares; did you mean defaults? (read as a default field)"},
		},
		{
			name:     "without a schema, bare fields beside overrides are warned about",
			policy:   retry("policies.example.com/v1", "  overrides: {attempts: 3}\n  backoff: fixed\n"),
			fields:   []string{"spec.backoff", "spec.overrides.attempts"},
			warnings: []string{"spec.backoff: a field beside spec.overrides is read as a default; put it in spec.defaults to say so"},
		},
		{
			name:     "a schema that keeps any spec field is no schema for typos",
			crd:      true,
			policy:   strings.Replace(retry("policies.example.com/v1", "  default: {attempts: 3}\n"), "RetryPolicy", "OpenPolicy", 1),
			fields:   []string{"spec.default"},
			warnings: []string{"spec.default: not a field OpenPolicy declares; did you mean defaults? (read as a default field)"},
		},
		{
			name:   "without a schema, bare fields alone are defaults",
			policy: retry("policies.example.com/v1", "  attempts: 3\n"),
			fields: []string{"spec.attempts"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			docs := []string{retryWorld, openKind, tc.policy}
			if tc.crd {
				docs = append(docs, retryCRD, openCRD)
			}
			res := runYAML(t, docs...)
			if len(res.Policies) != 1 {
				t.Fatalf("%d policies", len(res.Policies))
			}
			p := res.Policies[0]
			if tc.fields != nil {
				if got := blockFields(p); !slices.Equal(got, tc.fields) {
					t.Errorf("fields %q, want %q", got, tc.fields)
				}
			}
			check := func(what string, got, want []string) {
				t.Helper()
				if len(got) != len(want) {
					t.Errorf("%s %q, want %d matching %q", what, got, len(want), want)
					return
				}
				for i := range want {
					if !strings.Contains(got[i], want[i]) {
						t.Errorf("%s[%d] %q does not contain %q", what, i, got[i], want[i])
					}
				}
			}
			invalid := p.Invalid
			if !tc.crd {
				invalid = nil // without a schema, only Read's own checks
			}
			check("Invalid", invalid, tc.invalid)
			check("Warnings", p.Warnings, tc.warnings)
		})
	}
}

// blockFields lists the fields of a policy's blocks, sorted, as
// block.field.
func blockFields(p *policykind.Policy) []string {
	out := []string{}
	for _, b := range p.Blocks {
		for k := range b.Values {
			out = append(out, b.Field+"."+k)
		}
	}
	slices.Sort(out)
	return out
}

// A declaration that does not compile is an error that names its
// declaring object, so that the CLI can name the file and document it
// was read from (issue 11).
func TestDeclarationErrors(t *testing.T) {
	tests := []struct {
		name string
		docs string
		want []engine.DeclarationError // Err is compared by its text
	}{
		{
			name: "PolicyKind that does not compile",
			docs: "apiVersion: strata.dev/v1alpha1\nkind: PolicyKind\nmetadata: {name: bad}\nspec: {group: g.example.com, kind: K, class: Weird}\n",
			want: []engine.DeclarationError{{Group: "strata.dev", Kind: "PolicyKind", Name: "bad", Err: errors.New(`PolicyKind bad: spec.class: "Weird" is not Direct or Inherited`)}},
		},
		{
			name: "two PolicyKinds for one kind",
			docs: "apiVersion: strata.dev/v1alpha1\nkind: PolicyKind\nmetadata: {name: a}\nspec: {group: g.example.com, kind: K}\n---\napiVersion: strata.dev/v1alpha1\nkind: PolicyKind\nmetadata: {name: b}\nspec: {group: g.example.com, kind: K}\n",
			want: []engine.DeclarationError{{Group: "strata.dev", Kind: "PolicyKind", Name: "b", Err: errors.New("PolicyKind b: declares K.g.example.com, already declared by PolicyKind a")}},
		},
		{
			name: "labelled CRD without a kind",
			docs: "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ks.g.example.com\n  labels: {gateway.networking.k8s.io/policy: inherited}\nspec: {group: g.example.com}\n",
			want: []engine.DeclarationError{{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition", Name: "ks.g.example.com", Err: errors.New("CustomResourceDefinition ks.g.example.com: spec.group and spec.names.kind are required")}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src, err := files.Read([]string{"-"}, strings.NewReader(tc.docs))
			if err != nil {
				t.Fatal(err)
			}
			_, errs := engine.KindsWith(src.Snapshot, "", nil)
			if len(errs) != len(tc.want) {
				t.Fatalf("errors %v, want %d", errs, len(tc.want))
			}
			for i, e := range errs {
				var d *engine.DeclarationError
				if !errors.As(e, &d) {
					t.Fatalf("error %v is not a DeclarationError", e)
				}
				w := tc.want[i]
				if d.Group != w.Group || d.Kind != w.Kind || d.Name != w.Name || d.Error() != w.Err.Error() {
					t.Errorf("error %+v (%q), want %+v (%q)", *d, d.Error(), w, w.Err.Error())
				}
			}
		})
	}
}
