package render

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// nameRule is how the API server validates the metadata.name of a kind:
// a DNS-1123 subdomain but for the kinds in nameRules.
type nameRule struct {
	what     string
	validate func(string) []string
}

var (
	subdomainName = nameRule{"a DNS-1123 subdomain (lowercase letters, digits, '-' and '.', at most 253 characters)", validation.IsDNS1123Subdomain}
	labelName     = nameRule{"a DNS-1123 label (lowercase letters, digits and '-', at most 63 characters)", validation.IsDNS1123Label}
	dns1035Name   = nameRule{"a DNS-1035 label (lowercase letters, digits and '-', starting with a letter, at most 63 characters)", validation.IsDNS1035Label}
	segmentName   = nameRule{"a path segment name (no '/' nor '%', not '.' nor '..')", content.IsPathSegmentName}
)

// nameRules are the kinds whose names are not DNS-1123 subdomains.
var nameRules = map[schema.GroupKind]nameRule{
	{Kind: "Namespace"}: labelName,
	{Kind: "Service"}:   dns1035Name,
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}:               segmentName,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:        segmentName,
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:        segmentName,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}: segmentName,
}

// serverFields are metadata fields only the API server or the controller
// sets (a template setting ownerReferences or finalizers would take over
// garbage collection or block deletion).
var serverFields = []string{
	"ownerReferences", "finalizers", "managedFields", "generateName",
	"uid", "resourceVersion", "generation", "selfLink",
	"creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
}

// reservedPrefix tells a label or annotation key that is Strata's own
// (strata.dev or a subdomain): a template must not set them.
func reservedPrefix(key string) bool {
	prefix, _, found := strings.Cut(key, "/")
	return found && (prefix == "strata.dev" || strings.HasSuffix(prefix, ".strata.dev"))
}

// checkMetadata checks metadata md of an object of kind gk, as rendered:
// the name valid for the kind, no server-set field, labels and annotations
// valid and none of Strata's; all problems, sorted. forbidden tells that
// one of them is a refusal rather than a mistake.
func checkMetadata(gk schema.GroupKind, md map[string]any) (err error, forbidden bool) {
	var errs field.ErrorList
	meta := field.NewPath("metadata")
	if name, ok := md["name"].(string); ok {
		rule, ok := nameRules[gk]
		if !ok {
			rule = subdomainName
		}
		for _, msg := range rule.validate(name) {
			errs = append(errs, field.Invalid(meta.Child("name"), abbreviate(name), msg+"; must be "+rule.what))
		}
	}
	if ns, ok := md["namespace"].(string); ok && ns != "" {
		for _, msg := range validation.IsDNS1123Label(ns) {
			errs = append(errs, field.Invalid(meta.Child("namespace"), abbreviate(ns), msg))
		}
	}
	for _, f := range serverFields {
		if v, present := md[f]; present && !empty(v) {
			errs = append(errs, field.Forbidden(meta.Child(f), "set by the API server or the controller, never by a template"))
		}
	}
	for _, m := range []struct {
		field string
		check func(map[string]string, *field.Path) field.ErrorList
	}{{"labels", metav1validation.ValidateLabels}, {"annotations", apivalidation.ValidateAnnotations}} {
		raw, present := md[m.field]
		if !present || raw == nil {
			continue
		}
		obj, ok := raw.(map[string]any)
		if !ok {
			errs = append(errs, field.Invalid(meta.Child(m.field), "", "must be an object"))
			continue
		}
		strs := map[string]string{}
		for k, v := range obj {
			s, ok := v.(string)
			if !ok {
				errs = append(errs, field.Invalid(meta.Child(m.field).Key(k), v, "must be a string (quote it)"))
				continue
			}
			if reservedPrefix(k) {
				errs = append(errs, field.Forbidden(meta.Child(m.field).Key(k), "Strata's own; set by the controller, never by a template"))
				continue
			}
			strs[k] = s
		}
		errs = append(errs, m.check(strs, meta.Child(m.field))...)
	}
	if len(errs) == 0 {
		return nil, false
	}
	msgs := make([]string, 0, len(errs))
	for _, e := range errs {
		msgs = append(msgs, e.Error())
		forbidden = forbidden || e.Type == field.ErrorTypeForbidden
	}
	sort.Strings(msgs)
	return fmt.Errorf("%s", strings.Join(msgs, "; ")), forbidden
}

// abbreviate shortens a long value for a message.
func abbreviate(s string) string {
	if len(s) > 80 {
		return s[:60] + fmt.Sprintf("... (%d characters)", len(s))
	}
	return s
}

// empty tells a value that sets nothing: null, "", [] or {}.
func empty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}
