package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	yaml "go.yaml.in/yaml/v3"
)

// Structure-safe rendering (docs/blueprints.md, "Threat model"): whatever
// a value holds, it only fills the place the template put it; the YAML
// structure is the blueprint author's. Text templating then a YAML parse
// would let a value with a newline and `---` start another object. So a
// template is executed twice on the same data: the real run prints what
// text/template would and records the text of every action that prints (a
// hole); the skeleton run prints a token instead of each value (keeping
// the whitespace of the template's indent/nindent), and must take the same
// control flow. The skeleton is parsed as YAML, and every token replaced
// by its value at the node it sits in: in a scalar as literal text; after
// a serializer (nodeFuncs) as one node. Text from `include` is the
// template author's YAML, part of the skeleton.

// holeKind is how a hole's value is placed.
type holeKind int

const (
	holeScalar holeKind = iota // the printed text is (part of) a scalar's text
	holeNode                   // the pipeline ends in a serializer (nodeFuncs): its argument is one node
	holeText                   // the pipeline is an include: its text is part of the skeleton
)

// nodeFuncs are the functions whose output is a YAML (or JSON) rendering
// of their argument: at the end of a pipeline, the argument is the node.
var nodeFuncs = map[string]bool{
	"toYaml": true, "toJson": true, "toPrettyJson": true, "toRawJson": true,
	"mustToJson": true, "mustToPrettyJson": true, "mustToRawJson": true,
	"quote": true, "squote": true,
}

// yamlNodeCost is the work (cost.go) of filling, encoding and decoding
// one YAML node of a template's output.
const yamlNodeCost = 1024

// yamlByteCost is the work of parsing one byte of a template's output,
// charged before parsing.
const yamlByteCost = 8

// layoutFuncs only move a hole's text (indentation and surrounding
// whitespace); they may follow the function that makes the hole's value.
var layoutFuncs = map[string]bool{"indent": true, "nindent": true, "trim": true}

// The functions the rewrite plants: markFunc after the pipeline's value
// (before its layout), holeFunc at its end; nodeFunc replaces a
// serializer at the end of a pipeline.
const (
	markFunc = "strataMark"
	holeFunc = "strataHole"
	nodeFunc = "strataNode"
)

// site is one action that prints, as written in the template.
type site struct {
	kind     holeKind
	template string // the defined template it is in
	line     int
	action   string // e.g. {{ .Values.replicas }}
}

// holes is the state of the holes of one render: the sites of its
// templates (planted once per parse) and the record of one template's two
// runs.
type holes struct {
	sites []site

	skeleton bool   // which run is executing
	nonce    string // makes tokens unforgeable: see token
	seq      int    // holes printed so far in this run
	// The real run, by seq: the site, and the text printed.
	realSite []int
	realText []string
	// The skeleton run, by seq: the site, the whitespace printed before
	// and after the token, and a holeNode's value.
	skelSite []int
	prefix   []string
	suffix   []string
	nodes    map[int]any
	pending  any // a holeNode's value, from nodeFunc to holeFunc
	hasNode  bool
}

// funcs are the planted functions, bound to h; real are the template's
// own functions, which the serializers' stand-ins call in the real run.
func (h *holes) funcs(real template.FuncMap) template.FuncMap {
	m := template.FuncMap{markFunc: h.mark, holeFunc: h.hole}
	for name := range nodeFuncs {
		f := reflect.ValueOf(real[name])
		if !f.IsValid() {
			continue
		}
		m[nodeFunc+name] = func(args ...reflect.Value) (reflect.Value, error) { return h.node(name, f, args) }
	}
	return m
}

// mark passes the pipeline's value on in the real run; in the skeleton
// run it stands in for it, so the layout functions after it show where
// the value goes.
func (h *holes) mark(_ int, v reflect.Value) reflect.Value {
	if h.skeleton {
		return reflect.ValueOf(h.marker())
	}
	return v
}

// node calls serializer fn (one of nodeFuncs) in the real run; in the
// skeleton run it keeps the argument as the hole's node.
func (h *holes) node(fn string, f reflect.Value, args []reflect.Value) (reflect.Value, error) {
	for i, a := range args {
		if !a.IsValid() {
			args[i] = reflect.Zero(reflect.TypeFor[any]())
		}
	}
	if h.skeleton {
		var v any
		if fn == "quote" || fn == "squote" {
			parts := make([]string, 0, len(args))
			for _, a := range args {
				if a.IsValid() && !(a.Kind() == reflect.Interface && a.IsNil()) {
					parts = append(parts, strval(a.Interface()))
				}
			}
			v = strings.Join(parts, " ")
		} else if len(args) == 1 && args[0].IsValid() {
			v = args[0].Interface()
		}
		h.pending, h.hasNode = v, true
		return reflect.ValueOf(h.marker()), nil
	}
	out := f.Call(args)
	if len(out) == 2 && !out[1].IsNil() {
		return reflect.Value{}, out[1].Interface().(error)
	}
	return out[0], nil
}

