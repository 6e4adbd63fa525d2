package files

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	sigsjson "sigs.k8s.io/json"

	"github.com/strata-dev/strata/pkg/engine/hierarchy"
	"github.com/strata-dev/strata/pkg/engine/hierarchy/typed"
	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/snapshot"
	"github.com/strata-dev/strata/pkg/source/yamljson"
)

// Document is one object read from a file, remembered with its place so
// errors can name it. Objects read from a cluster are documents too, with
// File naming the cluster and no Index.
type Document struct {
	File  string
	Index int // 1-based document number in the file; 0 for a cluster's object
	// Line is the 1-based line of the file where the document starts (its
	// first line after the "---" marker), for findings that point into
	// the file (`strata check`); 0 when unknown. Objects of one List,
	// or of one stream of JSON values, share their document's line.
	Line   int
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
	// Places are where each object of the snapshot was read, so that
	// messages about it can name its file and document.
	Places map[Key]Document
}

// Where names the place of an object of the snapshot for messages, as
// Document.Where does (`file: document 3 (Kind ns/name)`); an object
// not read here is named by its key alone.
func (r *Result) Where(k Key) string {
	d, ok := r.Places[k]
	if !ok {
		return k.String()
	}
	return d.Where() + " (" + k.String() + ")"
}

// DefaultNamespace is where objects of namespaced kinds that name no
// namespace go when no namespace is given, as for kubectl.
const DefaultNamespace = "default"

// kindDecoder decodes the JSON of one document of a kind the snapshot holds
// typed, and adds the object to the snapshot.
type kindDecoder struct {
	decode func(js []byte) (any, error)
	add    func(s *snapshot.Snapshot, obj any)
	// namespaced kinds take the default namespace when their object
	// names none, as kubectl apply puts them there.
	namespaced bool
}

// decoders is the table of kinds a file may hold besides policies: each
// decodes one document into the snapshot. The kinds of hierarchy.Table
// decode into the Go types of their typed.Kinds entry; PolicyKind
// declarations are decoded strictly.
var decoders = func() map[schema.GroupKind]kindDecoder {
	m := map[schema.GroupKind]kindDecoder{
		{Group: policykind.Group, Kind: policykind.KindName}: {
			decode: decodeDeclaration,
			add: func(s *snapshot.Snapshot, obj any) {
				s.Declarations = append(s.Declarations, obj.(*policykind.Declaration))
			},
		},
	}
	for _, row := range hierarchy.Table {
		m[row.GroupKind] = tableDecoder(row)
	}
	return m
}()

// decodeDeclaration decodes a PolicyKind declaration.
func decodeDeclaration(js []byte) (any, error) {
	d := &policykind.Declaration{}
	// A typo in a declaration must not pass silently: unknown fields and
	// fields in the wrong case are errors.
	strict, err := sigsjson.UnmarshalStrict(js, d)
	if err != nil {
		return nil, err
	}
	if len(strict) > 0 {
		return nil, errors.Join(strict...)
	}
	return d, nil
}

// typedOptions are encoding/json's semantics (jsonv1.DefaultOptionsV1)
// with names matched in their case, as Kubernetes reads objects
// (sigs.k8s.io/json.UnmarshalCaseSensitivePreserveInts).
var typedOptions = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv2.MatchCaseInsensitiveNames(false))

// tableDecoder is the kindDecoder of a kind of hierarchy.Table.
//
// It decodes as the API server reads an object (k8s.io/apimachinery's
// util/json: encoding/json's semantics, names matched in their case) on
// the decoder of encoding/json/v2 (go-json-experiment, its upstream). A
// field in another case (ParentRefs) is an unknown field, as the API
// server stores the object, not the field it resembles.
//
// JSON that is valid, in UTF-8 and with each key of an object once (what
// the YAML transcoder writes, and every JSON encoding of a map) decodes
// into a fresh object the same under v2's own semantics, which skip
// v1's legacy handling and take a fifth less time over the performance
// world's routes; anything else is an error under v2, and is decoded
// again under typedOptions, whose value or error is the one returned
// (TestTypedDecodeIsUtilJSON compares the two with util/json).
func tableDecoder(row hierarchy.Row) kindDecoder {
	k := typed.Kinds[row.GroupKind]
	decode := func(js []byte) (any, error) {
		obj := k.New()
		if jsonv2.Unmarshal(js, obj) == nil {
			return obj, nil
		}
		obj = k.New()
		if err := jsonv2.Unmarshal(js, obj, typedOptions); err != nil {
			return nil, err
		}
		return obj, nil
	}
	return kindDecoder{
		namespaced: row.Namespaced,
		decode:     decode,
		add:        func(s *snapshot.Snapshot, obj any) { k.Add(s, obj.(typed.Object)) },
	}
}

// MaxFileSize is the most bytes one input (a file, or stdin) may hold:
// 256 MiB, about 250,000 HTTPRoutes, well beyond any real input. A larger
// input is an error rather than all of memory, and a path that is not a
// regular file (a device, a FIFO, a socket) is refused before it is
// opened, so that neither `-f /dev/zero` nor a FIFO no one writes to can
// hang strata. See docs/cli.md.
const MaxFileSize = 256 << 20

