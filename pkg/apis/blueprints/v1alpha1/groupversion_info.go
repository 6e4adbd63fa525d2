package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group and Version of the blueprint API.
const (
	Group   = "blueprints.strata.dev"
	Version = "v1alpha1"

	// BlueprintKind, ClassConfigKind and ConfigKind are the kinds, for
	// references (GatewayClass parametersRef) and messages.
	BlueprintKind   = "GatewayClassBlueprint"
	ClassConfigKind = "GatewayClassConfig"
	ConfigKind      = "GatewayConfig"
)

// SchemeGroupVersion is the group and version of every type here.
var SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}

var (
	// SchemeBuilder registers the blueprint types.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds the blueprint types to a scheme, so a
	// controller-runtime client and cache can read them typed.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(SchemeGroupVersion,
		&GatewayClassBlueprint{}, &GatewayClassBlueprintList{},
		&GatewayClassConfig{}, &GatewayClassConfigList{},
		&GatewayConfig{}, &GatewayConfigList{},
	)
	metav1.AddToGroupVersion(s, SchemeGroupVersion)
	return nil
}
