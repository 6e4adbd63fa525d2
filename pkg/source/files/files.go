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

// Document is one object read from a file, with its place for errors.
// Objects read from a cluster are documents too, with File naming the
// cluster and no Index.
type Document struct {
	File  string
	Index int // 1-based document number in the file; 0 for a cluster's object
	// Line is the 1-based line where the document starts (after its "---"),
	// for findings that point into the file; 0 when unknown. The objects
	// of one List or JSON stream share their document's line.
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
	// Places are where each object of the snapshot was read.
	Places map[Key]Document
}

// Where names the place of an object of the snapshot as Document.Where
// does; an object not read here is named by its key alone.
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

// kindDecoder decodes the JSON of a kind the snapshot holds typed, and
// adds the object to the snapshot.
type kindDecoder struct {
	decode     func(js []byte) (any, error)
	add        func(s *snapshot.Snapshot, obj any)
	namespaced bool // takes the default namespace when it names none
}

// decoders are the kinds a file may hold besides policies: those of
// hierarchy.Table into their typed.Kinds types, and PolicyKind
// declarations, strictly.
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

// decodeDeclaration decodes a PolicyKind declaration: a typo must not pass
// silently, so unknown fields and fields in the wrong case are errors.
func decodeDeclaration(js []byte) (any, error) {
	d := &policykind.Declaration{}
	strict, err := sigsjson.UnmarshalStrict(js, d)
	if err != nil {
		return nil, err
	}
	if len(strict) > 0 {
		return nil, errors.Join(strict...)
	}
	return d, nil
}

// typedOptions are encoding/json's semantics with names matched in their
// case, as Kubernetes reads objects
// (sigs.k8s.io/json.UnmarshalCaseSensitivePreserveInts).
var typedOptions = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv2.MatchCaseInsensitiveNames(false))

// tableDecoder is the kindDecoder of a kind of hierarchy.Table. It decodes
// as the API server reads an object (util/json: a field in another case is
// unknown). JSON that is valid UTF-8 with each key once decodes the same
// under v2's own, faster, semantics; anything else is decoded again under
// typedOptions (TestTypedDecodeIsUtilJSON).
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

// MaxFileSize is the most bytes one input (a file, or stdin) may hold. A
// larger input is an error rather than all of memory, and a path that is
// not a regular file is refused before it is opened, so that neither
// `-f /dev/zero` nor a FIFO can hang strata. See docs/cli.md.
const MaxFileSize = 256 << 20

var crdKind = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// Read loads files, directories (recursively: *.yaml, *.yml, *.json) and
// "-" (stdin): multi-document YAML or JSON, with List objects expanded.
// Any error names the file and document; nothing is returned then. It
// gives what Decode(Documents(paths, stdin)) gives, faster: block-style
// YAML (transcode.go) and JSON go to their typed objects through one JSON
// encoding, without generic trees.
func Read(paths []string, stdin io.Reader) (*Result, error) {
	return ReadIn(paths, stdin, DefaultNamespace)
}

// ReadIn is Read with the namespace of objects of namespaced kinds that
// name none (kubectl's -n); "" is DefaultNamespace.
func ReadIn(paths []string, stdin io.Reader, namespace string) (*Result, error) {
	items, err := readItems(paths, stdin, true)
	if err != nil {
		return nil, err
	}
	return assemble(items, namespace)
}

// Documents reads the documents of files as Read does, without decoding
// them: to overlay them on other documents (a cluster's objects) first.
func Documents(paths []string, stdin io.Reader) ([]Document, error) {
	items, err := readItems(paths, stdin, false)
	if err != nil || len(items) == 0 {
		return nil, err
	}
	docs := make([]Document, len(items))
	for i, it := range items {
		docs[i] = it.doc
	}
	return docs, nil
}

// readItems reads and parses the inputs into items, typed ones decoded
// (for Read) or not (for Documents). The first document's error comes
// first, then the error of a file that could not be read.
func readItems(paths []string, stdin io.Reader, typed bool) ([]item, error) {
	ins, readErr := readInputs(paths, stdin)
	var raws []rawDocument
	for _, in := range ins {
		raws = splitInput(raws, in.file, in.b)
	}
	ps := make([][]item, len(raws))
	var t transcoder // its buffers, reused from document to document
	n := 0
	for i := range raws {
		var err error
		if ps[i], err = t.parse(raws[i], typed); err != nil {
			return nil, err
		}
		n += len(ps[i])
	}
	if readErr != nil {
		return nil, readErr
	}
	items := make([]item, 0, n)
	for _, p := range ps {
		items = append(items, p...)
	}
	return items, nil
}

// rawDocument is one document of a file, not parsed yet.
type rawDocument struct {
	file  string
	index int // 1-based
	line  int // 1-based line where the YAML document starts
	raw   []byte
	err   error // a document that could not be split off: the read's error
	json  bool  // a value of a JSON stream, read without the YAML parser
}