var crdKind = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// Read loads files, directories (recursively: *.yaml, *.yml, *.json) and
// "-" (stdin): multi-document YAML or JSON, with List objects expanded.
// Any error names the file and document; nothing is returned then, so
// nothing is half-read.
//
// Read gives the snapshot that Decode(Documents(paths, stdin)) gives, with
// the same errors, faster: documents
// of the common block-style YAML (see transcode.go) go from YAML to their
// typed object through one JSON encoding, without the generic trees of
// sigs.k8s.io/yaml and unstructured; so do the values of a JSON stream.
// The items of a List (a `kubectl get -o json|yaml` dump), split off by
// jsontext or blockList (yamllist.go), go the same way.
func Read(paths []string, stdin io.Reader) (*Result, error) {
	return ReadIn(paths, stdin, DefaultNamespace)
}

// ReadIn is Read with the namespace of objects of namespaced kinds that
// name none (kubectl's -n); "" is DefaultNamespace.
func ReadIn(paths []string, stdin io.Reader, namespace string) (*Result, error) {
	ins, readErr := readInputs(paths, stdin)
	items, err := readItems(ins)
	if err != nil {
		return nil, err
	}
	if readErr != nil {
		return nil, readErr
	}
	return assemble(items, namespace)
}

// readItems parses the documents of the inputs into items: the first
// document's error, if any, is returned instead.
func readItems(ins []input) ([]item, error) {
	ps := parseAll(splitInputs(ins), true)
	n := 0
	for _, p := range ps {
		if p.err != nil {
			return nil, p.err
		}
		n += len(p.items)
	}
	items := make([]item, 0, n)
	for _, p := range ps {
		items = append(items, p.items...)
	}
	return items, nil
}

// Documents reads the documents of files as Read does, without decoding
// them: to overlay them on other documents (a cluster's objects) first.
func Documents(paths []string, stdin io.Reader) ([]Document, error) {
	ins, readErr := readInputs(paths, stdin)
	var docs []Document
	for _, p := range parseAll(splitInputs(ins), false) {
		if p.err != nil {
			return nil, p.err
		}
		for _, it := range p.items {
			docs = append(docs, it.doc)
		}
	}
	if readErr != nil {
		return nil, readErr
	}
	return docs, nil
}

// rawDocument is one document of a file, not parsed yet.
type rawDocument struct {
	file  string
	index int // 1-based
	line  int // 1-based line where the YAML document starts
	raw   []byte
	err   error // a document that could not be split off: the read's error
	// json marks a value of a JSON stream (jsonStream): raw is JSON, read
	// without the YAML parser, which takes ten times as long over a
	// `kubectl get -o json` dump.
	json bool
}

// input is the content of one file, or of stdin.
type input struct {
	file string
	b    []byte
}

// readInputs reads the files, in order. Reading stops at the first file
// that cannot be read; its error is returned with the inputs before it,
// whose documents' own errors come first, as they would reading one file
// after the other.
func readInputs(paths []string, stdin io.Reader) ([]input, error) {
	var ins []input
	for _, p := range paths {
		files, err := expand(p)
		if err != nil {
			return ins, err
		}
		for _, f := range files {
			b, err := readInput(f, stdin)
			if err != nil {
				return ins, err
			}
			ins = append(ins, input{file: f, b: b})
		}
	}
	return ins, nil
}

// splitInputs splits the inputs into their documents, in order.
func splitInputs(ins []input) []rawDocument {
	var docs []rawDocument
	for _, in := range ins {
		docs = splitInput(docs, in.file, in.b)
	}
	return docs
}

// splitInput appends the documents of one input, b, read from file, to
// docs, numbered from 1 and with lines counted from b's first.
func splitInput(docs []rawDocument, f string, b []byte) []rawDocument {
	n := 0 // documents so far
	for raw, line := range yamlDocumentLines(b) {
		vals, err := jsonStream(raw)
		isJSON := vals != nil
		if vals == nil {
			vals = [][]byte{raw}
		}
		for _, v := range vals {
			n++
			docs = append(docs, rawDocument{file: f, index: n, line: line, raw: v, json: isJSON})
		}
		if err != nil {
			n++
			err = fmt.Errorf("%s: document %d: invalid JSON after document %d: %w", f, n, n-1, err)
			docs = append(docs, rawDocument{file: f, index: n, line: line, err: err})
		}
	}
	return docs
}

