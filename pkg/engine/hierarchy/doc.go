// Package hierarchy is the table of target kinds Strata models and their
// order, from least specific (Namespace) to most specific (Service ports
// and virtual kinds): the "hierarchy of target kinds" of GEP-713.
package hierarchy
