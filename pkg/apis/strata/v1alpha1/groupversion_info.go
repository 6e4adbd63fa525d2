package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group and Version of Strata's own objects.
const (
	Group   = "strata.dev"
	Version = "v1alpha1"
)

// SchemeGroupVersion is strata.dev/v1alpha1.
var SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}

var (
	// SchemeBuilder registers PolicyKind, EffectivePolicy and their lists.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds Strata's types to a scheme, so that a
	// controller-runtime client and cache can read and write them.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(SchemeGroupVersion, &PolicyKind{}, &PolicyKindList{}, &EffectivePolicy{}, &EffectivePolicyList{})
	metav1.AddToGroupVersion(s, SchemeGroupVersion)
	return nil
}