// readInput reads a file, or stdin for "-", refusing what is not a
// regular file and more than MaxFileSize bytes.
func readInput(f string, stdin io.Reader) ([]byte, error) {
	if f == "-" {
		if stdin == nil {
			return nil, nil
		}
		b, err := io.ReadAll(io.LimitReader(stdin, MaxFileSize+1))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if len(b) > MaxFileSize {
			return nil, fmt.Errorf("%s: over the %d MiB an input may hold", f, MaxFileSize>>20)
		}
		return b, nil
	}
	// Stat before opening: opening a FIFO blocks until someone writes.
	st, err := os.Stat(f)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%s): strata reads files, directories and - (stdin)", f, st.Mode())
	}
	if st.Size() > MaxFileSize {
		return nil, fmt.Errorf("%s: %d bytes, over the %d MiB an input may hold", f, st.Size(), MaxFileSize>>20)
	}
	file, err := os.Open(f)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	// Read into a buffer of the size Stat gave (as os.ReadFile does), so a
	// large file is not copied while the buffer grows.
	buf := bytes.NewBuffer(make([]byte, 0, st.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(file, MaxFileSize+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", f, err)
	}
	b := buf.Bytes()
	if len(b) > MaxFileSize { // it grew since Stat
		return nil, fmt.Errorf("%s: over the %d MiB an input may hold", f, MaxFileSize>>20)
	}
	return b, nil
}

// jsonStream splits a document that starts with a JSON object into the
// JSON values written one after the other in it, as kubectl reads a JSON
// stream: `{...}{...}` or one object a line. sigs.k8s.io/yaml would read
// the first and drop the rest unsaid. It returns nil for a document that
// does not start with a JSON object (YAML, or YAML flow style such as
// `{a: 1}`, read as it always was), and the values before anything after
// them that is not JSON, with the error. Trailing blank and comment lines
// are YAML's and end the stream. The values share raw's memory.
func jsonStream(raw []byte) ([][]byte, error) {
	if yamlStart(raw) {
		return nil, nil
	}
	start := 0 // after the leading blank and comment lines
	for line := range bytes.Lines(raw) {
		if !yamlBlank(line) {
			break
		}
		start += len(line)
	}
	if t := bytes.TrimLeft(raw[start:], " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil, nil
	}
	base := start // where the decoder's offsets count from
	dec := json.NewDecoder(bytes.NewReader(raw[base:]))
	var vals [][]byte
	for {
		if err := dec.Decode(&skipJSON{}); err != nil {
			if len(vals) == 0 {
				return nil, nil
			}
			return vals, err
		}
		end := base + int(dec.InputOffset())
		vals = append(vals, raw[start:end])
		start = end
		if yamlBlank(raw[end:]) {
			return vals, nil
		}
	}
}

// yamlStart reports, for most YAML documents at a glance, that raw does
// not start with a JSON object: its first byte past ASCII blanks is
// neither '{' nor a comment's '#', nor a byte that bytes.TrimSpace might
// trim (\v, \f, or one of a multi-byte space), which the line-by-line
// look of jsonStream would skip. That look costs a line iterator per
// document, which most documents, YAML, need not pay. False says
// nothing: look line by line.
func yamlStart(raw []byte) bool {
	i := skipSpace(raw, 0)
	if i == len(raw) {
		return false
	}
	c := raw[i]
	return c < 0x80 && c != '{' && c != '#' && c != '\v' && c != '\f'
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipJSON is a JSON value's target that keeps nothing of it.
type skipJSON struct{}

func (skipJSON) UnmarshalJSON([]byte) error { return nil }

// yamlBlank reports whether b holds only blank lines and comments.
func yamlBlank(b []byte) bool {
	for line := range bytes.Lines(b) {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			return false
		}
	}
	return true
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

// item is one object of the input, sorted for the snapshot: a typed
// object of a kind in decoders (obj, or err if it did not decode), or a
// document left for assemble to place (policies, CRDs, other kinds).
type item struct {
	doc Document // Object is nil for typed objects decoded on the fast path
	gk  schema.GroupKind
	obj any
	err error // the typed decoding's error, naming the document
}

// parsed is what one raw document became: its objects (several for a
// List, none for an empty document), or the error that stops the read.
type parsed struct {
	items []item
	err   error
}

// parseAll parses the documents; the results are in the
// documents' order. typed decodes the kinds of decoders into their Go
// types (for Read); otherwise every item is a Document (for Documents).
func parseAll(raws []rawDocument, typed bool) []parsed {
	out := make([]parsed, len(raws))
	var t transcoder // its buffers, reused from document to document
	for i := range raws {
		out[i] = t.parse(raws[i], typed)
	}
	return out
}

// parse reads one raw document: on the fast path when quick takes it,
// else as sigs.k8s.io/yaml reads it (split).
func (t *transcoder) parse(r rawDocument, typed bool) parsed {
	if r.err != nil {
		return parsed{err: r.err}
	}
	if items, ok := t.quick(r, typed); ok {
		return parsed{items: items}
	}
	docs, err := split(r)
	if err != nil {
		return parsed{err: err}
	}
	p := parsed{items: make([]item, len(docs))}
	if !typed {
		for i, d := range docs {
			p.items[i] = item{doc: d}
		}
		return p
	}
	// The objects of a List (a `kubectl get -o json|yaml` dump holds the
	// whole input in one) are decoded as documents are.
	for i := range len(docs) {
		p.items[i] = decodeDocument(docs[i])
	}
	return p
}

// quick reads a document on the fast path: a block-style YAML object
// (transcode.go), a value of a JSON stream, or a List of either whose
// items are (a `kubectl get -o json|yaml` dump holds the whole input in
// one), each object going from its JSON to its typed object or generic
// tree (decodeObject), as documents are. ok is false for anything else (flow style, a List of
// odd shape, invalid input), which split reads, errors included.
func (t *transcoder) quick(r rawDocument, typed bool) ([]item, bool) {
	d := Document{File: r.file, Index: r.index, Line: r.line}
	if r.json {
		objs, ok := t.jsonObjects(r.raw)
		if !ok {
			return nil, false
		}
		items := make([]item, len(objs))
		for i, o := range objs {
			if items[i], ok = decodeObject(d, o.gk, o.js, typed); !ok {
				return nil, false
			}
		}
		return items, true
	}
	// A block List is split before the transcoder reads the whole of it
	// on one core (blockList), when a root line opens its items.
	if bytes.HasPrefix(r.raw, []byte("items:")) || bytes.Contains(r.raw, []byte("\nitems:")) {
		if items, ok := t.blockItems(d, r.raw, typed); ok {
			return items, true
		}
	}
	if t.object(r.raw) {
		it, ok := decodeObject(d, groupKindOf(t.hdr.apiVersion, t.hdr.kind), t.out, typed)
		return []item{it}, ok
	}
	return nil, false
}

// blockItems reads the items of a block-style YAML List of document d,
// split by blockList, as quick reads documents.
func (t *transcoder) blockItems(d Document, raw []byte, typed bool) ([]item, bool) {
	header, items, ok := blockList(raw)
	if !ok || !t.transcode(header) || t.hdr.apiVersion == "" || !strings.HasSuffix(t.hdr.kind, "List") {
		return nil, false
	}
	out := make([]item, len(items))
	for i, raw := range items {
		if t.object(raw) {
			out[i], ok = decodeObject(d, groupKindOf(t.hdr.apiVersion, t.hdr.kind), t.out, typed)
		} else {
			out[i], ok = t.parsedItem(d, raw, typed)
		}
		if !ok {
			return nil, false
		}
	}
	return out, true
}

// parsedItem reads an item of a block List that the transcoder does not
// take (a float, say) with the YAML parser, alone as it reads in the
// List.
func (t *transcoder) parsedItem(d Document, raw []byte, typed bool) (item, bool) {
	js, err := yamljson.ToJSONStrict(raw)
	if err != nil {
		return item{}, false
	}
	objs, ok := t.jsonObjects(js)
	if !ok || len(objs) != 1 {
		return item{}, false
	}
	return decodeObject(d, objs[0].gk, objs[0].js, typed)
}

// object transcodes raw, one YAML document, and reports whether it is
// an object as split reads it (apiVersion and kind given), not a List.
func (t *transcoder) object(raw []byte) bool {
	return t.transcode(raw) && t.hdr.apiVersion != "" && t.hdr.kind != "" && !strings.HasSuffix(t.hdr.kind, "List")
}

// decodeObject decodes js, the JSON of one object of document d (valid,
// in UTF-8, each key of an object once, as generic requires), as
// decodeDocument decodes the object: into its typed object for a kind
// of decoders (when typed), else into its generic tree. A typed object
// that does not decode, names no name or holds managedFields (whose
// text decodeDocument's JSON re-encoding reorders) is decoded from its
// generic tree by decodeDocument, for its error or value. ok is false
// when js is not an object.
func decodeObject(d Document, gk schema.GroupKind, js []byte, typed bool) (item, bool) {
	dec, isTyped := decoders[gk]
	if isTyped && typed {
		if obj, err := dec.decode(js); err == nil {
			if m := obj.(metav1.Object); m.GetName() != "" && m.GetManagedFields() == nil {
				return item{doc: d, gk: gk, obj: obj}, true
			}
		}
	}
	obj, err := generic(js)
	if err != nil {
		return item{}, false
	}
	d.Object = &unstructured.Unstructured{Object: obj}
	if isTyped && typed {
		return decodeDocument(d), true
	}
	return item{doc: d, gk: gk}, true
}

// jsonObject is the JSON of one object and its group and kind.
type jsonObject struct {
	js []byte
	gk schema.GroupKind
}

// jsonObjects reads js, one JSON object, into its objects as split
// does: the object itself, or the items of a List, Lists among them
// expanded. It reads with jsontext's defaults, which refuse invalid
// JSON, invalid UTF-8 and a name twice in one object. ok is false for
// anything split would refuse or read otherwise (an object without
// apiVersion or kind, items that are not a list of objects), and for
// names or values that are not plain strings, which split reads.
func (t *transcoder) jsonObjects(js []byte) ([]jsonObject, bool) {
	t.json.Reset(bytes.NewBuffer(js)) // read in place, not copied
	objs, ok := readObject(&t.json, js, nil)
	if _, err := t.json.ReadToken(); err != io.EOF {
		return nil, false
	}
	return objs, ok
}

// readObject appends the objects of the JSON object at dec's position
// in js (jsonObjects) to out.
func readObject(dec *jsontext.Decoder, js []byte, out []jsonObject) ([]jsonObject, bool) {
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, false
	}
	start := int(dec.InputOffset()) - 1
	n := len(out) // the items of a List are appended after
	var apiVersion, kind string
	items, badItems := false, false
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return nil, false
		}
		switch name.String() {
		case "apiVersion", "kind":
			isKind := name.String() == "kind" // name is valid until the next read
			if dec.PeekKind() != '"' {
				return nil, false
			}
			v, err := dec.ReadToken()
			if err != nil {
				return nil, false
			}
			if isKind {
				kind = v.String()
			} else {
				apiVersion = v.String()
			}
		case "items":
			if dec.PeekKind() != '[' {
				badItems = true
				if err := dec.SkipValue(); err != nil {
					return nil, false
				}
				continue
			}
			items = true
			if _, err := dec.ReadToken(); err != nil {
				return nil, false
			}
			for dec.PeekKind() != ']' {
				var ok bool
				if out, ok = readObject(dec, js, out); !ok {
					return nil, false
				}
			}
			if _, err := dec.ReadToken(); err != nil {
				return nil, false
			}
		default:
			if err := dec.SkipValue(); err != nil {
				return nil, false
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, false
	}
	if apiVersion == "" || kind == "" {
		return nil, false
	}
	if strings.HasSuffix(kind, "List") && (items || badItems) {
		return out, !badItems
	}
	return append(out[:n], jsonObject{js: js[start:dec.InputOffset()], gk: groupKindOf(apiVersion, kind)}), true
}

// generic decodes js, the JSON of one object, into the generic tree of
// unstructured objects as k8s.io/apimachinery's util/json does (an
// integer is an int64, any other number a float64), for JSON that is
// valid, in UTF-8 and with each key of an object once, as the YAML
// transcoder writes it; other JSON is an error, for the caller to read
// the careful way.
func generic(js []byte) (map[string]any, error) {
	var obj map[string]any
	if err := jsonv2.Unmarshal(js, &obj, genericOptions); err != nil {
		return nil, err
	}
	if obj == nil {
		return nil, errors.New("not an object")
	}
	return obj, nil
}

// genericOptions decode a number into an any as util/json does: an
// int64 when it is an integer that fits, else a float64.
var genericOptions = jsonv2.WithUnmarshalers(jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, v *any) error {
	if dec.PeekKind() != '0' {
		return jsonv2.SkipFunc
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	if i, err := strconv.ParseInt(tok.String(), 10, 64); err == nil {
		*v = i
		return nil
	}
	f, err := strconv.ParseFloat(tok.String(), 64)
	if err != nil {
		return err
	}
	*v = f
	return nil
}))

