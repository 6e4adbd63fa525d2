// Package builtin is Strata's catalogue of the policy kinds people run
// (Gateway API's, Envoy Gateway's, Kuadrant's, NGINX Gateway Fabric's):
// one embedded PolicyKind YAML file per kind, standing in when the input
// does not declare the kind (docs/policy-kinds.md, "3. The built-in
// catalogue"). Every entry is `managed: false`: read for discoverability.
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

// Catalogue reads the embedded declarations, sorted by file name, each
// decoded strictly; an error is a bug in the catalogue.
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

// decode reads one embedded declaration (ours: sigs.k8s.io/yaml's strict
// reading is enough).
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
