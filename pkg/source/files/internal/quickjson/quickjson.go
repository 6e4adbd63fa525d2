// Package quickjson decodes the JSON that pkg/source/files' YAML
// transcoder writes, faster than Kubernetes' own reading
// (k8s.io/apimachinery's util/json: encoding/json's rules, names matched
// in their case, integers kept as int64) and into the same values:
//
//   - Typed decodes an object of a kind of typed.Kinds into its API type
//     with code generated for that type (github.com/mailru/easyjson), in
//     about half the time of encoding/json/v2's reflection;
//   - Generic decodes a policy, or any object Strata does not hold typed,
//     into the generic tree of unstructured objects, on easyjson's lexer.
//
// Reading was the largest part of every command on the performance world,
// and typed decoding the largest part of reading (docs/performance.md,
// "Every command, sixteenth pass").
//
// Both are for JSON whose reading the libraries agree on: valid JSON, in
// UTF-8, each key of an object once, which is what the transcoder writes.
// On such JSON, a value they decode without error is the value util/json
// makes of it; what they cannot read (a value of the wrong type, a number
// out of range) is an error, and the caller reads the JSON again on its
// careful path, whose error is the one to report. Keys repeated
// (encoding/json merges a repeated map into the first) and bytes that are
// not UTF-8 (encoding/json writes U+FFFD) are read differently, which is
// why JSON from elsewhere does not come here. TestTypedIsAPIMachinery,
// TestGenericIsAPIMachinery and their fuzz targets compare the two.
//
// One difference in easyjson's generated code is mended as it is
// generated (hack/generate.sh, hack/emptymaps): an empty JSON object
// decodes into an empty map, as encoding/json decodes it, not into nil.
package quickjson

import (
	"fmt"
	"strconv"

	"github.com/mailru/easyjson/jlexer"
	corev1 "k8s.io/api/core/v1"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwv1b1 "sigs.k8s.io/gateway-api/apis/v1beta1"
)

// Typed decodes js into obj, a pointer to a fresh object of an API type
// of typed.Kinds. Any error means: read js the careful way.
func Typed(js []byte, obj any) error {
	// The lexer stays on the stack: the methods are called on the
	// concrete types, not through easyjson.Unmarshaler.
	l := jlexer.Lexer{Data: js}
	switch o := obj.(type) {
	case *corev1.Namespace:
		(*namespace)(o).UnmarshalEasyJSON(&l)
	case *corev1.Service:
		(*service)(o).UnmarshalEasyJSON(&l)
	case *gwv1.GatewayClass:
		(*gatewayClass)(o).UnmarshalEasyJSON(&l)
	case *gwv1.Gateway:
		(*gateway)(o).UnmarshalEasyJSON(&l)
	case *gwv1.ListenerSet:
		(*listenerSet)(o).UnmarshalEasyJSON(&l)
	case *gwv1.HTTPRoute:
		(*httpRoute)(o).UnmarshalEasyJSON(&l)
	case *gwv1.GRPCRoute:
		(*grpcRoute)(o).UnmarshalEasyJSON(&l)
	case *gwv1.TLSRoute:
		(*tlsRoute)(o).UnmarshalEasyJSON(&l)
	case *gwv1.TCPRoute:
		(*tcpRoute)(o).UnmarshalEasyJSON(&l)
	case *gwv1.UDPRoute:
		(*udpRoute)(o).UnmarshalEasyJSON(&l)
	case *gwv1b1.ReferenceGrant:
		(*referenceGrant)(o).UnmarshalEasyJSON(&l)
	default:
		return fmt.Errorf("quickjson: no decoder for %T", obj)
	}
	return l.Error()
}

// Generic decodes js, a JSON object, into the map util/json makes of it:
// objects are map[string]any, arrays []any, integers int64, other numbers
// float64. Any error means: read js the careful way.
func Generic(js []byte) (map[string]any, error) {
	l := jlexer.Lexer{Data: js}
	if l.CurrentToken() != jlexer.TokenDelim || !l.IsDelim('{') {
		return nil, fmt.Errorf("quickjson: not an object")
	}
	v := generic(&l)
	l.Consumed()
	if err := l.Error(); err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

// generic reads the value at l. Its depth is the JSON's: the transcoder
// writes no deeper than its own bound.
func generic(l *jlexer.Lexer) any {
	switch l.CurrentToken() {
	case jlexer.TokenDelim:
		if l.IsDelim('{') {
			l.Delim('{')
			m := map[string]any{}
			for l.Ok() && !l.IsDelim('}') {
				k := l.String()
				l.WantColon()
				m[k] = generic(l)
				l.WantComma()
			}
			l.Delim('}')
			return m
		}
		l.Delim('[')
		a := []any{}
		for l.Ok() && !l.IsDelim(']') {
			a = append(a, generic(l))
			l.WantComma()
		}
		l.Delim(']')
		return a
	case jlexer.TokenString:
		return l.String()
	case jlexer.TokenNumber:
		// util/json's rule: an int64 when the number is one, else a
		// float64 (1e400 is an error).
		n := string(l.JsonNumber())
		if i, err := strconv.ParseInt(n, 10, 64); err == nil {
			return i
		}
		f, err := strconv.ParseFloat(n, 64)
		if err != nil {
			l.AddError(fmt.Errorf("quickjson: number %s: %w", n, err))
		}
		return f
	case jlexer.TokenBool:
		return l.Bool()
	case jlexer.TokenNull:
		l.Skip()
		return nil
	}
	l.AddError(fmt.Errorf("quickjson: no value"))
	return nil
}
