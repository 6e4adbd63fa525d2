package emit

import (
	"encoding/json"
	"fmt"
	"sort"
)

// jsonObject is a JSON object's members in the order of the text.
type jsonObject []jsonMember

type jsonMember struct {
	key   string
	value any
}

// jsonTree is v as encoding/json writes it, read back into jsonObject,
// []any, string, json.Number, bool and nil; strings without escapes are
// slices of the encoded text.
func jsonTree(v any) (any, error) {
	js, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode output: %w", err)
	}
	out, err := readCompact(string(js))
	if err != nil {
		return nil, fmt.Errorf("encode output: read back JSON: %w", err)
	}
	return out, nil
}

// jsonReader reads the compact JSON encoding/json.Marshal writes.
type jsonReader struct {
	s string
	i int
}

func (r *jsonReader) value() (any, error) {
	if r.i >= len(r.s) {
		return nil, fmt.Errorf("unexpected end at offset %d", r.i)
	}
	switch c := r.s[r.i]; {
	case c == '{':
		r.i++
		var obj jsonObject
		if r.i < len(r.s) && r.s[r.i] == '}' {
			r.i++
			return jsonObject{}, nil
		}
		for {
			k, err := r.str()
			if err != nil {
				return nil, err
			}
			if err := r.expect(':'); err != nil {
				return nil, err
			}
			v, err := r.value()
			if err != nil {
				return nil, err
			}
			obj = append(obj, jsonMember{k, v})
			if r.i < len(r.s) && r.s[r.i] == ',' {
				r.i++
				continue
			}
			return obj, r.expect('}')
		}
	case c == '[':
		r.i++
		list := []any{}
		if r.i < len(r.s) && r.s[r.i] == ']' {
			r.i++
			return list, nil
		}
		for {
			v, err := r.value()
			if err != nil {
				return nil, err
			}
			list = append(list, v)
			if r.i < len(r.s) && r.s[r.i] == ',' {
				r.i++
				continue
			}
			return list, r.expect(']')
		}
	case c == '"':
		return r.str()
	case c == 't' && r.literal("true"):
		return true, nil
	case c == 'f' && r.literal("false"):
		return false, nil
	case c == 'n' && r.literal("null"):
		return nil, nil
	case c == '-' || c >= '0' && c <= '9':
		start := r.i
		for r.i < len(r.s) && isNumberByte(r.s[r.i]) {
			r.i++
		}
		return json.Number(r.s[start:r.i]), nil
	}
	return nil, fmt.Errorf("unexpected %q at offset %d", r.s[r.i], r.i)
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

func (r *jsonReader) literal(word string) bool {
	if len(r.s)-r.i >= len(word) && r.s[r.i:r.i+len(word)] == word {
		r.i += len(word)
		return true
	}
	return false
}

func (r *jsonReader) expect(c byte) error {
	if r.i >= len(r.s) || r.s[r.i] != c {
		return fmt.Errorf("want %q at offset %d", c, r.i)
	}
	r.i++
	return nil
}

// str reads a string; one with escapes is decoded by encoding/json.
func (r *jsonReader) str() (string, error) {
	if err := r.expect('"'); err != nil {
		return "", err
	}
	start, escaped := r.i, false
	for r.i < len(r.s) {
		switch r.s[r.i] {
		case '\\':
			escaped = true
			r.i += 2
			continue
		case '"':
			r.i++
			if !escaped {
				return r.s[start : r.i-1], nil
			}
			var s string
			if err := json.Unmarshal([]byte(r.s[start-1:r.i]), &s); err != nil {
				return "", err
			}
			return s, nil
		}
		r.i++
	}
	return "", fmt.Errorf("unterminated string at offset %d", start)
}

// sortMembers sorts an object's members in go-yaml's key order, members
// of the same name in the order of the text.
func sortMembers(o jsonObject) {
	sort.Stable(memberList(o))
}

type memberList []jsonMember

func (l memberList) Len() int           { return len(l) }
func (l memberList) Swap(i, j int)      { l[i], l[j] = l[j], l[i] }
func (l memberList) Less(i, j int) bool { return keyLess(l[i].key, l[j].key) }

// readCompact reads JSON written by encoding/json (jsonReader).
func readCompact(s string) (any, error) {
	r := jsonReader{s: s}
	v, err := r.value()
	if err == nil && r.i != len(r.s) {
		err = fmt.Errorf("trailing data at offset %d", r.i)
	}
	return v, err
}
