package policykind

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// SchemeGroupVersion is the group and version of PolicyKind objects.
var SchemeGroupVersion = schema.GroupVersion{Group: Group, Version: Version}

var (
	// SchemeBuilder registers PolicyKind and PolicyKindList.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
	// AddToScheme adds PolicyKind to a scheme, so that a controller-runtime
	// client and cache can read Declaration objects.
	AddToScheme = SchemeBuilder.AddToScheme
)

// addKnownTypes registers the types by name. The Go type is Declaration,
// what it is to the engine, but the kind is PolicyKind, and
// runtime.Scheme.AddKnownTypes (as controller-runtime's scheme.Builder
// uses it) would register kind Declaration, which no API server serves.
// hack/generate.sh renames the kind in the CRD for the same reason.
func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypeWithName(SchemeGroupVersion.WithKind(KindName), &Declaration{})
	s.AddKnownTypeWithName(SchemeGroupVersion.WithKind(KindName+"List"), &DeclarationList{})
	metav1.AddToGroupVersion(s, SchemeGroupVersion)
	return nil
}
