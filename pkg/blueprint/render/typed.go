package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// TypeError is a rendered object of a built-in kind whose field does not
// have the type its Go type (and so the API server) wants: a string where
// a number goes (`replicas: "1\n---\n..."`, a value placed as the literal
// text it is), or a field the kind does not have. Field is the JSON path,
// e.g. spec.replicas.
type TypeError struct {
	Kind, Name string
	Field      string
	Err        error
}

func (e *TypeError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s %s is not a valid %s: %v", e.Kind, e.Name, e.Kind, e.Err)
	}
	return fmt.Sprintf("%s %s: %s: %v", e.Kind, e.Name, e.Field, e.Err)
}

// checkTyped decodes obj into its Go type when types (Kinds.Types, the
// caller's scheme: client-go's for the controller and `strata render`)
// knows its kind, strictly (unknown fields refused), as the API server
// would read it; other kinds (custom resources) pass, as does every kind
// when types is nil. A render prints only what the API server could take.
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
			te.Field = ute.Field
			te.Err = fmt.Errorf("cannot read %s as %s", ute.Value, ute.Type)
		} else if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			te.Err = fmt.Errorf("unknown field %s", f)
		}
		return te
	}
	return nil
}