// hole prints the value of site id: its text in the real run, a token in
// the skeleton run.
func (h *holes) hole(id int, v reflect.Value) (string, error) {
	text, err := printed(v)
	if err != nil {
		return "", err
	}
	n := h.seq
	h.seq++
	if !h.skeleton {
		h.realSite = append(h.realSite, id)
		h.realText = append(h.realText, text)
		return text, nil
	}
	h.skelSite = append(h.skelSite, id)
	if h.sites[id].kind == holeText {
		h.prefix = append(h.prefix, "")
		h.suffix = append(h.suffix, "")
		return text, nil
	}
	if h.hasNode {
		h.nodes[n] = h.pending
		h.pending, h.hasNode = nil, false
	}
	pre, post := "", ""
	if i := strings.Index(text, h.marker()); i >= 0 {
		pre, post = text[:i], text[i+len(h.marker()):]
	}
	h.prefix = append(h.prefix, pre)
	h.suffix = append(h.suffix, post)
	return pre + h.token(n) + post, nil
}

// marker and token are plain-scalar words no value can contain: they
// carry the nonce, a digest of the real run's output, which holds every
// value (a value would have to contain a digest of itself).
func (h *holes) marker() string          { return "x" + h.nonce + "m" }
func (h *holes) token(n int) string      { return "x" + h.nonce + "v" + strconv.Itoa(n) + "x" }
func (h *holes) tokenRE() *regexp.Regexp { return regexp.MustCompile(`x` + h.nonce + `v(\d+)x`) }

// printed is the text text/template prints for v.
func printed(v reflect.Value) (string, error) {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && !v.IsNil() {
		if v.Type().Implements(errType) || v.Type().Implements(stringerType) {
			break
		}
		v = v.Elem()
	}
	if !v.IsValid() || ((v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer) && v.IsNil()) {
		return "<no value>", nil
	}
	switch v.Kind() {
	case reflect.Chan, reflect.Func:
		return "", fmt.Errorf("can't print value of type %s", v.Type())
	}
	return fmt.Sprint(v.Interface()), nil
}

var stringerType = reflect.TypeFor[fmt.Stringer]()

// strval is sprig's string conversion, for quote and squote.
func strval(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case error:
		return v.Error()
	case fmt.Stringer:
		return v.String()
	default:
		return fmt.Sprintf("%v", v)
	}
}

// plant rewrites every action of t (and the templates it defines) that
// prints: `{{ P | layout }}` becomes `{{ P | strataMark ID | layout |
// strataHole ID }}`, and a serializer ending P becomes strataNode. It
// records one site per action.
func (h *holes) plant(t *template.Template, b *budget) {
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Root == nil {
			continue
		}
		h.walk(tt.Tree, tt.Root)
	}
	real := funcMap()
	for name := range nodeFuncs {
		if f, ok := real[name]; ok {
			real[name] = b.wrap(name, f) // charged as the template's own call would be
		}
	}
	t.Funcs(h.funcs(real))
}

func (h *holes) walk(tr *parse.Tree, n parse.Node) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			h.walk(tr, c)
		}
	case *parse.IfNode, *parse.WithNode, *parse.RangeNode:
		h.walk(tr, branch(n).List)
		h.walk(tr, branch(n).ElseList)
	case *parse.ActionNode:
		if len(n.Pipe.Decl) > 0 || planted(n.Pipe) {
			return // an assignment prints nothing; planted: steps.go's
		}
		h.plantAction(tr, n)
	}
}

// planted tells the actions steps.go plants, which print nothing.
func planted(p *parse.PipeNode) bool {
	if len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return false
	}
	id, ok := p.Cmds[0].Args[0].(*parse.IdentifierNode)
	return ok && (id.Ident == stepFunc || id.Ident == enterFunc || id.Ident == exitFunc)
}

