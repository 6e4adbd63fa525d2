// Package kubectltext keeps kubectl's message catalogue unloaded.
//
// Strata prints kubectl's tables and takes its printing flags
// (k8s.io/kubectl/pkg/cmd/get), and that package's variables translate
// `kubectl get`'s help when the program starts: the first translation
// reads and unpacks the catalogue of the user's language, 30 ms of the
// 100 ms every strata command took to start (GODEBUG=inittrace=1;
// docs/performance.md, "Every command, ninth pass"). Strata never
// prints that help, and its own messages are English, so the catalogue
// is not loaded and kubectl's strings stay in English too.
//
// kubectl's i18n package provides for this (SetLoadTranslationsFunc):
// the function is set in an init that runs before any package translates
// a string. Go initializes the packages that are ready in the order of
// their import paths, and this one needs only i18n, so it runs before
// every k8s.io/kubectl package that translates (TestCatalogueUnloaded).
package kubectltext

import "k8s.io/kubectl/pkg/util/i18n"

func init() {
	if err := i18n.SetLoadTranslationsFunc(func() error { return nil }); err != nil {
		panic("kubectltext: " + err.Error()) // a kubectl package translated first: the import order promise broke
	}
}
