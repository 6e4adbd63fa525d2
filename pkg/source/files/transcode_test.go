package files

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/strata-dev/strata/internal/synth"
)

// transcodeCases are documents on both sides of the fast path's border.
// fast says whether the fast path must take the document; either way, what
// it takes must read as sigs.k8s.io/yaml reads it (checkTranscode).
var transcodeCases = []struct {
	name string
	doc  string
	fast bool
}{
	{"sigs.k8s.io/yaml.Marshal output", "apiVersion: v1\nkind: Service\nmetadata:\n  labels:\n    app: a\n  name: s\n  namespace: ns\nspec:\n  ports:\n  - name: http\n    port: 80\n  selector: {}\nstatus:\n  loadBalancer: {}\n", true},
	{"indented sequences", "apiVersion: v1\nkind: X\nlist:\n  - a\n  - b: 1\n    c: 2\n  -\n    d: 3\n  -\n", true},
	{"nested compact sequences", "apiVersion: v1\nkind: X\nl:\n- - a\n  - b\n- - c\n", true},
	{"compact sequence in a compact mapping", "apiVersion: v1\nkind: X\nl:\n- k:\n  - a\n  other: b\n- k:\n- z\n", true},
	{"comments and blank lines", "# top\napiVersion: v1 # the version\n\nkind: X   # kind\n  # indented comment\nspec: # below\n  a: 'q' # c\n  b: \"d\" # c\n  c: [] # c\n  e: # nothing\n", true},
	{"YAML 1.1 words", "apiVersion: v1\nkind: X\na: yes\nb: No\nc: on\nd: OFF\ne: y\nf: N\ng: ~\nh: null\ni: True\nj:\nk: nan\nl: Infinity\nm: yesterday\n", true},
	{"digits then letters", "apiVersion: v1\nkind: X\na: 23s\nb: 100Mi\nc: 8080/TCP\nd: 1h30m\ne: 0s\n", true},
	{"integers", "apiVersion: v1\nkind: X\na: 0\nb: 80\nc: -5\nd: 123456789012345678\n", true},
	{"quoted scalars", "apiVersion: v1\nkind: X\na: 'it''s'\nb: \"a\\\"b\\\\c\\n\\td\"\nc: '80'\nd: \"yes\"\ne: ''\n'quoted key': 1\n\"y\": 2\n", true},
	{"plain scalars with indicators inside", "apiVersion: v1\nkind: X\na: http://x:80/p?q=1#frag\nb: a,b [c] {d}\nc: a#b\nd: $HOME\ne: /path\nf: _x\ng: a\"b'c\\d\n", true},
	{"empty value then a sibling", "apiVersion: v1\nkind: X\na:\nb: 1\n", true},
	{"indented root", "  apiVersion: v1\n  kind: X\n", true},
	{"metadata header", "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: r\n  namespace: ns\n  labels:\n    name: not-this\n", true},

	{"flow mapping", "apiVersion: v1\nkind: X\nmetadata: {name: a}\n", false},
	{"flow sequence", "apiVersion: v1\nkind: X\na: [a, b]\n", false},
	{"version", "apiVersion: v1\nkind: X\na: 1.2.3\n", false},
	{"exponent", "apiVersion: v1\nkind: X\na: 1e3\n", false},
	{"hex letters", "apiVersion: v1\nkind: X\na: 12ab\n", false},
	{"date with letters", "apiVersion: v1\nkind: X\na: 2001-12-14t21:59:43.10Z\n", false},
	{"float", "apiVersion: v1\nkind: X\na: 1.5\n", false},
	{"timestamp", "apiVersion: v1\nkind: X\na: 2001-12-14\n", false},
	{"octal", "apiVersion: v1\nkind: X\na: 0755\n", false},
	{"hex", "apiVersion: v1\nkind: X\na: 0x1f\n", false},
	{"plus sign", "apiVersion: v1\nkind: X\na: +5\n", false},
	{"underscores", "apiVersion: v1\nkind: X\na: 1_000\n", false},
	{"big integer", "apiVersion: v1\nkind: X\na: 12345678901234567890\n", false},
	{"minus zero", "apiVersion: v1\nkind: X\na: -0\n", false},
	{"bool key", "apiVersion: v1\nkind: X\ny: 1\n", false},
	{"int key", "apiVersion: v1\nkind: X\n80: 1\n", false},
	{"merge key", "apiVersion: v1\nkind: X\nbase: &b {a: 1}\nm:\n  <<: *b\n", false},
	{"anchor", "apiVersion: v1\nkind: X\na: &x 1\nb: *x\n", false},
	{"tag", "apiVersion: v1\nkind: X\na: !!str 1\n", false},
	{"literal block", "apiVersion: v1\nkind: X\na: |\n  line\n", false},
	{"folded block", "apiVersion: v1\nkind: X\na: >\n  line\n", false},
	{"multi-line plain", "apiVersion: v1\nkind: X\na: one\n  two\n", false},
	{"multi-line plain after a blank line", "apiVersion: v1\nkind: X\na: one\n\n  two\n", false},
	{"multi-line plain in a sequence", "apiVersion: v1\nkind: X\na:\n- one\n  two\n", false},
	{"multi-line quoted", "apiVersion: v1\nkind: X\na: \"one\n  two\"\n", false},
	{"escape the fast path does not take", "apiVersion: v1\nkind: X\na: \"\\x41\"\n", false},
	{"duplicate key", "apiVersion: v1\nkind: X\na: 1\na: 2\n", false},
	{"keys equal but for case", "apiVersion: v1\nkind: X\nspec:\n  name: a\n  Name: b\n", false},
	{"tab", "apiVersion: v1\nkind: X\na:\tb\n", false},
	{"CRLF", "apiVersion: v1\r\nkind: X\r\n", false},
	{"not ASCII", "apiVersion: v1\nkind: X\na: caf\u00e9\n", false},
	{"mapping value in a value", "apiVersion: v1\nkind: X\na: b: c\n", false},
	{"colon at the end of a value", "apiVersion: v1\nkind: X\na: b:\n", false},
	{"bad indentation", "apiVersion: v1\nkind: X\na:\n    b: 1\n  c: 2\n", false},
	{"sequence entry in a mapping", "apiVersion: v1\nkind: X\na: 1\n- b\n", false},
	{"root sequence", "- a\n- b\n", false},
	{"root scalar", "hello\n", false},
	{"comments only", "# nothing\n", false},
	{"no kind", "apiVersion: v1\nmetadata:\n  name: a\n", false},
	{"kind not a string", "apiVersion: v1\nkind: 5\n", false},
	{"kind null", "apiVersion: v1\nkind:\n", false},
	{"name not a string", "apiVersion: v1\nkind: X\nmetadata:\n  name: 5\n", false},
	{"complex key", "apiVersion: v1\nkind: X\n? a\n: b\n", false},
	{"document end marker", "apiVersion: v1\nkind: X\n...\n", false},
	{"quoted value then text", "apiVersion: v1\nkind: X\na: 'b' c\n", false},
	{"key with a space before the colon", "apiVersion: v1\nkind: X\na : b\n", false},
	{"dash value", "apiVersion: v1\nkind: X\na: -\n", false},
	{"dash in a value", "apiVersion: v1\nkind: X\na: - b\n", false},
	{"non-empty flow after a value", "apiVersion: v1\nkind: X\na: {}x\n", false},
	{"item more indented than its sequence", "apiVersion: v1\nkind: X\na:\n- b\n  - c\n", false},
}

