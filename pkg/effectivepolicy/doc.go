// Package effectivepolicy is the EffectivePolicy API (strata.dev/v1alpha1)
// and its construction from an engine run: the sink that answers "what
// settings are in force on this target, in each context, set by whom".
package effectivepolicy
