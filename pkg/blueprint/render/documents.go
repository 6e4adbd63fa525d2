package render

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/strata-dev/strata/pkg/source/yamljson"
)

// document is one YAML document of a template's rendered output.
type document struct {
	// N counts the non-empty documents of the output from 1: the Nth
	// object the template rendered.
	N int
	// Line is the line of the rendered output the document starts on.
	Line int
	// Object is the decoded document: JSON types, whole numbers as int64.
	Object map[string]any
	// holes are the values the template put in the document.
	holes []hole
}

// where names a document for messages.
func (d document) where() string {
	return fmt.Sprintf("rendered document %d (line %d of the rendered output)", d.N, d.Line)
}

// yamlLineRE finds the line a YAML error is about.
var yamlLineRE = regexp.MustCompile(`(?m)\bline (\d+): (.*)$`)

// decodeObject decodes d's object from the YAML of one document, as
// strict YAML (a key given twice is an error): ok is false for an empty
// document (null: blank or comments only), which is skipped; any other
// must be an object. Errors name the document and the line of the
// rendered output it starts on.
func decodeObject(d *document, y []byte) (ok bool, err error) {
	j, err := yamljson.ToJSONStrict(y)
	if err != nil {
		return false, fmt.Errorf("rendered document %d (from line %d of the rendered output): %w", d.N, d.Line, err)
	}
	if j = bytes.TrimSpace(j); bytes.Equal(j, []byte("null")) {
		return false, nil
	}
	if len(j) == 0 || j[0] != '{' {
		return false, fmt.Errorf("%s: is %s, want an object with apiVersion, kind and metadata.name", d.where(), jsonKind(j))
	}
	if err := utiljson.Unmarshal(j, &d.Object); err != nil {
		return false, fmt.Errorf("%s: %w", d.where(), err)
	}
	return true, nil
}

// chunk is the text of one document and the output line it starts on.
type chunk struct {
	text []byte
	line int
}

// splitDocuments splits a template's output on lines starting with `---` followed by nothing
// or a blank: YAML's document marker. What follows the marker on its line
// stays in the next document, blanked marker and all, so lines and
// columns keep their place.
func splitDocuments(out []byte) []chunk {
	var chunks []chunk
	cur := chunk{line: 1}
	line := 0
	for len(out) > 0 {
		line++
		i := bytes.IndexByte(out, '\n')
		var l []byte
		if i < 0 {
			l, out = out, nil
		} else {
			l, out = out[:i+1], out[i+1:]
		}
		if bytes.HasPrefix(l, []byte("---")) && (len(l) == 3 || l[3] == ' ' || l[3] == '\t' || l[3] == '\n' || l[3] == '\r') {
			chunks = append(chunks, cur)
			cur = chunk{line: line, text: append([]byte("   "), l[3:]...)}
			continue
		}
		cur.text = append(cur.text, l...)
	}
	return append(chunks, cur)
}

// yamlError rewrites a YAML error of chunk c (document n) to name the
// line of the whole rendered output.
func yamlError(n int, c chunk, err error) error {
	msg := err.Error()
	m := yamlLineRE.FindStringSubmatch(msg)
	if m == nil {
		return fmt.Errorf("rendered document %d (from line %d of the rendered output): %s", n, c.line, msg)
	}
	l, _ := strconv.Atoi(m[1])
	l += c.line - 1
	return fmt.Errorf("line %d of the rendered output (document %d): yaml: %s%s", l, n, m[2], near(c.text, l-c.line+1))
}

// near quotes line l (from 1) of text, to show what YAML tripped on.
func near(text []byte, l int) string {
	lines := strings.Split(string(text), "\n")
	if l < 1 || l > len(lines) {
		return ""
	}
	s := strings.TrimRight(lines[l-1], "\r")
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return ": " + strconv.Quote(s)
}

// jsonKind names the JSON type of a value, for messages.
func jsonKind(j []byte) string {
	if len(j) == 0 {
		return "empty"
	}
	switch j[0] {
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}