func (h *holes) plantAction(tr *parse.Tree, n *parse.ActionNode) {
	cmds := n.Pipe.Cmds
	body := len(cmds)
	for body > 1 && layoutFuncs[funcName(cmds[body-1])] {
		body--
	}
	s := site{kind: holeScalar, template: tr.ParseName, action: n.String()}
	if tr.ParseName != tr.Name {
		s.template = tr.Name
	}
	// ErrorContext's location is NAME:LINE:COL.
	if loc, _ := tr.ErrorContext(n); strings.Count(loc, ":") >= 2 {
		parts := strings.Split(loc, ":")
		s.line, _ = strconv.Atoi(parts[len(parts)-2])
	}
	last := cmds[body-1]
	switch name := funcName(last); {
	case body == 1 && name == "include":
		s.kind = holeText
	case nodeFuncs[name]:
		// `fn ARGS` becomes `strataNode<fn> ARGS` (node).
		s.kind = holeNode
		last.Args[0] = identNode(tr, last.Pos, nodeFunc+name)
	}
	id := len(h.sites)
	h.sites = append(h.sites, s)
	num := numNode(n.Pos, int64(id))
	cmd := func(fn string) *parse.CommandNode { return cmdNode(tr, n.Pos, identNode(tr, n.Pos, fn), num) }
	out := make([]*parse.CommandNode, 0, len(cmds)+2)
	out = append(out, cmds[:body]...)
	if s.kind != holeText {
		out = append(out, cmd(markFunc))
	}
	out = append(out, cmds[body:]...)
	n.Pipe.Cmds = append(out, cmd(holeFunc))
}

// reset readies h for a template's real run.
func (h *holes) reset() {
	*h = holes{sites: h.sites, nodes: map[int]any{}}
}

// executeSafe executes t twice (see the top of this file) and returns
// its documents, every value where its action is. The skeleton run does
// not count against budget b again.
func executeSafe(bp, name string, t *template.Template, h *holes, b *budget, ctx map[string]any) ([]document, error) {
	h.reset()
	before := *b
	real, err := execute(bp, name, t, ctx)
	if err != nil {
		return nil, err
	}
	// Decoding is paid for up front, by the byte of the real output, so
	// a large output is refused before the skeleton run and the parse.
	if err := b.spend("decoding the rendered YAML", int64(len(real))*yamlByteCost); err != nil {
		return nil, &Error{Blueprint: bp, Template: name, Reason: ReasonInvalidParameters, Err: err}
	}
	after := *b
	sum := sha256.Sum256(real)
	h.nonce = hex.EncodeToString(sum[:8])
	h.skeleton, h.seq = true, 0
	*b = before
	skel, err := execute(bp, name, t, ctx)
	*b = after
	if err != nil {
		return nil, err
	}
	fail := func(err error) error {
		return &Error{Blueprint: bp, Template: name, Reason: ReasonInvalidParameters, Err: err}
	}
	if !slices.Equal(h.realSite, h.skelSite) {
		return nil, fail(errors.New("the template printed different actions with its values left out; does an if, range or with test the text of an include? Test the values instead"))
	}
	f := &filler{h: h, re: h.tokenRE(), b: b}
	docs, err := f.documents(skel)
	if err != nil {
		return nil, fail(err)
	}
	return docs, nil
}

// documents parses the skeleton document by document (splitDocuments),
// fills each, and decodes it.
func (f *filler) documents(skel []byte) ([]document, error) {
	var docs []document
	n := 0
	for _, c := range splitDocuments(skel) {
		f.chunk = c
		f.lines = bytes.Split(c.text, []byte("\n"))
		doc, err := oneDocument(c.text)
		if err != nil {
			return nil, yamlError(n+1, chunk{text: []byte(f.hide(string(c.text))), line: c.line}, errors.New(f.hide(err.Error())))
		}
		if len(doc.Content) == 0 {
			continue
		}
		f.doc, f.landed = n+1, nil
		if err := f.fill(doc, false, ""); err != nil {
			return nil, err
		}
		var out bytes.Buffer
		enc := yaml.NewEncoder(&out)
		enc.SetIndent(2)
		if err := enc.Encode(doc); err != nil {
			return nil, fmt.Errorf("rendered document %d: %w", n+1, err)
		}
		if err := enc.Close(); err != nil {
			return nil, err
		}
		if out.Len() > maxOutput {
			return nil, errTooLarge
		}
		d := document{N: n + 1, Line: c.line, holes: f.landings()}
		if ok, err := decodeObject(&d, out.Bytes()); err != nil {
			return nil, err
		} else if !ok {
			continue
		}
		n++
		docs = append(docs, d)
	}
	return docs, nil
}

