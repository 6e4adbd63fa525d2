// Command kinds writes pkg/blueprint/render/kinds_generated.go, the scope
// of every kind that an offline render (render.StaticScope) trusts, read
// from the discovery of a real API server (internal/testenv) with every
// API group and version enabled and the Gateway API (experimental
// channel) and Strata CRDs installed. Its test fails when the committed
// table differs.
//
//	go run ./hack/kinds
package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"go/format"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/strata-dev/strata/internal/testenv"
)

// Output is the generated file, relative to the repository root.
const Output = "pkg/blueprint/render/kinds_generated.go"

// apiServerArgs enable every API group and version the server has, alpha
// and beta ones behind a feature gate too.
var apiServerArgs = map[string][]string{
	"runtime-config": {"api/all=true"},
	"feature-gates":  {"AllAlpha=true,AllBeta=true"},
}

// Gateway API annotations on its CRDs: the release and the channel.
const (
	bundleVersionAnnotation = "gateway.networking.k8s.io/bundle-version"
	channelAnnotation       = "gateway.networking.k8s.io/channel"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "hack/kinds:", err)
		os.Exit(1)
	}
}

func run() error {
	root, err := testenv.Root()
	if err != nil {
		return err
	}
	env, err := start()
	if err != nil {
		return err
	}
	src, genErr := generate(context.Background(), env.Config)
	if err := env.Stop(); err != nil && genErr == nil {
		genErr = fmt.Errorf("stop API server: %w", err)
	}
	if genErr != nil {
		return genErr
	}
	out := filepath.Join(root, Output)
	if err := os.WriteFile(out, src, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "hack/kinds: wrote %s\n", out)
	return nil
}

// start runs the API server the table is read from.
func start() (*testenv.Env, error) {
	crds, err := testenv.ChannelCRDPaths("experimental")
	if err != nil {
		return nil, err
	}
	return testenv.StartWith(testenv.Options{CRDs: crds, APIServerArgs: apiServerArgs})
}

// table is what discovery says.
type table struct {
	kubernetes string                    // kube-apiserver's version
	gatewayAPI string                    // Gateway API release and channel of its CRDs
	namespaced map[schema.GroupKind]bool // the scope of every kind served
	crdGroups  map[string]bool           // the groups of the CRDs installed
}

// generate reads discovery from the server of cfg and returns the Go
// source of the table.
func generate(ctx context.Context, cfg *rest.Config) ([]byte, error) {
	t, err := discover(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return t.source()
}

func discover(ctx context.Context, cfg *rest.Config) (table, error) {
	t := table{namespaced: map[schema.GroupKind]bool{}, crdGroups: map[string]bool{}}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return t, err
	}
	v, err := dc.ServerVersion()
	if err != nil {
		return t, fmt.Errorf("server version: %w", err)
	}
	t.kubernetes = v.GitVersion

	// A group that fails discovery fails, rather than missing silently.
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		return t, fmt.Errorf("discovery: %w", err)
	}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			return t, fmt.Errorf("discovery: %w", err)
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") {
				continue // a subresource, such as pods/status
			}
			gk := schema.GroupKind{Group: gv.Group, Kind: r.Kind}
			if ns, seen := t.namespaced[gk]; seen && ns != r.Namespaced {
				return t, fmt.Errorf("discovery: kind %s is namespaced in one version and cluster-scoped in another", gk)
			}
			t.namespaced[gk] = r.Namespaced
		}
	}

	ac, err := apiextensionsclient.NewForConfig(cfg)
	if err != nil {
		return t, err
	}
	crds, err := ac.ApiextensionsV1().CustomResourceDefinitions().List(ctx, metav1.ListOptions{})
	if err != nil {
		return t, fmt.Errorf("list CRDs: %w", err)
	}
	releases := map[string]bool{}
	for _, crd := range crds.Items {
		t.crdGroups[crd.Spec.Group] = true
		if v := crd.Annotations[bundleVersionAnnotation]; v != "" {
			releases[fmt.Sprintf("%s (%s channel)", v, crd.Annotations[channelAnnotation])] = true
		}
	}
	if len(releases) != 1 {
		return t, fmt.Errorf("want the CRDs of one Gateway API release and channel, found %v", releases)
	}
	for r := range releases {
		t.gatewayAPI = r
	}
	return t, nil
}

// source is the Go source of the table, sorted by group then kind.
func (t table) source() ([]byte, error) {
	kinds := make([]schema.GroupKind, 0, len(t.namespaced))
	var ns, cluster int
	for gk, n := range t.namespaced {
		kinds = append(kinds, gk)
		if n {
			ns++
		} else {
			cluster++
		}
	}
	slices.SortFunc(kinds, func(a, b schema.GroupKind) int {
		return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Kind, b.Kind))
	})
	groups := map[string]bool{}
	for _, gk := range kinds {
		if !t.crdGroups[gk.Group] {
			groups[gk.Group] = true
		}
	}
	apiServerGroups := slices.Sorted(maps.Keys(groups))

	var b bytes.Buffer
	fmt.Fprintf(&b, `// Code generated by go run ./hack/kinds; DO NOT EDIT.
// From kube-apiserver %[1]s and Gateway API %[2]s.

package render

import "k8s.io/apimachinery/pkg/runtime/schema"

// generatedKinds is the scope of every kind served by kube-apiserver
// %[1]s with every API group and version enabled
// (--runtime-config=api/all=true, alpha and beta feature gates on), with
// the CRDs of Gateway API %[2]s and of Strata
// installed: %[3]d namespaced and %[4]d cluster-scoped kinds.
var generatedKinds = map[schema.GroupKind]kindScope{
`, t.kubernetes, t.gatewayAPI, ns, cluster)
	for _, gk := range kinds {
		s := "scopeCluster"
		if t.namespaced[gk] {
			s = "scopeNamespaced"
		}
		fmt.Fprintf(&b, "\t{Group: %q, Kind: %q}: %s,\n", gk.Group, gk.Kind, s)
	}
	fmt.Fprintf(&b, `}

// generatedAPIServerGroups are the API groups kube-apiserver %s serves
// itself (not through a CRD); "" is the core group.
var generatedAPIServerGroups = map[string]bool{
`, t.kubernetes)
	for _, g := range apiServerGroups {
		fmt.Fprintf(&b, "\t%q: true,\n", g)
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("format generated source: %w", err)
	}
	return src, nil
}
