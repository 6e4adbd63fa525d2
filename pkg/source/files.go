package source

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/strata-dev/strata/pkg/hierarchy"
	"github.com/strata-dev/strata/pkg/policykind"
	"github.com/strata-dev/strata/pkg/snapshot"
)

// Document is one object read from a file, remembered with its place so
// errors can name it. Objects read from a cluster are documents too, with
// File naming the cluster and no Index.
type Document struct {
	File   string
	Index  int // 1-based document number in the file; 0 for a cluster's object
	Object *unstructured.Unstructured
}

// Where names the document for messages: `file: document 3 (HTTPRoute
// ns/r1)`, or `cluster (HTTPRoute ns/r1)` for an object without Index.
func (d Document) Where() string {
	s := d.File
	if d.Index > 0 {
		s = fmt.Sprintf("%s: document %d", d.File, d.Index)
	}
	if d.Object == nil || d.Object.GetKind() == "" {
		return s
	}
	s += " (" + d.Object.GetKind()
	if name := d.Object.GetName(); name != "" {
		s += " "
		if ns := d.Object.GetNamespace(); ns != "" {
			s += ns + "/"
		}
		s += name
	}
	return s + ")"
}

// Result is a snapshot read from files, plus what was skipped.
type Result struct {
	Snapshot *snapshot.Snapshot
	// Ignored counts documents of kinds that are neither topology, policy
	// nor declarations (Deployments, ConfigMaps...), by kind.
	Ignored map[string]int
}

// decoders is the table of kinds a file may hold besides policies: each
// decodes one document into the snapshot.
var decoders = map[schema.GroupKind]func(s *snapshot.Snapshot, raw []byte) error{
	hierarchy.GatewayClassKind:   func(s *snapshot.Snapshot, b []byte) error { return into(b, &s.GatewayClasses) },
	hierarchy.GatewayKind:        func(s *snapshot.Snapshot, b []byte) error { return into(b, &s.Gateways) },
	hierarchy.HTTPRouteKind:      func(s *snapshot.Snapshot, b []byte) error { return into(b, &s.HTTPRoutes) },
	hierarchy.GRPCRouteKind:      func(s *snapshot.Snapshot, b []byte) error { return into(b, &s.GRPCRoutes) },
	hierarchy.TCPRouteKind:       func(s *snapshot.Snapshot, b []byte) error { return into(b, &s.TCPRoutes) },
	hierarchy.TLSRouteKind:       func(s *snapshot.Snapshot, b []byte) error { return into(b, &s.TLSRoutes) },
	hierarchy.UDPRouteKind:       func(s *snapshot.Snapshot, b []byte) error { return into(b, &s.UDPRoutes) },
	hierarchy.ReferenceGrantKind: func(s *snapshot.Snapshot, b []byte) error { return into(b, &s.ReferenceGrants) },
	hierarchy.ServiceKind:        func(s *snapshot.Snapshot, b []byte) error { return into(b, &s.Services) },
	hierarchy.NamespaceKind:      func(s *snapshot.Snapshot, b []byte) error { return into(b, &s.Namespaces) },
	{Group: policykind.Group, Kind: policykind.KindName}: func(s *snapshot.Snapshot, b []byte) error {
		d := &policykind.Declaration{}
		// A typo in a declaration must not pass silently: unknown fields and
		// fields in the wrong case are errors.
		strict, err := sigsjson.UnmarshalStrict(b, d)
		if err != nil {
			return err
		}
		if len(strict) > 0 {
			return errors.Join(strict...)
		}
		s.Declarations = append(s.Declarations, d)
		return nil
	},
}

var crdKind = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

func into[T any](b []byte, list *[]*T) error {
	obj := new(T)
	if err := json.Unmarshal(b, obj); err != nil {
		return err
	}
	*list = append(*list, obj)
	return nil
}

// Read loads files, directories (recursively: *.yaml, *.yml, *.json) and
// "-" (stdin): multi-document YAML or JSON, with List objects expanded.
// Any error names the file and document; nothing is returned then, so
// nothing is half-read.
func Read(paths []string, stdin io.Reader) (*Result, error) {
	docs, err := Documents(paths, stdin)
	if err != nil {
		return nil, err
	}
	return Decode(docs)
}

// Documents reads the documents of files as Read does, without decoding
// them: to overlay them on other documents (a cluster's objects) first.
func Documents(paths []string, stdin io.Reader) ([]Document, error) {
	var docs []Document
	for _, p := range paths {
		files, err := expand(p)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			var r io.Reader
			if f == "-" {
				r = stdin
				if r == nil {
					r = strings.NewReader("")
				}
			} else {
				b, err := os.ReadFile(f)
				if err != nil {
					return nil, err
				}
				r = bytes.NewReader(b)
			}
			ds, err := split(f, r)
			if err != nil {
				return nil, err
			}
			docs = append(docs, ds...)
		}
	}
	return docs, nil
}

