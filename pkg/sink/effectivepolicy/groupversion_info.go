package effectivepolicy

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// SchemeGroupVersion is the group and version of EffectivePolicy objects.
var SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}

var (
	// SchemeBuilder registers EffectivePolicy and EffectivePolicyList.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds EffectivePolicy to a scheme, so that a
	// controller-runtime client can write the objects Build makes.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(SchemeGroupVersion, &EffectivePolicy{}, &EffectivePolicyList{})
	metav1.AddToGroupVersion(s, SchemeGroupVersion)
	return nil
}
