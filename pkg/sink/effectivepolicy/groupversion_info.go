package effectivepolicy

import (
	strata "github.com/strata-dev/strata/pkg/apis/strata/v1alpha1"
)

// The EffectivePolicy types are the API types of
// pkg/apis/strata/v1alpha1; Build fills them from an engine result.
type (
	EffectivePolicy     = strata.EffectivePolicy
	EffectivePolicyList = strata.EffectivePolicyList
	Ref                 = strata.Ref
	KindPolicies        = strata.KindPolicies
	Context             = strata.Context
	Source              = strata.Source
)

// Group, Version and Kind of EffectivePolicy objects.
const (
	Group   = strata.Group
	Version = strata.Version
	Kind    = strata.EffectivePolicyKind
	// TargetKindLabel carries the target's kind on every object.
	TargetKindLabel = strata.TargetKindLabel
)

// SchemeGroupVersion and AddToScheme register Strata's API types.
var (
	SchemeGroupVersion = strata.SchemeGroupVersion
	AddToScheme        = strata.AddToScheme
)