// groupKindOf is the group and kind of an object as
// unstructured.Unstructured.GroupVersionKind reads them: an apiVersion
// that does not parse gives the empty group and kind.
func groupKindOf(apiVersion, kind string) schema.GroupKind {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return schema.GroupKind{}
	}
	return schema.GroupKind{Group: gv.Group, Kind: kind}
}

// split reads one document the slow way, as sigs.k8s.io/yaml reads it
// (pkg/source/yamljson), into its objects: none for an empty document, the
// items of a List. A key given twice in one mapping is an error, in YAML
// as in JSON, as kubectl's default strict field validation has it, and so
// are two keys that are one JSON key; go-yaml's line numbers are made the
// file's.
func split(r rawDocument) ([]Document, error) {
	file, i := r.file, r.index
	if blank(r.raw) {
		// Empty, as the parser would find: skip its set-up, which alone
		// allocates kilobytes per document (1,000,000 empty documents
		// took 1 GiB, issue 11 "No cliffs").
		return nil, nil
	}
	var obj map[string]any
	if r.json {
		// JSON as the YAML parser reads it, which refuses a key twice in
		// one object; numbers as apimachinery's json keeps them.
		strict, err := sigsjson.UnmarshalStrict(r.raw, &obj, sigsjson.DisallowDuplicateFields)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: not an object: %w", file, i, err)
		}
		if len(strict) > 0 {
			return nil, fmt.Errorf("%s: document %d: invalid JSON: %w", file, i, strict[0])
		}
	} else if l, ok := parseBlockList(r.raw); ok {
		obj = l
	} else {
		js, err := yamljson.ToJSONStrict(r.raw)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: invalid YAML: %s", file, i, fileLines(err.Error(), r.line))
		}
		js = bytes.TrimSpace(js)
		if len(js) == 0 || string(js) == "null" {
			return nil, nil
		}
		// apimachinery's json keeps integers as int64, as unstructured
		// objects from the API server have them.
		if err := utiljson.Unmarshal(js, &obj); err != nil {
			return nil, fmt.Errorf("%s: document %d: not an object: %w", file, i, err)
		}
	}
	u := &unstructured.Unstructured{Object: obj}
	d := Document{File: file, Index: i, Line: r.line, Object: u}
	if u.GetAPIVersion() == "" || u.GetKind() == "" {
		return nil, fmt.Errorf("%s: apiVersion and kind are required", d.Where())
	}
	if items, ok := obj["items"]; ok && strings.HasSuffix(u.GetKind(), "List") {
		return listItems(d, items, "", nil)
	}
	return []Document{d}, nil
}

