package files

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// splitYAMLLines is splitYAML as it read line by line, before it looked
// for markers with bytes.Index: the reading splitYAML must keep.
func splitYAMLLines(b []byte, yield func([]byte, int) bool) {
	start, startLine := 0, 1
	lineNo := 1
	first, prefixOnly := true, true
	for pos := 0; pos < len(b); lineNo++ {
		end := bytes.IndexByte(b[pos:], '\n') + 1
		if end == 0 {
			end = len(b) - pos
		}
		line := b[pos : pos+end]
		if rest, ok := bytes.CutPrefix(line, []byte("---")); ok && (len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\r' || rest[0] == '\n') {
			if !first || !prefixOnly {
				if !yield(b[start:pos], startLine) {
					return
				}
			}
			first = false
			start, startLine = pos+end, lineNo+1
			if t := bytes.TrimSpace(rest); len(t) > 0 && t[0] != '#' {
				start, startLine = pos+3, lineNo
			}
		} else if first && prefixOnly {
			t := bytes.TrimSpace(line)
			prefixOnly = len(t) == 0 || t[0] == '#' || t[0] == '%'
		}
		pos += end
	}
	if !first || !prefixOnly || len(bytes.TrimSpace(b[start:])) > 0 {
		yield(b[start:], startLine)
	}
}

// TestSplitYAMLIsLineByLine compares splitYAML's documents and their
// lines with the line-by-line reading's, on streams built from lines
// that are markers or nearly (---, --- x, --- #, ---x, ----, " ---"),
// comments, directives, blanks, content and CRLF endings, and on the
// test inputs; and that it stops when yield says to.
func TestSplitYAMLIsLineByLine(t *testing.T) {
	pieces := []string{"---", "--- ", "---\t# c", "--- {a: 1}", "---x", "----", " ---", "--", "-", "# comment", "%YAML 1.2", "", "  ", "a: 1", "- b", "key: ---", "\r", "---\r"}
	split := func(f func([]byte, func([]byte, int) bool), b []byte, most int) []string {
		var out []string
		f(b, func(d []byte, line int) bool {
			out = append(out, fmt.Sprintf("%d:%q", line, d))
			return len(out) < most
		})
		return out
	}
	r := rand.New(rand.NewPCG(5, 8))
	inputs := []string{"", "\n", "---", "---\n", "a: 1", "a: 1\n---\nb: 2\n", "# c\n---\na: 1"}
	for range 5000 {
		var lines []string
		for range r.IntN(12) {
			lines = append(lines, pieces[r.IntN(len(pieces))])
		}
		end := []string{"", "\n", "\r\n"}[r.IntN(3)]
		inputs = append(inputs, strings.Join(lines, []string{"\n", "\r\n"}[r.IntN(2)])+end)
	}
	for _, in := range inputs {
		for _, most := range []int{1, 2, 1 << 30} {
			want, got := split(splitYAMLLines, []byte(in), most), split(splitYAML, []byte(in), most)
			if !slices.Equal(want, got) {
				t.Fatalf("%q (at most %d): split %v, line by line %v", in, most, got, want)
			}
		}
	}
}

