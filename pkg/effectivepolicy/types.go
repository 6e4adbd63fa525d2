package effectivepolicy

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Group, Version and Kind of EffectivePolicy objects.
const (
	Group   = "strata.dev"
	Version = "v1alpha1"
	Kind    = "EffectivePolicy"
)

// EffectivePolicy is the answer to "what settings are in force here":
// for one effective target, per policy kind, the merged spec proper in
// every context, and which policy set each field (001 "EffectivePolicy"
// objects; GEP-713 "The discoverability problem", the *what*). It is
// named after its target: the target's name, plus ".<sectionName>" for a
// section.
type EffectivePolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// Target is the effective target this object describes.
	Target Ref `json:"target"`
	// Policies holds one entry per policy kind affecting the target,
	// sorted by group then kind.
	Policies []KindPolicies `json:"policies"`
}

// Ref names an object or one of its sections.
type Ref struct {
	Group       string `json:"group"`
	Kind        string `json:"kind"`
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name"`
	SectionName string `json:"sectionName,omitempty"`
}

// KindPolicies is the effective policy of one kind on the target.
type KindPolicies struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	// ControllerName is the policy controller of the kind.
	ControllerName string `json:"controllerName"`
	// Contexts lists every path through which the target is reached by at
	// least one policy of the kind, sorted by path.
	Contexts []Context `json:"contexts"`
}

// Context is the effective policy along one path of the hierarchy (the
// GEP's "a1 > b2 > c1").
type Context struct {
	// Path goes from least to most specific: the Namespaces of the objects
	// along it, then the objects and sections from a root of the DAG down
	// to the target.
	Path []Ref `json:"path"`
	// ResultantPolicy is the merged spec proper.
	ResultantPolicy map[string]any `json:"resultantPolicy"`
	// Sources are the policies of the stack, least specific first, with
	// what became of each one here.
	Sources []Source `json:"sources"`
	// FieldSources maps the JSON pointer of every field of the resultant
	// policy to the policy that set it (namespace/name), or to "(target)"
	// when the target object's own value stands.
	FieldSources map[string]string `json:"fieldSources,omitempty"`
}

// Source is a policy in a context.
type Source struct {
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Result is Enforced, PartiallyEnforced, Overridden or Conflicted in
	// this context.
	Result string `json:"result"`
}
