package policykind

import (
	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
)

// The declaration types are the API types of pkg/apis/strata/v1alpha1,
// under the names the engine reads them by.
type (
	// Declaration is a PolicyKind object.
	Declaration = strata.PolicyKind
	// DeclarationList is a list of PolicyKind objects.
	DeclarationList = strata.PolicyKindList
	// Spec describes one policy kind.
	Spec           = strata.PolicyKindSpec
	Class          = strata.Class
	Strategies     = strata.Strategies
	CustomStrategy = strata.CustomStrategy
	Fields         = strata.Fields
	ValueSpace     = strata.ValueSpace
	ContextScope   = strata.ContextScope
	ReferenceField = strata.ReferenceField
	Visibility     = strata.Visibility
	ChildMerge     = strata.ChildMerge
	// StatusSpec says how a kind's policies report status.
	StatusSpec = strata.PolicyStatusSpec
	Vocabulary = strata.Vocabulary
)

// Classes and context scopes, as the API package defines them.
const (
	Direct        = strata.Direct
	Inherited     = strata.Inherited
	ContextPath   = strata.ContextPath
	ContextTarget = strata.ContextTarget

	VisibilitySettings = strata.VisibilitySettings
	VisibilityNames    = strata.VisibilityNames
	VisibilityKind     = strata.VisibilityKind

	VocabularyEnforced   = strata.VocabularyEnforced
	VocabularyProgrammed = strata.VocabularyProgrammed
)

// Group, Version and kind of declaration objects.
const (
	Group    = strata.Group
	Version  = strata.Version
	KindName = strata.PolicyKindKind
	// CRDLabel is the label GEP-713 ("Standard label on CRD objects",
	// 001) puts on every policy CRD; its value names the class.
	CRDLabel = "gateway.networking.k8s.io/policy"
)

// SchemeGroupVersion and AddToScheme register Strata's API types (the
// declarations and EffectivePolicy share strata.dev/v1alpha1).
var (
	SchemeGroupVersion = strata.SchemeGroupVersion
	AddToScheme        = strata.AddToScheme
)