// oneDocument parses the one YAML document of text; a second one (after
// a line "...") is an error naming its line.
func oneDocument(text []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(text))
	var doc, next yaml.Node
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		return nil, err
	}
	switch err := dec.Decode(&next); err {
	case io.EOF:
		return &doc, nil
	case nil:
		return nil, fmt.Errorf(`yaml: line %d: a second YAML document begins here, after a line "..."; begin each document with a line "---"`, next.Line)
	default:
		return nil, err
	}
}

// filler puts the values of one template's holes into its skeleton.
type filler struct {
	h      *holes
	b      *budget // decoding spends from it, per node
	re     *regexp.Regexp
	chunk  chunk     // the skeleton document being filled
	landed []landing // where its holes landed
	doc    int       // its number among the documents that are not empty
	lines  [][]byte  // its lines, for the indentation of block scalars
}

// hide replaces tokens in a message with the action they stand for.
func (f *filler) hide(msg string) string {
	return f.re.ReplaceAllStringFunc(msg, func(tok string) string {
		if s := f.site(tok); s != nil {
			return s.action
		}
		return "{{...}}"
	})
}

func (f *filler) site(tok string) *site {
	m := f.re.FindStringSubmatch(tok)
	if m == nil {
		return nil
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n >= len(f.h.skelSite) {
		return nil
	}
	return &f.h.sites[f.h.skelSite[n]]
}

// fill replaces the tokens under n, at JSON pointer path of its
// document. Comments go: they are the template's and may hold tokens.
func (f *filler) fill(n *yaml.Node, key bool, path string) error {
	if err := f.b.spend("decoding the rendered YAML", yamlNodeCost); err != nil {
		return err
	}
	n.HeadComment, n.LineComment, n.FootComment = "", "", ""
	switch n.Kind {
	case yaml.ScalarNode:
		return f.scalar(n, key, path)
	case yaml.MappingNode:
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if err := f.fill(k, true, path); err != nil {
				return err
			}
			if k.Kind == yaml.ScalarNode {
				if seen[k.Value] {
					return fmt.Errorf("line %d of the rendered output (document %d): yaml: key %q already set in map", f.chunk.line+k.Line-1, f.doc, k.Value)
				}
				seen[k.Value] = true
			}
			if err := f.fill(n.Content[i+1], false, path+"/"+pointerEscape(k.Value)); err != nil {
				return err
			}
		}
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if err := f.fill(c, false, path); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if err := f.fill(c, false, path+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	case yaml.AliasNode:
		// The template's own alias: its anchor's node is filled where it
		// stands.
	}
	return nil
}

// scalar fills scalar n. A plain scalar that is exactly one serializer's
// token becomes that value's node; otherwise every token is replaced by
// its text and the scalar stays one scalar: a key, quoted or block scalar
// a string, a plain one read as YAML reads a plain word (so `replicas:
// {{ .Values.replicas }}` is still a number) when the text can be one.
func (f *filler) scalar(n *yaml.Node, key bool, path string) error {
	locs := f.re.FindAllStringSubmatchIndex(n.Value, -1)
	if len(locs) == 0 {
		return nil
	}
	if key {
		path += "/" // a key lands in the map at path
	}
	plain := n.Style&^yaml.TaggedStyle == 0 || n.Style&yaml.FlowStyle != 0 && n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0
	seqOf := func(i int) int {
		s, _ := strconv.Atoi(n.Value[locs[i][2]:locs[i][3]])
		return s
	}
	if len(locs) == 1 && locs[0][0] == 0 && locs[0][1] == len(n.Value) && plain && !key {
		s := seqOf(0)
		if v, ok := f.h.nodes[s]; ok && s < len(f.h.skelSite) && f.h.sites[f.h.skelSite[s]].kind == holeNode {
			f.landed = append(f.landed, landing{Path: path, Seq: s})
			return f.node(n, v)
		}
	}
	var b strings.Builder
	last, typed := 0, plain && !key && n.Style&yaml.TaggedStyle == 0
	block := n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0
	for i, loc := range locs {
		b.WriteString(n.Value[last:loc[0]])
		s := seqOf(i)
		if s >= len(f.h.realText) {
			return fmt.Errorf("internal: value %d of %d", s, len(f.h.realText))
		}
		if f.h.sites[f.h.skelSite[s]].kind != holeScalar {
			typed = false
		}
		f.landed = append(f.landed, landing{Path: path, Seq: s})
		text := f.h.realText[s]
		if pre, post := f.h.prefix[s], f.h.suffix[s]; strings.HasPrefix(text, pre) && strings.HasSuffix(text[len(pre):], post) {
			text = text[len(pre) : len(text)-len(post)]
		}
		if block {
			text = dedent(text, min(layoutIndent(f.h.prefix[s]), f.blockIndent(n)))
		}
		b.WriteString(text)
		last = loc[1]
	}
	b.WriteString(n.Value[last:])
	n.Value = strings.ToValidUTF8(b.String(), "\uFFFD")
	if !typed {
		if n.Style&yaml.TaggedStyle == 0 {
			n.Tag = "!!str"
		}
		if key || plain {
			n.Style = 0
		}
	} else {
		n.Tag, n.Style = "", 0
	}
	if awkward(n.Value) {
		// Tabs, control characters and blank ends are safest escaped:
		// YAML readers differ on them in plain and block scalars.
		n.Style = n.Style&^(yaml.LiteralStyle|yaml.FoldedStyle|yaml.SingleQuotedStyle|yaml.FlowStyle) | yaml.DoubleQuotedStyle
		if n.Tag == "" {
			n.Tag = "!!str"
		}
	}
	return nil
}

// awkward tells a string that is best written double-quoted.
func awkward(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return true
	}
	for _, r := range s {
		if r == '\t' || r == '\r' || r < 0x20 && r != '\n' || r == 0x7f || r == '\uFFFD' || r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xFEFF {
			return true
		}
	}
	return false
}