// TestSplitInputsInParts checks that an input split in parts on several
// cores (in parts smaller than splitInputs makes) gives the documents, numbers, lines and JSON values of the split
// on one core (splitInput), for inputs of several MiB whose documents
// are YAML with lines that are nearly markers, comments, content on the
// marker line, JSON objects and streams, after markers of every form,
// with LF or CRLF endings, a first document without a marker or after a
// prefix; and that an input with invalid JSON after a document, in any
// part, gets the one-core split's documents and message.
func TestSplitInputsInParts(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	markers := []string{"---", "--- ", "---\t# c", "---\r", "--- {a: 1}"}
	yamlLines := []string{"a: 1", "- b", "# comment", "", "---x", "----", " ---", "key: ---"}
	jsonDocs := []string{`{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}`, `{"a": 1} {"b": 2}`, "{\"a\": 1}\n{\"b\": [2]}"}
	// Parts of 64 KiB, up to 8 an input: the parts' documents are numbered
	// on and their lines offset over several parts.
	const least = 64 << 10
	cut := func(b []byte) []int { return splitParts(b, 8, least) }
	r := rand.New(rand.NewPCG(7, 9))
	build := func(prefix string, bad bool) []byte {
		var b strings.Builder
		b.WriteString(prefix)
		nl := []string{"\n", "\r\n"}[r.IntN(2)]
		for b.Len() < 4*least+r.IntN(least) {
			b.WriteString(markers[r.IntN(len(markers))] + nl)
			if r.IntN(16) == 0 {
				b.WriteString(jsonDocs[r.IntN(len(jsonDocs))] + nl)
				continue
			}
			for range r.IntN(6) {
				b.WriteString(yamlLines[r.IntN(len(yamlLines))] + nl)
			}
		}
		s := b.String()
		if bad {
			cut := len(s) / 2
			if k := strings.Index(s[cut:], nl+"---"); k >= 0 {
				cut += k + len(nl)
			}
			s = s[:cut] + "---" + nl + `{"a": 1} not json` + nl + s[cut:]
		}
		return []byte(s)
	}
	key := func(d rawDocument) string {
		s := fmt.Sprintf("%s #%d line %d json %v %q", d.file, d.index, d.line, d.json, d.raw)
		if d.err != nil {
			s += " error " + d.err.Error()
		}
		return s
	}
	for i, prefix := range []string{"", "a: 0\n", "# only a comment\n\n", "--- {a: 1}\n", "---x\nb: 1\n"} {
		for _, bad := range []bool{false, true} {
			b := build(prefix, bad)
			if cuts := cut(b); len(cuts) < 4 {
				t.Fatalf("input %d: %d parts of %d bytes", i, len(cuts), len(b))
			}
			{
				want := splitInput(nil, "f.yaml", b)
				errs := 0
				for _, d := range want {
					if d.err != nil {
						errs++
					}
				}
				if bad != (errs > 0) {
					t.Fatalf("input %d (bad %v): %d invalid documents", i, bad, errs)
				}
				got := splitInputsAt([]input{{file: "a.yaml", b: []byte("a: 1\n")}, {file: "f.yaml", b: b}}, cut)
				if len(got) == 0 || key(got[0]) != key(rawDocument{file: "a.yaml", index: 1, line: 1, raw: []byte("a: 1\n")}) {
					t.Fatalf("input %d: the first input's document is %v", i, got[:min(1, len(got))])
				}
				got = got[1:]
				if len(got) != len(want) {
					t.Fatalf("input %d (bad %v): %d documents in parts, %d on one core", i, bad, len(got), len(want))
				}
				for j := range want {
					g, w := got[j], want[j]
					same := g.file == w.file && g.index == w.index && g.line == w.line && g.json == w.json && bytes.Equal(g.raw, w.raw) &&
						(g.err == nil) == (w.err == nil)
					if !same || g.err != nil && g.err.Error() != w.err.Error() {
						t.Fatalf("input %d (bad %v), document %d:\n got %s\nwant %s", i, bad, j+1, key(g), key(w))
					}
				}
			}
		}
	}
}

// TestSplitPartsAtMarkers checks the cuts: at the start of a marker
// line, after the input's first marker, increasing, a MiB apart at
// least on average, and none in an input without markers.
func TestSplitPartsAtMarkers(t *testing.T) {
	doc := "a: 1\n---\n"
	b := []byte("# prefix\n" + strings.Repeat(doc, 4*minPart/len(doc)))
	cuts := splitParts(b, 4, minPart)
	if len(cuts) != 4 || cuts[0] != 0 {
		t.Fatalf("cuts %v, want 4 from 0", cuts)
	}
	first := bytes.Index(b, []byte("\n---")) + 1
	for k, c := range cuts[1:] {
		if c <= first || c <= cuts[k] || b[c-1] != '\n' || !bytes.HasPrefix(b[c:], []byte("---\n")) {
			t.Errorf("cut %d at %d: not at a marker line after the first (%d) and the cut before (%d)", k+1, c, first, cuts[k])
		}
	}
	if cuts := splitParts(bytes.Repeat([]byte("a: 1\n"), minPart), 4, minPart); len(cuts) != 1 {
		t.Errorf("an input without markers is cut at %v", cuts)
	}
	if cuts := splitParts([]byte("a: 1\n---\nb: 2\n"), 4, minPart); len(cuts) != 1 {
		t.Errorf("a small input is cut at %v", cuts)
	}
	if cuts := splitParts(append(bytes.Repeat([]byte("a: 1\n"), minPart), "---\nb: 2\n"...), 4, minPart); len(cuts) != 1 {
		t.Errorf("an input whose only marker is its first is cut at %v", cuts)
	}
}
