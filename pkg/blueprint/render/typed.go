package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// TypeError is a rendered object of a built-in kind with a field of the
// wrong type (a string where a number goes) or a field the kind does not
// have. Field is the field's path (spec.ports[0].port) and Pointer the
// same as a JSON pointer; both are empty when unknown.
type TypeError struct {
	Kind, Name string
	Field      string
	Pointer    string
	Err        error
}

func (e *TypeError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s %s is not a valid %s: %v", e.Kind, e.Name, e.Kind, e.Err)
	}
	return fmt.Sprintf("%s %s: %s: %v", e.Kind, e.Name, e.Field, e.Err)
}

// checkTyped decodes obj strictly into its Go type when types knows its
// kind, as the API server would read it; other kinds pass, as does every
// kind when types is nil.
func checkTyped(types runtime.ObjectCreater, obj *unstructured.Unstructured) error {
	if types == nil {
		return nil
	}
	typed, err := types.New(obj.GroupVersionKind())
	if err != nil {
		return nil // not a built-in kind (or version): the server's schema decides
	}
	b, err := json.Marshal(obj.Object)
	if err != nil {
		return &TypeError{Kind: obj.GetKind(), Name: obj.GetName(), Err: err}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(typed); err != nil {
		te := &TypeError{Kind: obj.GetKind(), Name: obj.GetName(), Err: err}
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			// ute.Field leaves out the indexes of lists
			// (spec.template.spec.containers.image): the value is found
			// by where in b it was read.
			te.Field = ute.Field
			if ptr, field, ok := pointerAt(b, ute.Offset); ok {
				te.Pointer, te.Field = ptr, field
			}
			te.Err = fmt.Errorf("cannot read %s as %s", ute.Value, ute.Type)
		} else if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			te.Err = fmt.Errorf("unknown field %s", f)
		}
		return te
	}
	return nil
}

// pointerAt finds the value of JSON document b that an
// UnmarshalTypeError.Offset points at and returns its JSON pointer and
// field path; ok is false when no value is there.
func pointerAt(b []byte, offset int64) (pointer, field string, ok bool) {
	type frame struct {
		object   bool
		key      string // object: the current member's
		index    int    // list: the current item's
		wantsKey bool   // object: the next string is a key
	}
	var stack []frame
	at := func() (string, string) {
		var p, f strings.Builder
		for _, fr := range stack {
			if fr.object {
				p.WriteString("/" + pointerEscape(fr.key))
				if f.Len() > 0 {
					f.WriteByte('.')
				}
				f.WriteString(fr.key)
			} else {
				p.WriteString("/" + strconv.Itoa(fr.index))
				f.WriteString("[" + strconv.Itoa(fr.index) + "]")
			}
		}
		return p.String(), f.String()
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", "", false
		}
		top := len(stack) - 1
		if d, isDelim := tok.(json.Delim); isDelim && (d == '}' || d == ']') {
			stack = stack[:top]
			if top > 0 && stack[top-1].object {
				stack[top-1].wantsKey = true
			}
			continue
		}
		if top >= 0 && stack[top].object && stack[top].wantsKey {
			stack[top].key, stack[top].wantsKey = tok.(string), false
			continue
		}
		if top >= 0 && !stack[top].object {
			stack[top].index++
		}
		// A scalar's error is at its end; an object's or a list's where
		// it opens, after its "{" or "[".
		if dec.InputOffset() >= offset {
			pointer, field = at()
			return pointer, field, true
		}
		if d, isDelim := tok.(json.Delim); isDelim {
			stack = append(stack, frame{object: d == '{', index: -1, wantsKey: d == '{'})
			continue
		}
		if top >= 0 && stack[top].object {
			stack[top].wantsKey = true
		}
	}
}