// expand turns a path into the files it names, sorted.
func expand(p string) ([]string, error) {
	if p == "-" {
		return []string{"-"}, nil
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{p}, nil
	}
	var files []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch strings.ToLower(filepath.Ext(path)) {
		case ".yaml", ".yml", ".json":
			if !d.IsDir() {
				files = append(files, path)
			}
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// split reads the documents of one file.
func split(file string, r io.Reader) ([]Document, error) {
	raws, err := yamlDocuments(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var out []Document
	for n, raw := range raws {
		i := n + 1
		js, err := yaml.YAMLToJSON(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: invalid YAML: %w", file, i, err)
		}
		js = bytes.TrimSpace(js)
		if len(js) == 0 || string(js) == "null" {
			continue
		}
		var obj map[string]any
		// apimachinery's json keeps integers as int64, as unstructured
		// objects from the API server have them.
		if err := utiljson.Unmarshal(js, &obj); err != nil {
			return nil, fmt.Errorf("%s: document %d: not an object: %w", file, i, err)
		}
		u := &unstructured.Unstructured{Object: obj}
		d := Document{File: file, Index: i, Object: u}
		if u.GetAPIVersion() == "" || u.GetKind() == "" {
			return nil, fmt.Errorf("%s: apiVersion and kind are required", d.Where())
		}
		if strings.HasSuffix(u.GetKind(), "List") {
			if items, ok := obj["items"].([]any); ok {
				for j, it := range items {
					m, ok := it.(map[string]any)
					if !ok {
						return nil, fmt.Errorf("%s: items[%d]: not an object", d.Where(), j)
					}
					iu := &unstructured.Unstructured{Object: m}
					if iu.GetAPIVersion() == "" || iu.GetKind() == "" {
						return nil, fmt.Errorf("%s: items[%d]: apiVersion and kind are required", d.Where(), j)
					}
					out = append(out, Document{File: file, Index: i, Object: iu})
				}
				continue
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// Decode sorts documents into a snapshot. Documents of a declared policy
// kind become policies; a document that looks like a policy (it has
// spec.targetRef or spec.targetRefs) but whose kind is not declared is an
// error; other unknown kinds are counted in Ignored.
func Decode(docs []Document) (*Result, error) {
	res := &Result{Snapshot: &snapshot.Snapshot{}, Ignored: map[string]int{}}
	s := res.Snapshot
	var rest []Document
	for _, d := range docs {
		gk := d.Object.GroupVersionKind().GroupKind()
		if dec, ok := decoders[gk]; ok {
			b, err := json.Marshal(d.Object.Object)
			if err == nil {
				err = dec(s, b)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", d.Where(), err)
			}
			continue
		}
		if gk == crdKind {
			if _, labelled := d.Object.GetLabels()[policykind.CRDLabel]; labelled {
				s.PolicyCRDs = append(s.PolicyCRDs, d.Object)
			} else {
				res.Ignored[gk.String()]++
			}
			continue
		}
		rest = append(rest, d)
	}
	declared := map[policykind.GroupKind]bool{}
	for _, dcl := range s.Declarations {
		declared[policykind.GroupKind{Group: dcl.Spec.Group, Kind: dcl.Spec.Kind}] = true
	}
	for _, crd := range s.PolicyCRDs {
		if dcl, err := policykind.FromCRD(crd); err == nil {
			declared[policykind.GroupKind{Group: dcl.Spec.Group, Kind: dcl.Spec.Kind}] = true
		}
	}
	for _, d := range rest {
		gk := d.Object.GroupVersionKind().GroupKind()
		if declared[policykind.GroupKind{Group: gk.Group, Kind: gk.Kind}] {
			s.Policies = append(s.Policies, d.Object)
			continue
		}
		_, one, _ := unstructured.NestedFieldNoCopy(d.Object.Object, "spec", "targetRef")
		_, many, _ := unstructured.NestedFieldNoCopy(d.Object.Object, "spec", "targetRefs")
		if one || many {
			return nil, fmt.Errorf("%s: %s is not a declared policy kind: add a PolicyKind (strata.dev/v1alpha1) or its CRD labelled %s", d.Where(), gk, policykind.CRDLabel)
		}
		res.Ignored[gk.String()]++
	}
	return res, nil
}

// yamlDocuments splits a YAML stream into its documents, numbered as YAML
// 1.2 ("Document Markers") and a reader count them: a "---" line (alone,
// or followed by a space and a comment or content) starts a document;
// comments, blank lines and directives before the first marker are a
// prefix, not a document; an empty document between two markers still
// takes its number. Documents are returned raw, empty ones included, so
// that document i is at index i-1.
func yamlDocuments(r io.Reader) ([][]byte, error) {
	br := bufio.NewReader(r)
	var docs [][]byte
	var cur []byte
	first, prefixOnly := true, true // before the first marker, only a prefix so far
	for {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if rest, ok := bytes.CutPrefix(line, []byte("---")); ok && (len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\r' || rest[0] == '\n') {
			if !first || !prefixOnly {
				docs = append(docs, cur)
			}
			first, cur = false, nil
			if t := bytes.TrimSpace(rest); len(t) > 0 && t[0] != '#' {
				cur = append(cur, rest...) // "--- {a: 1}": content on the marker line
			}
		} else {
			if first && prefixOnly {
				t := bytes.TrimSpace(line)
				prefixOnly = len(t) == 0 || t[0] == '#' || t[0] == '%'
			}
			cur = append(cur, line...)
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	if !first || !prefixOnly || len(bytes.TrimSpace(cur)) > 0 {
		docs = append(docs, cur)
	}
	return docs, nil
}
