package files

import (
	"bytes"
	"strings"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/strata-dev/strata/pkg/source/yamljson"
)

// span is where an item is in a List document: text[start:end].
type span struct{ start, end int }

// blockList splits a block-style YAML List, as `kubectl get -o yaml`
// writes it, into its header (the document without its items) and each
// item de-indented into a document of its own, so that the items take the
// transcoder's fast path one by one. It recognizes only a root key
// `items:` followed by block sequence entries at one indentation:
//
//	apiVersion: v1
//	items:
//	- apiVersion: v1
//	  kind: Service
//	  ...
//	kind: List
//
// and answers ok == false for anything else.
func blockList(raw []byte) (header []byte, items [][]byte, ok bool) {
	header, spans, marker, ok := blockListSpans(raw)
	if !ok {
		return nil, nil, false
	}
	items = make([][]byte, len(spans))
	for i, s := range spans {
		if items[i], ok = blockItem(raw[s.start:s.end], marker); !ok {
			return nil, nil, false
		}
	}
	return header, items, true
}

// blockListSpans is the first half of blockList: the header, the spans
// of the items in raw, and the indentation of their "-" markers.
func blockListSpans(raw []byte) (header []byte, items []span, marker int, ok bool) {
	if otherBreaks(raw) {
		return nil, nil, 0, false
	}
	var hdr bytes.Buffer
	in := false // inside the items' region
	marker = -1
	pos := 0 // of line in raw
	for line := range bytes.Lines(raw) {
		lineStart := pos
		pos += len(line)
		text := bytes.TrimRight(line, "\n")
		if !in {
			hdr.Write(line)
			if bytes.Equal(bytes.TrimRight(text, " "), []byte("items:")) {
				in = true
			}
			continue
		}
		trimmed := bytes.TrimLeft(text, " ")
		indent := len(text) - len(trimmed)
		cur := len(items) > 0 && items[len(items)-1].end == lineStart // an item is open
		switch {
		case cur && indent >= marker+2:
			// The item's own line, whatever it holds (maybe a block
			// scalar's content).
			items[len(items)-1].end = pos
		case len(trimmed) == 0 || trimmed[0] == '#':
			// A comment or blank, less indented than any item content.
			if cur {
				items[len(items)-1].end = pos
			}
		case trimmed[0] == '-' && (len(trimmed) == 1 || trimmed[1] == ' ') && (marker < 0 || indent == marker):
			if marker < 0 {
				if indent > 2 {
					return nil, nil, 0, false
				}
				marker = indent
			}
			items = append(items, span{lineStart, pos})
		case indent == 0 && rootKey(trimmed):
			// The next root key: the items are over.
			in = false
			hdr.Write(line)
		default:
			return nil, nil, 0, false
		}
	}
	if marker < 0 || len(items) == 0 {
		return nil, nil, 0, false
	}
	return hdr.Bytes(), items, marker, true
}

// otherBreaks reports whether raw holds a line break other than "\n"
// that go-yaml v2 counts ("\r", NEL, LS, PS), which the split would miss.
func otherBreaks(raw []byte) bool {
	return bytes.IndexByte(raw, '\r') >= 0 || bytes.Contains(raw, []byte("\u0085")) ||
		bytes.Contains(raw, []byte("\u2028")) || bytes.Contains(raw, []byte("\u2029"))
}

// rootKey reports whether a line at column 0 after the items is plainly
// the next key of the root mapping: a plain key of kubectl's characters,
// or a quoted one without quotes inside, then ":" and a space or the end.
func rootKey(line []byte) bool {
	end := 0
	switch {
	case len(line) > 0 && (line[0] == '"' || line[0] == '\''):
		close := bytes.IndexByte(line[1:], line[0])
		if close < 0 {
			return false
		}
		end = close + 2
	default:
		for end < len(line) && (isLetter(line[end]) || isDigit(line[end]) || bytes.IndexByte([]byte("_./-"), line[end]) >= 0) {
			end++
		}
		if end == 0 {
			return false
		}
	}
	return end < len(line) && line[end] == ':' && (end+1 == len(line) || line[end+1] == ' ')
}

// blockItem is the document of one item of a block List whose "-" marker
// is at column marker: its first line without the marker, the others
// de-indented, lines less indented than its content made empty. ok is
// false when the document would not read as the item does: a line at
// column 0 that is a document marker or a directive, or content that is
// (or may start) a block scalar, whose column 0 means otherwise.
func blockItem(lines []byte, marker int) (doc []byte, ok bool) {
	cut := marker + 2
	out := make([]byte, 0, len(lines))
	first, content := true, false // content: the item's content has begun
	for line := range bytes.Lines(lines) {
		var text []byte // the line as the document has it
		if first {
			// "- content": what follows "- " (or "-").
			first = false
			t := bytes.TrimRight(line, "\n")
			trimmed := bytes.TrimLeft(t, " ")
			text = bytes.TrimLeft(line, " ")[min(2, len(trimmed)):]
		} else if len(line) > cut && bytes.Count(line[:cut], []byte(" ")) == cut {
			text = line[cut:]
		}
		body := bytes.TrimRight(text, "\n")
		if len(body) == 0 {
			out = append(out, '\n')
			continue
		}
		if columnZero(text) {
			return nil, false
		}
		if c := bytes.TrimLeft(body, " "); !content && len(c) > 0 && c[0] != '#' {
			content = true
			if bytes.IndexByte([]byte("|>!&"), c[0]) >= 0 {
				return nil, false
			}
		}
		out = append(out, text...)
	}
	return out, true
}

// columnZero reports whether a line at column 0 of a document is a
// document marker ("---", "...") or a directive ("%...").
func columnZero(line []byte) bool {
	if len(line) > 0 && line[0] == '%' {
		return true
	}
	if !bytes.HasPrefix(line, []byte("---")) && !bytes.HasPrefix(line, []byte("...")) {
		return false
	}
	return len(line) == 3 || bytes.IndexByte([]byte(" \t\n"), line[3]) >= 0
}

// parseBlockList reads a YAML List document split by blockList: the
// header's map with `items` set to the items' values. ok is false when the
// header is not a List or an item does not parse on its own (an alias of
// another item's anchor, say).
func parseBlockList(raw []byte) (map[string]any, bool) {
	header, items, ok := blockList(raw)
	if !ok {
		return nil, false
	}
	var obj map[string]any
	if !yamlValue(header, &obj) || obj == nil {
		return nil, false
	}
	if k, _ := obj["kind"].(string); !strings.HasSuffix(k, "List") {
		return nil, false
	}
	vals := make([]any, len(items))
	var t transcoder
	for i := range items {
		if !t.transcode(items[i]) {
			if !yamlValue(items[i], &vals[i]) {
				return nil, false
			}
			continue
		}
		v, err := generic(t.out)
		if err != nil {
			return nil, false
		}
		vals[i] = v
	}
	obj["items"] = vals
	return obj, true
}

// yamlValue reads a YAML document into v as split does.
func yamlValue(y []byte, v any) bool {
	js, err := yamljson.ToJSONStrict(y)
	return err == nil && utiljson.Unmarshal(js, v) == nil
}
