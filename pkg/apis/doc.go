// Package apis holds Strata's API types, one package per group and
// version; see pkg/apis/strata/v1alpha1 and pkg/apis/blueprints/v1alpha1.
package apis