// yamlLine finds the line numbers in go-yaml's messages: "yaml: line 5:
// ..." for a syntax error, "yaml: unmarshal errors:\n  line 5: ..." for
// each key given twice.
var yamlLine = regexp.MustCompile(`(?m)^(yaml: |\s+)line (\d+):`)

// fileLines makes the line numbers of go-yaml's message about a document
// that starts on line first of its file lines of the file, which is what
// an editor shows (go-yaml counts from the document's first line), and
// puts the message on one line, its errors separated by semicolons.
func fileLines(msg string, first int) string {
	msg = yamlLine.ReplaceAllStringFunc(msg, func(m string) string {
		sub := yamlLine.FindStringSubmatch(m)
		n, err := strconv.Atoi(sub[2])
		if err != nil || first < 1 {
			return m
		}
		return fmt.Sprintf("%sline %d:", sub[1], n+first-1)
	})
	return yamlBreak.ReplaceAllStringFunc(msg, func(m string) string {
		if m[0] == ':' {
			return ": "
		}
		return "; "
	})
}

// yamlBreak is a line break in go-yaml's list of unmarshal errors.
var yamlBreak = regexp.MustCompile(`:?\n\s*`)

// blank reports whether a YAML document holds only blank lines and
// comments, which YAML reads as an empty document (null).
func blank(b []byte) bool {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		// Spaces only: a tab may not start a token, so a line with one
		// is left to the parser and its error.
		t := bytes.TrimLeft(line, " ")
		if len(t) > 0 && string(t) != "\r" && t[0] != '#' {
			return false
		}
	}
	return true
}