// input is the content of one file, or of stdin.
type input struct {
	file string
	b    []byte
}

// readInputs reads the files, in order, stopping at the first that cannot
// be read: its error is returned with the inputs before it.
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

// splitInput appends the documents of b, read from file, to docs.
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
	r, size := stdin, int64(0)
	if f == "-" {
		if stdin == nil {
			return nil, nil
		}
	} else {
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
		r, size = file, st.Size()
	}
	// A buffer of the size Stat gave, as os.ReadFile does.
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(r, MaxFileSize+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", f, err)
	}
	if buf.Len() > MaxFileSize {
		return nil, fmt.Errorf("%s: over the %d MiB an input may hold", f, MaxFileSize>>20)
	}
	return buf.Bytes(), nil
}

// jsonStream splits a document that starts with a JSON object into the
// JSON values written one after the other in it, as kubectl reads a JSON
// stream (sigs.k8s.io/yaml would read the first and drop the rest). It
// returns nil for a document that does not start with a JSON object
// (YAML, or flow style such as `{a: 1}`), and the values before anything
// that is not JSON, with the error. Trailing blank and comment lines end
// the stream. The values share raw's memory.
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

// yamlStart reports, without a line iterator, that raw does not start
// with a JSON object: its first byte past ASCII blanks is neither '{',
// '#', nor a byte bytes.TrimSpace might trim. False says nothing.
func yamlStart(raw []byte) bool {
	i := 0
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	if i == len(raw) {
		return false
	}
	c := raw[i]
	return c < 0x80 && c != '{' && c != '#' && c != '\v' && c != '\f'
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

// item is one object of the input: a typed object of a kind in decoders
// (obj, or err if it did not decode), or a document for assemble to place
// (policies, CRDs, other kinds).
type item struct {
	doc Document // Object is nil for typed objects decoded on the fast path
	gk  schema.GroupKind
	obj any
	err error // the typed decoding's error, naming the document
}

// parse reads one raw document into its objects (several for a List, none
// for an empty document): on the fast path when quick takes it, else as
// sigs.k8s.io/yaml reads it (split). typed decodes the kinds of decoders
// into their Go types.
func (t *transcoder) parse(r rawDocument, typed bool) ([]item, error) {
	if r.err != nil {
		return nil, r.err
	}
	if items, ok := t.quick(r, typed); ok {
		return items, nil
	}
	docs, err := split(r)
	if err != nil {
		return nil, err
	}
	items := make([]item, len(docs))
	for i, d := range docs {
		items[i] = item{doc: d}
		if typed {
			items[i] = decodeDocument(d)
		}
	}
	return items, nil
}

// quick reads a document on the fast path: a block-style YAML object, a
// value of a JSON stream, or a List of either, each object decoded by
// decodeObject. ok is false for anything else, which split reads.
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
	// A block List is split into its items rather than transcoded whole.
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

// blockItems reads the items of a block-style YAML List split by
// blockList; an item the transcoder does not take (a float, say) is read
// alone with the YAML parser.
func (t *transcoder) blockItems(d Document, raw []byte, typed bool) ([]item, bool) {
	header, items, ok := blockList(raw)
	if !ok || !t.transcode(header) || t.hdr.apiVersion == "" || !strings.HasSuffix(t.hdr.kind, "List") {
		return nil, false
	}
	out := make([]item, len(items))
	for i, raw := range items {
		if t.object(raw) {
			out[i], ok = decodeObject(d, groupKindOf(t.hdr.apiVersion, t.hdr.kind), t.out, typed)
		} else if js, err := yamljson.ToJSONStrict(raw); err != nil {
			return nil, false
		} else if objs, jok := t.jsonObjects(js); !jok || len(objs) != 1 {
			return nil, false
		} else {
			out[i], ok = decodeObject(d, objs[0].gk, objs[0].js, typed)
		}
		if !ok {
			return nil, false
		}
	}
	return out, true
}

// object transcodes raw, one YAML document, and reports whether it is
// an object as split reads it (apiVersion and kind given), not a List.
func (t *transcoder) object(raw []byte) bool {
	return t.transcode(raw) && t.hdr.apiVersion != "" && t.hdr.kind != "" && !strings.HasSuffix(t.hdr.kind, "List")
}

// decodeObject decodes js, the JSON of one object of document d, as
// decodeDocument would: into its typed object for a kind of decoders
// (when typed), else into its generic tree. A typed object that does not
// decode, names no name or holds managedFields (whose text a re-encoding
// reorders) goes through decodeDocument. ok is false when js is not an
// object.
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

// jsonObjects reads js, one JSON object, into its objects as split does:
// the object, or the items of a List, Lists among them expanded. jsontext
// refuses invalid JSON, invalid UTF-8 and a name twice in one object; ok
// is false for those and for anything split would read otherwise.
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
			field := &apiVersion
			if name.String() == "kind" { // name is valid until the next read
				field = &kind
			}
			v, err := dec.ReadToken()
			if err != nil || v.Kind() != '"' {
				return nil, false
			}
			*field = v.String()
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
// unstructured objects as util/json does (an integer is an int64, any
// other number a float64). JSON that is not valid UTF-8 with each key
// once is an error, for the caller to read the careful way.
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

// genericOptions decode a number into an any as util/json does.
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

// groupKindOf is the group and kind of an object as unstructured reads
// them: an apiVersion that does not parse gives the empty group and kind.
func groupKindOf(apiVersion, kind string) schema.GroupKind {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return schema.GroupKind{}
	}
	return schema.GroupKind{Group: gv.Group, Kind: kind}
}