// layoutIndent is the indentation a hole's own indent or nindent put
// before its text (the spaces after the last newline of prefix).
func layoutIndent(prefix string) int {
	if i := strings.LastIndexByte(prefix, '\n'); i >= 0 {
		prefix = prefix[i+1:]
	}
	return len(prefix) - len(strings.TrimLeft(prefix, " "))
}

// node replaces scalar n by value v, as its serializer would have written
// it: through JSON, so the node is what toJson and toYaml print.
func (f *filler) node(n *yaml.Node, v any) error {
	j, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	// Whole numbers as int64, others float64, as everywhere in render;
	// json.Marshal made every string valid UTF-8, so none is !!binary.
	var x any
	if err := utiljson.Unmarshal(j, &x); err != nil {
		return err
	}
	var nn yaml.Node
	if err := nn.Encode(x); err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	nn.Line, nn.Column = n.Line, n.Column
	*n = nn
	return nil
}

// blockIndent is the indentation of block scalar n's content: that of its
// first non-blank line after the indicator.
func (f *filler) blockIndent(n *yaml.Node) int {
	for i := n.Line; i < len(f.lines); i++ { // n.Line is 1-based: lines[n.Line] is the next line
		l := f.lines[i]
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		return len(l) - len(bytes.TrimLeft(l, " "))
	}
	return 0
}

// dedent takes up to indent spaces off every line of s but the first: a
// value nindented into a block scalar is its own text there.
func dedent(s string, indent int) string {
	if indent == 0 || !strings.Contains(s, "\n") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i := 1; i < len(lines); i++ {
		l := lines[i]
		j := 0
		for j < indent && j < len(l) && l[j] == ' ' {
			j++
		}
		lines[i] = l[j:]
	}
	return strings.Join(lines, "\n")
}

// landing is where a hole's value went in a document: the JSON pointer
// of the node it filled (of the map, ending in "/", for a key).
type landing struct {
	Path string
	Seq  int
}

// landings are the document's holes as values: where each landed, what
// it printed, and the action.
func (f *filler) landings() []hole {
	out := make([]hole, 0, len(f.landed))
	for _, l := range f.landed {
		s := f.h.sites[f.h.skelSite[l.Seq]]
		h := hole{Path: l.Path, Text: f.h.realText[l.Seq], Line: s.line, Action: s.action, Template: s.template}
		if v, ok := f.h.nodes[l.Seq]; ok {
			h.Node, h.IsNode = v, true
		}
		out = append(out, h)
	}
	return out
}

// hole is one value in a rendered document, for naming the value and
// who set it when the document is refused.
type hole struct {
	Path     string // JSON pointer where it landed
	Text     string // what the action printed
	Node     any    // a serializer's argument
	IsNode   bool
	Line     int    // template line of the action
	Action   string // the action, e.g. {{ .Values.replicas }}
	Template string // the defined template it is in
}

// pointerEscape escapes a JSON pointer segment (RFC 6901).
func pointerEscape(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