// listItems appends the objects of items, the items of a List read as
// document d, to out; path is where items is in d. A List among them is
// expanded too, as kubectl does; a kind ending in List without items is
// an object like any other.
func listItems(d Document, items any, path string, out []Document) ([]Document, error) {
	if items == nil {
		return out, nil
	}
	l, ok := items.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: %sitems must be a list, not %s", d.Where(), path, jsonKind(items))
	}
	for j, it := range l {
		p := fmt.Sprintf("%sitems[%d]", path, j)
		m, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: %s: not an object", d.Where(), p)
		}
		iu := &unstructured.Unstructured{Object: m}
		if iu.GetAPIVersion() == "" || iu.GetKind() == "" {
			return nil, fmt.Errorf("%s: %s: apiVersion and kind are required", d.Where(), p)
		}
		if sub, ok := m["items"]; ok && strings.HasSuffix(iu.GetKind(), "List") {
			var err error
			if out, err = listItems(d, sub, p+".", out); err != nil {
				return nil, err
			}
			continue
		}
		out = append(out, Document{File: d.File, Index: d.Index, Line: d.Line, Object: iu})
	}
	return out, nil
}

// jsonKind names the JSON type of a decoded value, for messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a bool"
	default:
		return "a number"
	}
}

// checkMeta checks the metadata the engine orders objects by: GEP-713
// "Conflict resolution rules" rank policies by creationTimestamp (older
// wins), then by {namespace}/{name}. unstructured reads a missing or
// non-string name as "" and a creationTimestamp that does not parse as
// the zero time, which would win every conflict; both are errors here.
// A missing or null creationTimestamp is the zero time, as in a file
// that was never applied.
func checkMeta(d Document) error {
	meta, _ := d.Object.Object["metadata"].(map[string]any)
	switch name := meta["name"].(type) {
	case nil:
		return fmt.Errorf("%s: metadata.name is required", d.Where())
	case string:
		if name == "" {
			return fmt.Errorf("%s: metadata.name is required", d.Where())
		}
	default:
		return fmt.Errorf("%s: metadata.name must be a string, not %s (%v)", d.Where(), jsonKind(name), name)
	}
	switch ts := meta["creationTimestamp"].(type) {
	case nil:
	case string:
		if _, err := time.Parse(time.RFC3339, ts); err != nil {
			return fmt.Errorf("%s: metadata.creationTimestamp %q is not an RFC 3339 time (2006-01-02T15:04:05Z)", d.Where(), ts)
		}
	default:
		return fmt.Errorf("%s: metadata.creationTimestamp must be an RFC 3339 time, not %s (%v)", d.Where(), jsonKind(ts), ts)
	}
	return nil
}

// Decode sorts documents into a snapshot. Documents of a declared policy
// kind become policies; a document that looks like a policy (it has
// spec.targetRef or spec.targetRefs) but whose kind is not declared is an
// error; other unknown kinds are counted in Ignored.
func Decode(docs []Document) (*Result, error) { return DecodeIn(docs, DefaultNamespace) }

// DecodeIn is Decode with the namespace of objects of namespaced kinds
// that name none; "" is DefaultNamespace.
func DecodeIn(docs []Document, namespace string) (*Result, error) {
	items := make([]item, len(docs))
	for i, d := range docs {
		items[i] = decodeDocument(d)
	}
	return assemble(items, namespace)
}

// decodeDocument decodes a document of a kind in decoders into its Go
// type, through its JSON encoding; other documents are returned as they
// are.
func decodeDocument(d Document) item {
	gk := d.Object.GroupVersionKind().GroupKind()
	it := item{doc: d, gk: gk}
	if dec, ok := decoders[gk]; ok {
		if err := checkMeta(d); err != nil {
			it.err = err
			return it
		}
		b, err := json.Marshal(d.Object.Object)
		if err == nil {
			it.obj, err = dec.decode(b)
		}
		if err != nil {
			it.err = fmt.Errorf("%s: %w", d.Where(), err)
		}
	}
	return it
}

