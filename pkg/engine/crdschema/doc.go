// Package crdschema admits custom resources offline as the API server
// would: each version's openAPIV3Schema of a CustomResourceDefinition,
// read with k8s.io/apiextensions-apiserver, prunes the fields it does not
// know and validates the rest (types, enums, required, maxItems, list
// types), so that a file is read as the cluster would store it.
package crdschema
