package files

import (
	"bytes"
	"fmt"
	"math/rand/v2"
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
