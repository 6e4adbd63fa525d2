package policykind

import (
	"os"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
)

// TestCompileRefuses pins the declarations Compile must refuse: each case
// is one error naming the PolicyKind, the field and what is wrong.
func TestCompileRefuses(t *testing.T) {
	gateway := strata.GroupKind{Group: "gateway.networking.k8s.io", Kind: "Gateway"}
	httpRoute := strata.GroupKind{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute"}
	grpcRoute := strata.GroupKind{Group: "gateway.networking.k8s.io", Kind: "GRPCRoute"}
	tests := []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"both effective target fields", func(s *Spec) { s.EffectiveTargetKind, s.EffectiveTargetKinds = &gateway, []strata.GroupKind{gateway} },
			`spec.effectiveTargetKinds: set this or spec.effectiveTargetKind, not both`},
		{"an effective target kind twice", func(s *Spec) {
			s.EffectiveTargetKind = nil
			s.EffectiveTargetKinds = []strata.GroupKind{httpRoute, httpRoute}
		},
			`spec.effectiveTargetKinds[1]: HTTPRoute.gateway.networking.k8s.io is listed twice`},
		{"contexts neither Path nor Target", func(s *Spec) { s.Contexts = "Sometimes" },
			`spec.contexts: "Sometimes" is not Path or Target`},
		{"referenced by a kind outside the hierarchy", func(s *Spec) {
			s.ReferencedBy = []ReferenceField{{Group: "example.io", Kind: "Thing", Field: "spec.ref"}}
		}, `spec.referencedBy[0]: Thing.example.io is not a kind of Strata's hierarchy; only its objects are read for references`},
		{"referenced by a kind it may not target", func(s *Spec) {
			s.TargetKinds = []strata.GroupKind{gateway}
			s.ReferencedBy = []ReferenceField{{Group: "gateway.networking.k8s.io", Kind: "GatewayClass", Field: "spec.parametersRef"}}
		}, `spec.referencedBy[0]: GatewayClass.gateway.networking.k8s.io is not in spec.targetKinds`},
		{"referenced through a bad path", func(s *Spec) {
			s.ReferencedBy = []ReferenceField{{Group: "gateway.networking.k8s.io", Kind: "Gateway", Field: "spec..ref"}}
		}, `spec.referencedBy[0].field: "spec..ref" is not a dotted path: segment 2 is empty`},
		{"value space without a name", func(s *Spec) { s.ValueSpace = &ValueSpace{Rank: 1} },
			`spec.valueSpace.name: required`},
		{"value space rank out of range", func(s *Spec) { s.ValueSpace = &ValueSpace{Name: "v", Rank: MaxRank + 1} },
			`spec.valueSpace.rank: 101 is not between 0 and 100`},
		{"fields.spec with an empty segment and an index", func(s *Spec) { s.Fields.Spec = "spec..x[0]" },
			`spec.fields.spec: "spec..x[0]" is not a dotted path: segment 2 is empty`},
		{"fields.spec of dots and slashes", func(s *Spec) { s.Fields.Spec = "../../" },
			`spec.fields.spec: "../../" is not a dotted path: segment 1 is empty`},
		{"fields.spec with a list index", func(s *Spec) { s.Fields.Spec = "spec.x[0]" },
			`spec.fields.spec: "spec.x[0]" is not a dotted path: segment "x[0]" has brackets; write a list index as a segment of its own (rules.0)`},
		{"fields.spec with a negative index", func(s *Spec) { s.Fields.Spec = "spec.-1" },
			`spec.fields.spec: "spec.-1" is not a dotted path: segment "-1" is a negative index`},
		{"fields.spec is metadata", func(s *Spec) { s.Fields.Spec = "metadata" },
			`spec.fields.spec: "metadata" is the object's metadata, not where its spec lives`},
		{"fields.spec under status", func(s *Spec) { s.Fields.Spec = "status.spec" },
			`spec.fields.spec: "status.spec" is the object's status, not where its spec lives`},
		{"fields.defaults is a nested path", func(s *Spec) { s.Fields.Defaults = "a.b" },
			`spec.fields.defaults: "a.b" must be one field name of the object at spec.fields.spec ("spec"); nested paths are not read`},
		{"fields.ignored has an empty entry", func(s *Spec) { s.Fields.Ignored = []string{"x", ""} },
			`spec.fields.ignored[1]: "" must be one field name of the object at spec.fields.spec ("spec"); nested paths are not read`},
		{"same field for defaults and overrides", func(s *Spec) { s.Fields.Defaults, s.Fields.Overrides = "values", "values" },
			`spec.fields.overrides: "values" is also spec.fields.defaults; each part of a policy needs its own field`},
		{"strategy field is the overrides block", func(s *Spec) { s.Fields.Strategy = "overrides" },
			`spec.fields.strategy: "overrides" is also spec.fields.overrides; each part of a policy needs its own field`},
		{"defaults block at targetRefs", func(s *Spec) { s.Fields.Defaults = "targetRefs" },
			`spec.fields.defaults: "targetRefs" is where a policy's targets live; each part of a policy needs its own field`},
		{"targetFields path with an empty segment", func(s *Spec) { s.TargetFields = map[string]string{"retryOn": "spec..codes"} },
			`spec.targetFields[retryOn]: "spec..codes" is not a dotted path: segment 2 is empty`},
		{"targetFields path with a negative index", func(s *Spec) { s.TargetFields = map[string]string{"retryOn": "spec.rules.-1.retry.codes"} },
			`spec.targetFields[retryOn]: "spec.rules.-1.retry.codes" is not a dotted path: segment "-1" is a negative index`},
		{"targetFields path with brackets", func(s *Spec) { s.TargetFields = map[string]string{"retryOn": "spec.rules[0].retry"} },
			`spec.targetFields[retryOn]: "spec.rules[0].retry" is not a dotted path: segment "rules[0]" has brackets; write a list index as a segment of its own (rules.0)`},
		{"targetFields path empty", func(s *Spec) { s.TargetFields = map[string]string{"retryOn": ""} },
			`spec.targetFields[retryOn]: "" is not a dotted path: it is empty`},
		{"targetFields key is a path", func(s *Spec) { s.TargetFields = map[string]string{"retry.on": "spec.retry"} },
			`spec.targetFields: key "retry.on" must be one field name of the spec proper`},
		{"controllerName without a path", func(s *Spec) { s.ControllerName = "example.com" },
			`spec.controllerName: "example.com" must be DOMAIN/PATH of at most 253 characters (Gateway API's controller name form, e.g. example.com/gateway-controller)`},
		{"controllerName whose domain is not one", func(s *Spec) { s.ControllerName = "Example_Com/gw" },
			`spec.controllerName: "Example_Com/gw" must be DOMAIN/PATH of at most 253 characters (Gateway API's controller name form, e.g. example.com/gateway-controller)`},
		{"controllerName with a space in its path", func(s *Spec) { s.ControllerName = "example.com/my gw" },
			`spec.controllerName: "example.com/my gw" must be DOMAIN/PATH of at most 253 characters (Gateway API's controller name form, e.g. example.com/gateway-controller)`},
		{"childMerge field not a dotted path", func(s *Spec) {
			s.ChildMerge = &ChildMerge{Field: "spec..mergeType", Values: map[string]string{"JSONMerge": Patch}}
		}, `spec.childMerge.field: "spec..mergeType" is not a dotted path: segment 2 is empty`},
		{"childMerge field in status", func(s *Spec) {
			s.ChildMerge = &ChildMerge{Field: "status.mergeType", Values: map[string]string{"JSONMerge": Patch}}
		}, `spec.childMerge.field: "status.mergeType" is the object's status, not a field of the policy's spec`},
		{"childMerge field is the spec", func(s *Spec) {
			s.ChildMerge = &ChildMerge{Field: "spec", Values: map[string]string{"JSONMerge": Patch}}
		}, `spec.childMerge.field: "spec" is the spec itself (spec.fields.spec), not one field of it`},
		{"childMerge field inside the spec proper", func(s *Spec) {
			s.ChildMerge = &ChildMerge{Field: "spec.retry.mergeType", Values: map[string]string{"JSONMerge": Patch}}
		}, `spec.childMerge.field: "spec.retry.mergeType" is inside the spec proper (spec.retry); put it at the root of the spec or below a field of spec.fields.ignored`},
		{"childMerge field in the overrides block", func(s *Spec) {
			s.ChildMerge = &ChildMerge{Field: "spec.overrides.mergeType", Values: map[string]string{"JSONMerge": Patch}}
		}, `spec.childMerge.field: "spec.overrides.mergeType" is in spec.fields.overrides; the field that chooses the merge needs its own field`},
		{"childMerge field is the strategy field", func(s *Spec) {
			s.ChildMerge = &ChildMerge{Field: "spec.strategy", Values: map[string]string{"JSONMerge": Patch}}
		}, `spec.childMerge.field: "spec.strategy" is in spec.fields.strategy; the field that chooses the merge needs its own field`},
		{"childMerge to an unknown atomicity", func(s *Spec) {
			s.ChildMerge = &ChildMerge{Field: "spec.mergeType", Values: map[string]string{"JSONMerge": Patch, "Deep": "DeepMerge"}}
		}, `spec.childMerge.values[Deep]: atomicity "DeepMerge" is not Atomic, Patch, StrategicMergePatch or declared in spec.strategies.custom`},
		{"childMerge list key path with an empty segment", func(s *Spec) {
			s.ChildMerge = &ChildMerge{Field: "spec.mergeType", Values: map[string]string{"JSONMerge": Patch}, ListKeys: map[string]string{"extAuth..x": "name"}}
		}, `spec.childMerge.listKeys: key "extAuth..x" is not a dotted path: segment 2 is empty`},
		{"childMerge list key that is a path", func(s *Spec) {
			s.ChildMerge = &ChildMerge{Field: "spec.mergeType", Values: map[string]string{"JSONMerge": Patch}, ListKeys: map[string]string{"compression": "a.type"}}
		}, `spec.childMerge.listKeys[compression]: "a.type" must be one field name of the list's items`},
		{"childMerge without values", func(s *Spec) { s.ChildMerge = &ChildMerge{Field: "spec.mergeType"} },
			`spec.childMerge.values: required: map each value of spec.mergeType to an atomicity`},
		{"childMerge on a Direct kind", func(s *Spec) {
			s.Class, s.TargetKinds = Direct, []strata.GroupKind{gateway}
			s.ChildMerge = &ChildMerge{Field: "spec.mergeType", Values: map[string]string{"JSONMerge": Patch}}
		}, `spec.childMerge: a Direct kind merges with None only (GEP-713 "Classes of metaresources")`},
		{"effective kind no target reaches", func(s *Spec) {
			s.TargetKinds = []strata.GroupKind{httpRoute}
			s.EffectiveTargetKind = &grpcRoute
		}, `spec.effectiveTargetKind: no declared target kind can reach GRPCRoute.gateway.networking.k8s.io (HTTPRoute.gateway.networking.k8s.io is neither it nor above it in the hierarchy)`},
		{"effective kind above every target", func(s *Spec) {
			s.TargetKinds = []strata.GroupKind{httpRoute, grpcRoute}
			s.EffectiveTargetKind = &gateway
		}, `spec.effectiveTargetKind: no declared target kind can reach Gateway.gateway.networking.k8s.io (HTTPRoute.gateway.networking.k8s.io, GRPCRoute.gateway.networking.k8s.io are neither it nor above it in the hierarchy)`},
		{"effective kind one target cannot reach", func(s *Spec) {
			s.TargetKinds = []strata.GroupKind{gateway, grpcRoute}
			s.EffectiveTargetKind = &httpRoute
		}, `spec.targetKinds[1]: GRPCRoute.gateway.networking.k8s.io is neither the effective target kind HTTPRoute.gateway.networking.k8s.io nor above it in the hierarchy: it could never reach it`},
		{"effective kind cluster-scoped below a Namespace", func(s *Spec) {
			s.TargetKinds = []strata.GroupKind{{Kind: "Namespace"}}
			s.EffectiveTargetKind = &strata.GroupKind{Group: "gateway.networking.k8s.io", Kind: "GatewayClass"}
		}, `spec.effectiveTargetKind: no declared target kind can reach GatewayClass.gateway.networking.k8s.io (Namespace is neither it nor above it in the hierarchy)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &Declaration{Spec: Spec{Group: "policies.example.io", Kind: "RetryPolicy"}}
			d.Name = "retrypolicies.policies.example.io"
			tt.edit(&d.Spec)
			k, err := Compile(d)
			if err == nil {
				t.Fatalf("Compile accepted it: %+v", k.Spec)
			}
			want := "PolicyKind retrypolicies.policies.example.io: " + tt.want
			if err.Error() != want {
				t.Errorf("error\n got: %s\nwant: %s", err, want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("want one error, got several")
			}
		})
	}
}

// TestCompileAccepts keeps the forms the refusals must not catch.
func TestCompileAccepts(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Spec)
	}{
		{"defaults", func(*Spec) {}},
		{"nested spec and hyphenated fields", func(s *Spec) {
			s.Fields = Fields{Spec: "spec.policy", Defaults: "default", Overrides: "override", Strategy: "x-strata-strategy", Ignored: []string{"description"}}
		}},
		{"targetFields with list indexes and items", func(s *Spec) {
			s.TargetFields = map[string]string{"retryOn": "spec.rules.0.retry.codes", "timeout": "spec.rules[name=login].timeouts.request"}
		}},
		{"effective kind below a target", func(s *Spec) {
			s.TargetKinds = []strata.GroupKind{{Group: "gateway.networking.k8s.io", Kind: "Gateway"}, {Group: "gateway.networking.k8s.io", Kind: "HTTPRoute"}}
			s.EffectiveTargetKind = &strata.GroupKind{Kind: "Service"}
		}},
		{"Namespace and GatewayClass reach a Gateway", func(s *Spec) {
			s.TargetKinds = []strata.GroupKind{{Group: "gateway.networking.k8s.io", Kind: "GatewayClass"}, {Kind: "Namespace"}}
			s.EffectiveTargetKind = &strata.GroupKind{Group: "gateway.networking.k8s.io", Kind: "Gateway"}
		}},
		{"childMerge at the spec root, to every atomicity", func(s *Spec) {
			s.Strategies.Custom = []CustomStrategy{{Name: "RuleMerge", Function: "mergeByKey"}}
			s.ChildMerge = &ChildMerge{Field: "spec.mergeType", Values: map[string]string{"a": Atomic, "p": Patch, "s": StrategicMergePatch, "r": "RuleMerge"}}
		}},
		{"childMerge below an ignored field and outside the spec", func(s *Spec) {
			s.Fields.Ignored = []string{"options"}
			s.ChildMerge = &ChildMerge{Field: "spec.options.mergeType", Values: map[string]string{"JSONMerge": Patch}}
		}},
		{"childMerge beside a nested spec", func(s *Spec) {
			s.Fields.Spec = "spec.policy"
			s.ChildMerge = &ChildMerge{Field: "spec.mergeType", Values: map[string]string{"JSONMerge": Patch}}
		}},
		{"virtual targets", func(s *Spec) {
			s.TargetKinds = []strata.GroupKind{{Group: "example.io", Kind: "Fleet"}}
			s.EffectiveTargetKind = &strata.GroupKind{Group: "gateway.networking.k8s.io", Kind: "Gateway"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &Declaration{Spec: Spec{Group: "policies.example.io", Kind: "RetryPolicy"}}
			d.Name = "retrypolicies.policies.example.io"
			tt.edit(&d.Spec)
			if _, err := Compile(d); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// FuzzCompileFields checks that any spec.fields and targetFields either
// compile to a kind that reads a policy without panicking or are refused
// naming a field.
func FuzzCompileFields(f *testing.F) {
	f.Add("spec", "defaults", "overrides", "strategy", "retryOn", "spec.rules.0.retry.codes")
	f.Add("spec..x[0]", "a.b", "a.b", "", "", "../../")
	f.Fuzz(func(t *testing.T, spec, defaults, overrides, strategy, key, path string) {
		d := &Declaration{Spec: Spec{Group: "policies.example.io", Kind: "RetryPolicy",
			Fields:       Fields{Spec: spec, Defaults: defaults, Overrides: overrides, Strategy: strategy},
			TargetFields: map[string]string{key: path}}}
		d.Name = "retrypolicies.policies.example.io"
		k, err := Compile(d)
		if err != nil {
			if !strings.Contains(err.Error(), "spec.") {
				t.Fatalf("error names no field: %v", err)
			}
			return
		}
		if checkPath(k.Fields.Spec, false) != nil || !isName(k.Fields.Defaults) || k.Fields.Defaults == k.Fields.Overrides {
			t.Fatalf("accepted %+v", k.Fields)
		}
		u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"targetRefs": []any{map[string]any{"kind": "Gateway", "name": "g"}}}}}
		k.Read(u)
	})
}

// TestCompileDefaultStrategy pins GEP-713 "Merge strategies": a kind that
// declares no strategy and targets a single kind that is its effective
// kind MUST default to None; one that reaches several effective kinds, or
// one below its target, defaults to Atomic Defaults; a declared strategy
// is kept.
func TestCompileDefaultStrategy(t *testing.T) {
	gw := strata.GroupKind{Group: "gateway.networking.k8s.io", Kind: "Gateway"}
	route := strata.GroupKind{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute"}
	tests := []struct {
		name        string
		edit        func(*Spec)
		want        string
		wantSupport []string
	}{
		{"004 \"Merge strategies\": one target, no effective kind: None", func(s *Spec) {
			s.TargetKinds = []strata.GroupKind{gw}
		}, "None", []string{"None"}},
		{"004 \"Merge strategies\": one target that is the effective kind: None", func(s *Spec) {
			s.TargetKinds = []strata.GroupKind{gw}
			s.EffectiveTargetKind = &gw
		}, "None", []string{"None"}},
		{"one target above the effective kind: AtomicDefaults", func(s *Spec) {
			s.TargetKinds = []strata.GroupKind{gw}
			s.EffectiveTargetKind = &route
		}, "AtomicDefaults", []string{"AtomicDefaults", "AtomicOverrides", "PatchDefaults", "PatchOverrides"}},
		{"two targets: AtomicDefaults", func(s *Spec) {
			s.TargetKinds = []strata.GroupKind{gw, route}
			s.EffectiveTargetKind = &route
		}, "AtomicDefaults", []string{"AtomicDefaults", "AtomicOverrides", "PatchDefaults", "PatchOverrides"}},
		{"any target: AtomicDefaults", func(*Spec) {}, "AtomicDefaults", []string{"AtomicDefaults", "AtomicOverrides", "PatchDefaults", "PatchOverrides"}},
		{"one target, declared strategy kept", func(s *Spec) {
			s.TargetKinds = []strata.GroupKind{gw}
			s.Strategies.Default = "PatchDefaults"
		}, "PatchDefaults", []string{"AtomicDefaults", "AtomicOverrides", "PatchDefaults", "PatchOverrides"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &Declaration{Spec: Spec{Group: "policies.example.io", Kind: "RetryPolicy"}}
			d.Name = "retrypolicies.policies.example.io"
			tt.edit(&d.Spec)
			k, err := Compile(d)
			if err != nil {
				t.Fatal(err)
			}
			if got := k.Default.String(); got != tt.want {
				t.Errorf("default strategy %s, want %s", got, tt.want)
			}
			if got := sortedKeys(k.Supported); !slices.Equal(got, tt.wantSupport) {
				t.Errorf("supported %v, want %v", got, tt.wantSupport)
			}
		})
	}
}

// The pattern Compile checks offline is the one the PolicyKind CRD
// enforces in a cluster (generated from the kubebuilder marker), so a
// PolicyKind is refused by both or by neither.
func TestControllerNamePatternIsTheCRDs(t *testing.T) {
	b, err := os.ReadFile("../../../config/crd/bases/strata.dev_policykinds.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Schema struct {
					OpenAPIV3Schema struct {
						Properties map[string]struct {
							Properties map[string]struct {
								Pattern   string `json:"pattern"`
								MaxLength int    `json:"maxLength"`
							} `json:"properties"`
						} `json:"properties"`
					} `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(b, &crd); err != nil {
		t.Fatal(err)
	}
	for _, v := range crd.Spec.Versions {
		f := v.Schema.OpenAPIV3Schema.Properties["spec"].Properties["controllerName"]
		if f.Pattern != ControllerNamePattern || f.MaxLength != 253 {
			t.Errorf("CRD controllerName pattern %q maxLength %d, Compile checks %q and 253", f.Pattern, f.MaxLength, ControllerNamePattern)
		}
	}
}

// TestCompileVocabulary checks spec.status.vocabulary: the default is
// Enforced (GEP-713 "Metaresource status"), Programmed is chosen by
// name, anything else is refused naming the PolicyKind and the field.
// The CRD's enum (generated from the kubebuilder marker) accepts the
// same values, so a PolicyKind is refused by both or by neither.
func TestCompileVocabulary(t *testing.T) {
	tests := []struct {
		name    string
		status  *StatusSpec
		want    Vocabulary
		wantErr string
	}{
		{"no status", nil, VocabularyEnforced, ""},
		{"empty status", &StatusSpec{}, VocabularyEnforced, ""},
		{"Enforced", &StatusSpec{Vocabulary: VocabularyEnforced}, VocabularyEnforced, ""},
		{"Programmed", &StatusSpec{Vocabulary: VocabularyProgrammed}, VocabularyProgrammed, ""},
		{"misspelt", &StatusSpec{Vocabulary: "Programed"}, "",
			`PolicyKind retrypolicies.policies.example.io: spec.status.vocabulary: "Programed" is not Enforced or Programmed`},
		{"lower case", &StatusSpec{Vocabulary: "programmed"}, "",
			`PolicyKind retrypolicies.policies.example.io: spec.status.vocabulary: "programmed" is not Enforced or Programmed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := &Declaration{Spec: Spec{Group: "policies.example.io", Kind: "RetryPolicy", Status: tt.status}}
			d.Name = "retrypolicies.policies.example.io"
			k, err := Compile(d)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error\n got: %v\nwant: %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := k.Vocabulary(); got != tt.want {
				t.Errorf("Vocabulary() = %s, want %s", got, tt.want)
			}
		})
	}

	b, err := os.ReadFile("../../../config/crd/bases/strata.dev_policykinds.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Schema struct {
					OpenAPIV3Schema struct {
						Properties map[string]struct {
							Properties map[string]struct {
								Properties map[string]struct {
									Enum []string `json:"enum"`
								} `json:"properties"`
							} `json:"properties"`
						} `json:"properties"`
					} `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(b, &crd); err != nil {
		t.Fatal(err)
	}
	for _, v := range crd.Spec.Versions {
		enum := v.Schema.OpenAPIV3Schema.Properties["spec"].Properties["status"].Properties["vocabulary"].Enum
		if want := []string{string(VocabularyEnforced), string(VocabularyProgrammed)}; !slices.Equal(enum, want) {
			t.Errorf("CRD spec.status.vocabulary enum %v, Compile accepts %v", enum, want)
		}
	}
}
