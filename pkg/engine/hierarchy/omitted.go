package hierarchy

import (
	"fmt"
	"strings"
)

// OmittedAnnotation names, on a target object, Strata's <Kind>Affected
// conditions left out of its status for want of room (a list holds at
// most KindInfo.MaxConditions, and other controllers' conditions are
// never displaced). GEP-713 "Target object status" allows an annotation
// where conditions cannot be had; Strata removes it when nothing is left
// out.
const OmittedAnnotation = "strata.dev/omitted-conditions"

// Omission is what of Strata's conditions one list of conditions of an
// object has no room for.
type Omission struct {
	// Place is the list: status.conditions,
	// status.listeners[NAME].conditions or
	// status.parents[Kind NS/NAME#SECTION:PORT].conditions.
	Place string
	// Types are the condition types left out, sorted.
	Types []string
	// MaxItems is the list's bound, its CRD's maxItems.
	MaxItems int
}

// Text says what the omission leaves out, for people: "4 conditions not
// written: no room in status.conditions (maxItems 8): A, B, C, D".
func (o Omission) Text() string {
	noun := "conditions"
	if len(o.Types) == 1 {
		noun = "condition"
	}
	return fmt.Sprintf("%d %s not written: no room in %s (maxItems %d): %s", len(o.Types), noun, o.Place, o.MaxItems, strings.Join(o.Types, ", "))
}

// FormatOmissions is the value of OmittedAnnotation: each list, then its
// omitted types, lists in Place order, "; " between them:
//
//	status.conditions: strata.dev/GPolicyAffected, strata.dev/HPolicyAffected
func FormatOmissions(om []Omission) string {
	parts := make([]string, 0, len(om))
	for _, o := range om {
		parts = append(parts, o.Place+": "+strings.Join(o.Types, ", "))
	}
	return strings.Join(parts, "; ")
}

// ParseOmissions reads a value of OmittedAnnotation (FormatOmissions) on
// an object whose lists hold at most maxItems conditions; what does not
// read as a list and its types is skipped.
func ParseOmissions(value string, maxItems int) []Omission {
	var out []Omission
	for _, part := range strings.Split(value, "; ") {
		place, list, ok := strings.Cut(part, ": ")
		if !ok || place == "" || list == "" {
			continue
		}
		out = append(out, Omission{Place: place, Types: strings.Split(list, ", "), MaxItems: maxItems})
	}
	return out
}