// Key names one object of the input: API group, kind, namespace ("" for
// cluster-scoped kinds) and name, as the API server keys objects.
type Key struct{ Group, Kind, Namespace, Name string }

func (k Key) String() string {
	s := k.Kind
	if k.Group != "" {
		s += "." + k.Group
	}
	s += " "
	if k.Namespace != "" {
		s += k.Namespace + "/"
	}
	return s + k.Name
}

// assemble places items in a snapshot, in their order: the first typed
// object that did not decode is the error; then policies of kinds
// declared anywhere in the input.
//
// Objects of namespaced kinds that name no namespace go to ns, as
// `kubectl apply -n ns` puts them; for a policy, its kind is namespaced
// when the input holds its CRD with scope Namespaced (a policy of a
// kind without its CRD is taken as it is written). Then two objects with
// the same Key are an error naming both places: kubectl apply would
// silently keep the last one, but in a directory of manifests a
// duplicate is almost always a copy that was meant to be edited, and
// which of the two the cluster ends up with depends on file order.
//
// The places of the objects (Result.Places), and with them the
// duplicates, are recorded on another goroutine while the snapshot is
// filled (placer). The first duplicate in the order the objects are
// placed is still the error, and an error met before it in that order
// (an object that did not decode) still comes first.
func assemble(items []item, ns string) (*Result, error) {
	if ns == "" {
		ns = DefaultNamespace
	}
	res := &Result{Snapshot: &snapshot.Snapshot{}, Ignored: map[string]int{}}
	p := newPlacer(len(items))
	err := res.fill(items, ns, p.place)
	// Every object placed before fill stopped is recorded: a duplicate
	// among them came before fill's error, if any.
	places, dup := p.wait()
	if dup != nil {
		return nil, dup
	}
	if err != nil {
		return nil, err
	}
	res.Places = places
	return res, nil
}

// placer records where each object was read (Result.Places) and finds
// the first duplicate, on a goroutine of its own: the 45,000 objects of
// the performance world took a map of 6 MB and most of assembling the
// snapshot, on one core while the other waited. Places are sent in
// batches, in the order place is called.
type placer struct {
	batch  []placed
	ch     chan []placed
	done   chan struct{}
	places map[Key]Document
	dup    error // the first duplicate
}

// placed is one object's key and place.
type placed struct {
	k Key
	d Document
}

// placeBatch is how many places are sent to the placer's goroutine at
// a time.
const placeBatch = 512

func newPlacer(n int) *placer {
	p := &placer{ch: make(chan []placed, 4), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.places = make(map[Key]Document, n)
		for b := range p.ch {
			for _, x := range b {
				if p.dup != nil {
					continue // the first is the error; the rest is drained
				}
				if first, dup := p.places[x.k]; dup {
					p.dup = fmt.Errorf("%s is given twice, in %s and in %s: keep one (kubectl apply would keep the last one silently)", x.k, first.Where(), x.d.Where())
					continue
				}
				p.places[x.k] = x.d
			}
		}
	}()
	return p
}

// place records that the object k was read at d.
func (p *placer) place(k Key, d Document) {
	if d.Object != nil {
		// Where names the kind and name; the key says them already.
		d = Document{File: d.File, Index: d.Index, Line: d.Line}
	}
	if p.batch == nil {
		p.batch = make([]placed, 0, placeBatch)
	}
	p.batch = append(p.batch, placed{k, d})
	if len(p.batch) == placeBatch {
		p.ch <- p.batch
		p.batch = nil
	}
}

// wait returns the places recorded and the first duplicate among them,
// once every place is; place must not be called after.
func (p *placer) wait() (map[Key]Document, error) {
	if len(p.batch) > 0 {
		p.ch <- p.batch
	}
	close(p.ch)
	<-p.done
	return p.places, p.dup
}

