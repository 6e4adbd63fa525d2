package files

import (
	"bytes"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/strata-dev/strata/pkg/source/yamljson"
)

// span is where an item is in a List document: text[start:end].
type span struct{ start, end int }

// blockList splits a block-style YAML List, as `kubectl get -o yaml` and
// sigs.k8s.io/yaml.Marshal write it, into its header (the document with
// its items left out) and the text of each item, de-indented into a
// document of its own, so that the items are parsed one by one on
// the transcoder's fast path rather than by one YAML parse of the whole
// dump (ten times as slow for the 46,000 objects of the performance
// world). It recognizes only this shape, a root key `items:` followed by
// block sequence entries at one indentation:
//
//	apiVersion: v1
//	items:
//	- apiVersion: v1
//	  kind: Service
//	  ...
//	kind: List
//
// and answers ok == false for anything else, which the caller reads with
// the YAML parser as before.
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

// blockListSpans is the first half of blockList: the header, where each
// item's lines are in raw, and the indentation of the items' "-"
// markers. blockItem makes each item's document of its lines.
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
			// The item's own line, whatever it holds: a blank line or a
			// comment-like line may be a block scalar's content.
			items[len(items)-1].end = pos
		case len(trimmed) == 0 || trimmed[0] == '#':
			// Less indented than any item content: a comment or blank
			// (an empty line of the item's document).
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

// otherBreaks reports whether raw holds a line break other than "\n":
// a "\r" (alone, or before "\n"), or one of the breaks of YAML 1.1 that
// go-yaml v2 counts (NEL, LS, PS). The split above reads lines at "\n"
// only, where the YAML parser would see more ("- \r-" is two entries).
func otherBreaks(raw []byte) bool {
	return bytes.IndexByte(raw, '\r') >= 0 || bytes.Contains(raw, []byte("\u0085")) ||
		bytes.Contains(raw, []byte("\u2028")) || bytes.Contains(raw, []byte("\u2029"))
}

// rootKey reports whether a line at column 0 after the items is plainly
// the next key of the root mapping: a plain key of the characters
// kubectl's keys are made of, or a quoted one without quotes inside,
// then ":" and a space or the line's end. Anything else there (a block
// scalar's "|" under an empty "-" entry, which the YAML parser reads as
// that entry's value, say) is left to the parser.
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

// blockItem is the document of one item of a block List, whose lines
// are lines and whose "-" marker is at column marker: its first line
// without the marker, the others de-indented; lines less indented than
// its content (blank, or comments) are empty lines. Line ends are kept as
// they are (a block scalar at the end of the file has none).
//
// ok is false when the document would not read as the item does, for
// what column 0 means to the YAML parser: a line there that is a
// document marker ("---", "...") or a directive ("%"), and a block
// scalar (or a tag or an anchor, which may start one) as the item's
// content, whose lines at column 0 are not a root block scalar's ("- |"
// then "  0" is "0" in the List, "" on its own).
func blockItem(lines []byte, marker int) (doc []byte, ok bool) {
	cut := marker + 2
	out := make([]byte, 0, len(lines))
	first, content := true, false // content: the item's content has begun
	for line := range bytes.Lines(lines) {
		var text []byte // the line as the document has it
		if first {
			// "- content": what follows "- " (or "-"), as if indented
			// to the item's content.
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

// columnZero reports whether a line means something else at column 0 of
// a document than as content: a document marker ("---" or "..." alone or
// before a blank) or a directive ("%...").
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
// header's map with `items` set to the items' values, parsed on every
// core. ok is false when the header is not a List or an item does not
// parse on its own (an alias of another item's anchor, say): the caller
// then reads the whole document with the YAML parser, errors included.
func parseBlockList(raw []byte) (map[string]any, bool) {
	header, items, ok := blockList(raw)
	if !ok {
		return nil, false
	}
	hjs, err := yamljson.ToJSONStrict(header)
	if err != nil {
		return nil, false
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(hjs, &obj); err != nil || obj == nil {
		return nil, false
	}
	if k, _ := obj["kind"].(string); len(k) < 4 || k[len(k)-4:] != "List" {
		return nil, false
	}
	vals := make([]any, len(items))
	var t transcoder
	for i := range items {
		if t.transcode(items[i]) {
			v, err := generic(t.out)
			if err != nil {
				return nil, false
			}
			vals[i] = v
			continue
		}
		js, err := yamljson.ToJSONStrict(items[i])
		if err != nil {
			return nil, false
		}
		if err := utiljson.Unmarshal(js, &vals[i]); err != nil {
			return nil, false
		}
	}
	obj["items"] = vals
	return obj, true
}