// checkTranscode fails the test if the fast path takes doc and reads it
// differently from sigs.k8s.io/yaml (and apimachinery's json, as split
// does), or takes a document sigs.k8s.io/yaml refuses. It reports
// whether the fast path took it.
func checkTranscode(t *testing.T, doc []byte) bool {
	t.Helper()
	var tc transcoder
	if !tc.transcode(doc) {
		return false
	}
	js, err := yaml.YAMLToJSON(doc)
	if err != nil {
		t.Fatalf("fast path took a document sigs.k8s.io/yaml refuses (%v):\n%s", err, doc)
	}
	var want, got map[string]any
	if err := utiljson.Unmarshal(js, &want); err != nil {
		t.Fatalf("fast path took a document that is not an object (%v):\n%s", err, doc)
	}
	if err := utiljson.Unmarshal(tc.out, &got); err != nil {
		t.Fatalf("fast path wrote invalid JSON (%v):\n%s\n%s", err, doc, tc.out)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fast path read\n%s\nas %s\nsigs.k8s.io/yaml reads %s", doc, tc.out, js)
	}
	u := unstructured.Unstructured{Object: want}
	if h := tc.hdr; h.apiVersion != u.GetAPIVersion() || h.kind != u.GetKind() || h.name != u.GetName() || h.namespace != u.GetNamespace() {
		t.Fatalf("header %+v, want apiVersion %q kind %q name %q namespace %q:\n%s", h, u.GetAPIVersion(), u.GetKind(), u.GetName(), u.GetNamespace(), doc)
	}
	return true
}

func TestTranscodeMatchesYAML(t *testing.T) {
	for _, tc := range transcodeCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := checkTranscode(t, []byte(tc.doc)); got != tc.fast {
				t.Errorf("fast path took it: %v, want %v", got, tc.fast)
			}
		})
	}
}

// TestTranscodeFiles runs every YAML document of the repository's examples
// and test data through checkTranscode, and the synthetic world of
// docs/performance.md, which must take the fast path whole: it is what
// sigs.k8s.io/yaml.Marshal writes.
func TestTranscodeFiles(t *testing.T) {
	var files []string
	for _, root := range []string{"../../../examples", "testdata"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				files = append(files, path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	fast, all := 0, 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range yamlDocuments(b) {
			all++
			if checkTranscode(t, d) {
				fast++
			}
		}
	}
	t.Logf("examples and test data: %d of %d documents on the fast path", fast, all)

	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	if err := synth.WriteYAML(w, synth.Generate(synth.Sizes{Namespaces: 4, Gateways: 8, Routes: 80, Services: 80, Policies: 60}, 1)); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	for i, d := range yamlDocuments(buf.Bytes()) {
		if len(bytes.TrimSpace(d)) > 0 && !checkTranscode(t, d) {
			t.Errorf("synthetic document %d not on the fast path:\n%s", i+1, d)
		}
	}
}

// FuzzTranscode checks that whatever the fast path takes, it reads as
// sigs.k8s.io/yaml does.
func FuzzTranscode(f *testing.F) {
	for _, tc := range transcodeCases {
		f.Add(tc.doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		checkTranscode(t, []byte(doc))
	})
}

// yamlDocuments is yamlDocumentLines' documents, in a slice.
func yamlDocuments(b []byte) [][]byte {
	var docs [][]byte
	for d := range yamlDocumentLines(b) {
		docs = append(docs, d)
	}
	return docs
}
