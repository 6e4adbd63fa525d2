// Package yamljson reads a YAML document into JSON as sigs.k8s.io/yaml
// does, and refuses the two inputs that reading gets wrong without a
// word.
//
// Keys that are one JSON key: the integer 9, the float 9 (`09:`) and the
// string "9" are three keys in YAML and one in JSON, and YAMLToJSON keeps
// the value of whichever Go's map order gives last, which changes from
// run to run. Strata promises the same output for the same input, so such
// a mapping is an error naming where it is and the keys.
//
// A second document: YAMLToJSON reads the first and drops the others
// unsaid, such as one that begins after a line "..." or a lone "\r".
//
// The rest is YAMLToJSON's reading: go-yaml v2's decoder, its key
// conversion (convertToJSONableObject) and encoding/json.
package yamljson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v2"
)

// ToJSON is sigs.k8s.io/yaml.YAMLToJSON, refusing a mapping with two keys
// that are one JSON key, and text that holds more than one document.
func ToJSON(y []byte) ([]byte, error) { return toJSON(y, false) }

// ToJSONStrict is sigs.k8s.io/yaml.YAMLToJSONStrict (a key given twice is
// an error), refusing a mapping with two keys that are one JSON key, and
// text that holds more than one document.
func ToJSONStrict(y []byte) ([]byte, error) { return toJSON(y, true) }

// errMoreDocuments is the error for text with a second document: the
// callers split their input on lines "---", so it began after a line
// "..." or a line break other than "\n".
var errMoreDocuments = errors.New(`yaml: a second YAML document follows the first, after a line "..." or a line break that is not "\n"; begin each document with a line "---" after "\n"`)

func toJSON(y []byte, strict bool) ([]byte, error) {
	dec := yaml.NewDecoder(bytes.NewReader(y))
	dec.SetStrict(strict)
	var v any
	if err := dec.Decode(&v); err != nil && err != io.EOF {
		return nil, err
	}
	var next any
	switch err := dec.Decode(&next); err {
	case io.EOF:
	case nil:
		return nil, errMoreDocuments
	default:
		return nil, err
	}
	j, ok := jsonable(v)
	if !ok {
		// Walked again in a fixed order, so that of several problems
		// the same one is reported every time.
		if err := problem(v, ""); err != nil {
			return nil, err
		}
		return nil, errors.New("yaml: two keys of a mapping are one JSON key")
	}
	return json.Marshal(j)
}

// jsonable converts go-yaml's value to encoding/json's, keys as
// sigs.k8s.io/yaml converts them. ok is false when a key has no JSON form
// or two keys of a mapping have the same one; problem then says which.
func jsonable(v any) (any, bool) {
	switch v := v.(type) {
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			key, ok := keyString(k)
			if !ok {
				return nil, false
			}
			if _, twice := m[key]; twice {
				return nil, false
			}
			if m[key], ok = jsonable(e); !ok {
				return nil, false
			}
		}
		return m, true
	case []any:
		l := make([]any, len(v))
		for i, e := range v {
			var ok bool
			if l[i], ok = jsonable(e); !ok {
				return nil, false
			}
		}
		return l, true
	default:
		return v, true
	}
}

// keyString is the JSON key sigs.k8s.io/yaml makes of a YAML key (nil and
// collections have none); a float is written at 32 bits, as go-yaml does.
func keyString(k any) (string, bool) {
	switch k := k.(type) {
	case string:
		return k, true
	case int:
		return strconv.Itoa(k), true
	case int64:
		return strconv.FormatInt(k, 10), true
	case float64:
		switch s := strconv.FormatFloat(k, 'g', -1, 32); s {
		case "+Inf":
			return ".inf", true
		case "-Inf":
			return "-.inf", true
		case "NaN":
			return ".nan", true
		default:
			return s, true
		}
	case bool:
		return strconv.FormatBool(k), true
	default:
		return "", false
	}
}

// problem finds, in the order of the document's JSON, the first mapping
// with a key that has no JSON form or two keys that are one, and says
// where it is (a field path, "" for the root) and which keys, typed as
// go-yaml read them.
func problem(v any, at string) error {
	switch v := v.(type) {
	case map[any]any:
		type entry struct {
			key string
			k   any
			e   any
		}
		entries := make([]entry, 0, len(v))
		for k, e := range v {
			key, ok := keyString(k)
			if !ok {
				return fmt.Errorf("%s: a key is %s, which has no JSON form; keys must be strings, numbers or booleans", where(at), describe(k))
			}
			entries = append(entries, entry{key, k, e})
		}
		slices.SortFunc(entries, func(a, b entry) int {
			if c := strings.Compare(a.key, b.key); c != 0 {
				return c
			}
			return strings.Compare(describe(a.k), describe(b.k))
		})
		for i := 1; i < len(entries); i++ {
			if a, b := entries[i-1], entries[i]; a.key == b.key {
				return fmt.Errorf("%s: %s and %s are both the JSON key %q, and only one would be kept; quote the keys meant as strings", where(at), describe(a.k), describe(b.k), a.key)
			}
		}
		for _, en := range entries {
			if err := problem(en.e, field(at, en.key)); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range v {
			if err := problem(e, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// field is the path of key in the mapping at path at.
func field(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}

// where names a path for a message.
func where(at string) string {
	if at == "" {
		return "the document's top level"
	}
	return at
}

// describe is a YAML key with its type as go-yaml read it: `the integer 9`.
func describe(k any) string {
	switch k := k.(type) {
	case string:
		return fmt.Sprintf("the string %q", k)
	case int, int64:
		return fmt.Sprintf("the integer %d", k)
	case float64:
		return "the float " + strconv.FormatFloat(k, 'g', -1, 64)
	case bool:
		return fmt.Sprintf("the boolean %t", k)
	case nil:
		return "null"
	default:
		return fmt.Sprintf("a %T", k)
	}
}