// split reads one document as sigs.k8s.io/yaml reads it (yamljson) into
// its objects: none for an empty document, the items of a List. A key
// given twice in one mapping is an error, in YAML as in JSON, as kubectl's
// strict field validation has it; go-yaml's line numbers are made the
// file's.
func split(r rawDocument) ([]Document, error) {
	file, i := r.file, r.index
	if blank(r.raw) {
		// Empty: skip the parser's set-up, which allocates kilobytes
		// (issue 11 "No cliffs").
		return nil, nil
	}
	var obj map[string]any
	if r.json {
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
		// Integers as int64, as unstructured objects from the API server.
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
// starting on line first lines of the file, as an editor shows them, and
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
// comments (an empty document). Spaces only: a line with a tab is left to
// the parser and its error.
func blank(b []byte) bool {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
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

// checkMeta checks the metadata the engine orders objects by (GEP-713
// "Conflict resolution rules": older creationTimestamp, then
// {namespace}/{name}). unstructured reads a missing name as "" and a
// creationTimestamp that does not parse as the zero time, which would win
// every conflict: both are errors. A missing creationTimestamp is the zero
// time, as in a file that was never applied.
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
// `kubectl apply -n ns` puts them; a policy's kind is namespaced when the
// input holds its CRD with scope Namespaced. Two objects with the same Key
// are an error naming both places: kubectl apply would silently keep the
// last one, but in a directory of manifests a duplicate is almost always
// a copy meant to be edited. The places are recorded on another goroutine
// (placer); the first duplicate in placing order is the error, after an
// error met before it.
func assemble(items []item, ns string) (*Result, error) {
	if ns == "" {
		ns = DefaultNamespace
	}
	res := &Result{Snapshot: &snapshot.Snapshot{}, Ignored: map[string]int{}}
	p := newPlacer(len(items))
	err := res.fill(items, ns, p.place)
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
// the first duplicate, on a goroutine of its own, from batches of places
// sent in the order place is called.
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

// placeBatch is how many places are sent to the placer at a time.
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
	// Labelled CRDs declare their kind; any other CRD of a declared kind
	// gives its scope and schema.
	declared := map[schema.GroupKind]bool{}
	for _, dcl := range s.Declarations {
		declared[schema.GroupKind{Group: dcl.Spec.Group, Kind: dcl.Spec.Kind}] = true
	}
	for _, d := range crds {
		if _, labelled := d.Object.GetLabels()[policykind.CRDLabel]; !labelled {
			continue
		}
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
		// A document with targetRefs is a policy even when the input does
		// not declare its kind: the engine declares it from its catalogue,
		// or skips it with a warning naming the kind (--strict: an error).
		_, one, _ := unstructured.NestedFieldNoCopy(d.Object.Object, "spec", "targetRef")
		_, many, _ := unstructured.NestedFieldNoCopy(d.Object.Object, "spec", "targetRefs")
		if declared[gk] || one || many {
			if err := checkMeta(d); err != nil {
				return err
			}
			if namespaced[gk] && d.Object.GetNamespace() == "" {
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

// yamlDocumentLines yields the documents of a YAML stream, raw and
// sharing b's memory, with the 1-based line where each starts (after its
// marker, or the marker's own for "--- {a: 1}"). They are numbered as
// YAML 1.2 "Document Markers" has it: a "---" line (alone, or followed by
// a space and content) starts a document; comments, blank lines and
// directives before the first marker are a prefix, not a document; an
// empty document between two markers still takes its number.
func yamlDocumentLines(b []byte) iter.Seq2[[]byte, int] {
	return func(yield func([]byte, int) bool) {
		splitYAML(b, yield)
	}
}

// splitYAML is yamlDocumentLines, finding markers with bytes.Index and
// counting lines with bytes.Count, both vectorized, rather than line by
// line (TestSplitYAMLIsLineByLine).
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
