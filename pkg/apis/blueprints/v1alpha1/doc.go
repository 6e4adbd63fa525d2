// Package v1alpha1 is the blueprints.strata.dev/v1alpha1 API: the
// GatewayClassBlueprint a GatewayClass points at through parametersRef, and
// the GatewayClassConfig and GatewayConfig policies that feed it values
// (../shared/spec 002 "Extending GatewayClass Definitions using Policy
// Attachments"). The types are plain data; rendering lives in pkg/blueprint
// and the cluster side in pkg/controller/blueprints.
//
// +kubebuilder:object:generate=true
// +groupName=blueprints.strata.dev
package v1alpha1
