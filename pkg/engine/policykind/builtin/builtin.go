// Package builtin is Strata's catalogue of the policy kinds people run
// today (Gateway API's BackendTLSPolicy and XBackendTrafficPolicy, Envoy
// Gateway's, Kuadrant's and NGINX Gateway Fabric's): one PolicyKind YAML
// file per kind, embedded in the binary, each citing the project's own
// source and docs for its targets, sections and merge rules
// (docs/catalogue-research.md has the research behind them).
//
// A built-in declaration stands in when the input does not declare the
// kind with a PolicyKind (docs/policy-kinds.md, "3. The built-in
// catalogue"), so that one BackendTLSPolicy in a file set no longer fails
// a run. Every entry is `managed: false`: Strata reads these kinds for
// discoverability and never claims to enforce what another implementation
// enforces.
package builtin

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"sort"

	"k8s.io/apimachinery/pkg/runtime/schema"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/strata-dev/strata/pkg/engine/policykind"
)

//go:embed *.yaml
var files embed.FS

// Entry is one built-in declaration and the file it came from, which
// `strata kinds` shows as its source.
type Entry struct {
	// File is the catalogue file's name (envoygateway-securitypolicy.yaml).
	File        string
	Declaration *policykind.Declaration
}

// Source names where a kind declared by the entry came from.
func (e Entry) Source() string { return "built-in " + e.File }

// Catalogue reads the embedded declarations, sorted by file name. Each is
// decoded strictly, as a PolicyKind in a file is; an error here is a bug
// in the catalogue, which the package's tests catch.
func Catalogue() ([]Entry, error) {
	names, err := fs.Glob(files, "*.yaml")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := make([]Entry, 0, len(names))
	for _, name := range names {
		b, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		d, err := decode(b)
		if err != nil {
			return nil, fmt.Errorf("built-in %s: %w", name, err)
		}
		out = append(out, Entry{File: name, Declaration: d})
	}
	return out, nil
}

// decode reads one embedded declaration. The files are ours and fixed,
// one document each with string keys, so sigs.k8s.io/yaml's strict
// reading is enough: the traps pkg/source/yamljson refuses in a user's
// input (keys that are one JSON key, a second document) are not in them.
func decode(b []byte) (*policykind.Declaration, error) {
	js, err := yaml.YAMLToJSONStrict(bytes.TrimSpace(b))
	if err != nil {
		return nil, err
	}
	d := &policykind.Declaration{}
	strict, err := sigsjson.UnmarshalStrict(js, d)
	if err != nil {
		return nil, err
	}
	if len(strict) > 0 {
		return nil, fmt.Errorf("%v", strict)
	}
	if d.APIVersion != policykind.Group+"/"+policykind.Version || d.Kind != policykind.KindName {
		return nil, fmt.Errorf("apiVersion %q kind %q, want %s/%s %s", d.APIVersion, d.Kind, policykind.Group, policykind.Version, policykind.KindName)
	}
	return d, nil
}

// Kinds are the kinds the entries declare, for a reader that must know
// which kinds to list (cluster.Reader.Builtin).
func Kinds(entries []Entry) []schema.GroupKind {
	out := make([]schema.GroupKind, len(entries))
	for i, e := range entries {
		out[i] = schema.GroupKind{Group: e.Declaration.Spec.Group, Kind: e.Declaration.Spec.Kind}
	}
	return out
}
