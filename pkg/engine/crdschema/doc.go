// Package crdschema admits custom resources offline as the API server
// would, with each version's openAPIV3Schema of a CustomResourceDefinition:
// unknown fields pruned, the rest validated.
package crdschema
