package render

import (
	"crypto/sha256"
	"encoding/hex"

	"k8s.io/apimachinery/pkg/util/validation"
)

// LabelValue returns s when it is a valid label value, else a short
// stable stand-in: the leading label characters of s (at most 40,
// alphanumeric at both ends), a dash and the first 16 hex digits of its
// SHA-256 (the digits alone when there are none). A selector built with
// LabelValue finds what Render labelled.
func LabelValue(s string) string {
	if len(validation.IsValidLabelValue(s)) == 0 {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	h := hex.EncodeToString(sum[:])[:16]
	prefix := 0
	for prefix < len(s) && prefix < 40 && isLabelChar(s[prefix]) {
		prefix++
	}
	p := s[:prefix]
	for len(p) > 0 && !isAlnum(p[0]) {
		p = p[1:]
	}
	for len(p) > 0 && !isAlnum(p[len(p)-1]) {
		p = p[:len(p)-1]
	}
	if p == "" {
		return h
	}
	return p + "-" + h
}

// GatewayLabelValue is the value of LabelGateway for a Gateway:
// `namespace.name` through LabelValue. A namespace name has no dot, so
// the first dot separates the two.
func GatewayLabelValue(namespace, name string) string {
	return LabelValue(namespace + "." + name)
}

// Labels returns the labels Render puts on every object of in's render
// but LabelTemplate: controller, blueprint, the parent's kind, namespace
// and name and, for an HTTPRoute, LabelGateway.
func (in Input) Labels() map[string]string {
	l := map[string]string{}
	if in.ControllerName != "" {
		l[LabelController] = LabelValue(in.ControllerName)
	}
	if in.Blueprint != nil {
		l[LabelBlueprint] = LabelValue(in.Blueprint.Name)
	}
	switch {
	case in.Route != nil:
		l[LabelParentKind] = "HTTPRoute"
		l[LabelParentNamespace] = LabelValue(in.Route.Namespace)
		l[LabelParentName] = LabelValue(in.Route.Name)
		if in.Gateway != nil {
			l[LabelGateway] = GatewayLabelValue(in.Gateway.Namespace, in.Gateway.Name)
		}
	case in.Gateway != nil:
		l[LabelParentKind] = "Gateway"
		l[LabelParentNamespace] = LabelValue(in.Gateway.Namespace)
		l[LabelParentName] = LabelValue(in.Gateway.Name)
	}
	return l
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isLabelChar(c byte) bool { return isAlnum(c) || c == '-' || c == '_' || c == '.' }
