// Command template is `helm template --include-crds` of charts/strata with
// Helm's own engine, for the end-to-end suite to install without Helm in
// the root module.
//
//	go -C hack/chart run ./template [-name strata] [-namespace strata-system] [-set key=value,...]
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/strvals"
)

func main() {
	name := flag.String("name", "strata", "release name")
	namespace := flag.String("namespace", "strata-system", "release namespace")
	set := flag.String("set", "", "values as helm template --set takes them")
	flag.Parse()
	if err := run(*name, *namespace, *set); err != nil {
		fmt.Fprintln(os.Stderr, "template:", err)
		os.Exit(1)
	}
}

func run(name, namespace, set string) error {
	dir := filepath.Join("..", "..", "charts", "strata") // from hack/chart, where go -C runs it
	ch, err := loader.Load(dir)
	if err != nil {
		return fmt.Errorf("load %s: %w", dir, err)
	}
	vals, err := strvals.Parse(set)
	if err != nil {
		return fmt.Errorf("-set %s: %w", set, err)
	}
	install := action.NewInstall(&action.Configuration{Log: func(string, ...any) {}})
	install.DryRun, install.ClientOnly, install.Replace, install.IncludeCRDs = true, true, true, true
	install.ReleaseName, install.Namespace = name, namespace
	rel, err := install.Run(ch, vals)
	if err != nil {
		return err
	}
	_, err = fmt.Print(rel.Manifest)
	return err
}