// fill places items in the snapshot (assemble), calling place for each
// object it keeps, in order.
func (res *Result) fill(items []item, ns string, place func(Key, Document)) error {
	s := res.Snapshot
	var rest, crds []Document
	for _, it := range items {
		if dec, ok := decoders[it.gk]; ok {
			if it.err != nil {
				return it.err
			}
			m := it.obj.(metav1.Object)
			if dec.namespaced && m.GetNamespace() == "" {
				m.SetNamespace(ns)
			}
			k := Key{Group: it.gk.Group, Kind: it.gk.Kind, Name: m.GetName()}
			if dec.namespaced {
				k.Namespace = m.GetNamespace()
			}
			place(k, it.doc)
			dec.add(s, it.obj)
			continue
		}
		if it.gk == crdKind {
			crds = append(crds, it.doc)
			continue
		}
		rest = append(rest, it.doc)
	}
	// The CRDs of policy kinds: labelled ones declare their kind; any
	// other one of a kind a PolicyKind declares gives its scope and
	// schema.
	declared := map[schema.GroupKind]bool{}
	for _, dcl := range s.Declarations {
		declared[schema.GroupKind{Group: dcl.Spec.Group, Kind: dcl.Spec.Kind}] = true
	}
	for _, d := range crds {
		if _, labelled := d.Object.GetLabels()[policykind.CRDLabel]; !labelled {
			continue
		}
		// The kind it declares; the engine compiles the declaration.
		if gk := policykind.DefinedKind(d.Object); gk.Group != "" && gk.Kind != "" {
			declared[gk] = true
		}
	}
	namespaced := map[schema.GroupKind]bool{}
	for _, d := range crds {
		_, labelled := d.Object.GetLabels()[policykind.CRDLabel]
		gk := policykind.DefinedKind(d.Object)
		if !labelled && !declared[gk] {
			res.Ignored[crdKind.String()]++
			continue
		}
		if err := checkMeta(d); err != nil {
			return err
		}
		place(Key{Group: crdKind.Group, Kind: crdKind.Kind, Name: d.Object.GetName()}, d)
		if labelled {
			s.PolicyCRDs = append(s.PolicyCRDs, d.Object)
		}
		s.CRDs = append(s.CRDs, d.Object)
		if scope, _, _ := unstructured.NestedString(d.Object.Object, "spec", "scope"); scope == "Namespaced" {
			namespaced[gk] = true
		}
	}
	for _, d := range rest {
		gk := d.Object.GroupVersionKind().GroupKind()
		pgk := schema.GroupKind{Group: gk.Group, Kind: gk.Kind}
		// A document with targetRefs is a policy even when the input does
		// not declare its kind: the engine declares it from its catalogue,
		// or skips it with a warning naming the kind (--strict: an error).
		_, one, _ := unstructured.NestedFieldNoCopy(d.Object.Object, "spec", "targetRef")
		_, many, _ := unstructured.NestedFieldNoCopy(d.Object.Object, "spec", "targetRefs")
		if declared[pgk] || one || many {
			if err := checkMeta(d); err != nil {
				return err
			}
			if namespaced[pgk] && d.Object.GetNamespace() == "" {
				d.Object.SetNamespace(ns)
			}
			place(Key{Group: gk.Group, Kind: gk.Kind, Namespace: d.Object.GetNamespace(), Name: d.Object.GetName()}, d)
			s.Policies = append(s.Policies, d.Object)
			continue
		}
		res.Ignored[gk.String()]++
	}
	return nil
}

// yamlDocuments splits a YAML stream into its documents, numbered as YAML
// 1.2 ("Document Markers") and a reader count them: a "---" line (alone,
// or followed by a space and a comment or content) starts a document;
// comments, blank lines and directives before the first marker are a
// prefix, not a document; an empty document between two markers still
// takes its number. Documents are returned raw, empty ones included, so
// that document i is at index i-1; they share b's memory.
func yamlDocuments(b []byte) [][]byte {
	var docs [][]byte
	for d := range yamlDocumentLines(b) {
		docs = append(docs, d)
	}
	return docs
}

// yamlDocumentLines yields yamlDocuments' documents with the 1-based line
// of the file where each starts: the line after its marker, or the
// marker's own line for content written on it ("--- {a: 1}").
func yamlDocumentLines(b []byte) iter.Seq2[[]byte, int] {
	return func(yield func([]byte, int) bool) {
		splitYAML(b, yield)
	}
}

// splitYAML is yamlDocumentLines. Marker lines are found with
// bytes.Index and lines counted with bytes.Count, both vectorized, rather
// than line by line: the split runs on one core before any document is
// parsed, and the performance world's 946,000 lines took it 18 ms.
// TestSplitYAMLIsLineByLine compares it with the line-by-line reading.
func splitYAML(b []byte, yield func([]byte, int) bool) {
	start, startLine := 0, 1        // of the current document
	lineNo := 1                     // of the line at pos
	first, prefixOnly := true, true // before the first marker, only a prefix so far
	for pos := 0; pos < len(b); {
		// The next line at or after pos that starts with "---".
		next := len(b)
		if bytes.HasPrefix(b[pos:], []byte("---")) {
			next = pos
		} else if i := bytes.Index(b[pos:], []byte("\n---")); i >= 0 {
			next = pos + i + 1
		}
		if first && prefixOnly {
			for line := range bytes.Lines(b[pos:next]) {
				t := bytes.TrimSpace(line)
				if prefixOnly = len(t) == 0 || t[0] == '#' || t[0] == '%'; !prefixOnly {
					break
				}
			}
		}
		lineNo += bytes.Count(b[pos:next], []byte("\n"))
		if next == len(b) {
			break
		}
		end := bytes.IndexByte(b[next:], '\n') + 1
		if end == 0 {
			end = len(b) - next
		}
		line := b[next : next+end]
		if rest := line[3:]; len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\r' || rest[0] == '\n' {
			if !first || !prefixOnly {
				if !yield(b[start:next], startLine) {
					return
				}
			}
			first = false
			start, startLine = next+end, lineNo+1
			if t := bytes.TrimSpace(rest); len(t) > 0 && t[0] != '#' {
				start, startLine = next+3, lineNo // "--- {a: 1}": content on the marker line
			}
		} else if first && prefixOnly {
			t := bytes.TrimSpace(line)
			prefixOnly = len(t) == 0 || t[0] == '#' || t[0] == '%'
		}
		pos = next + end
		lineNo++
	}
	if !first || !prefixOnly || len(bytes.TrimSpace(b[start:])) > 0 {
		yield(b[start:], startLine)
	}
}
