package query

import (
	"fmt"
	"strings"
)

// Unseen is what a reader could not see of the policies that may affect
// an object: policy kinds it may not list, with no published record to
// answer for them. GEP-713 "The Problem, restated": "no policy affects
// it" is a poor answer when the reader could not look, so it says so.
type Unseen struct {
	// Kinds are the policy kinds whose list was forbidden, sorted by Kind.group.
	Kinds []GroupKind `json:"kinds,omitempty"`
	// Declarations are the kinds that declare policy kinds whose list was forbidden.
	Declarations []GroupKind `json:"declarations,omitempty"`
	// Records is how many published EffectivePolicy records were read; none reaches the object.
	Records int `json:"records"`
	// RecordsForbidden says the records could not be listed either, where they were looked for.
	RecordsForbidden bool `json:"recordsForbidden,omitempty"`
}

// Reason says why Unseen cannot tell, in one clause.
func (u *Unseen) Reason() string {
	var hidden []string
	if len(u.Kinds) > 0 {
		names := make([]string, len(u.Kinds))
		for i, k := range u.Kinds {
			names[i] = k.Kind
		}
		hidden = append(hidden, sentence(names)+" objects")
	}
	if len(u.Declarations) > 0 {
		names := make([]string, len(u.Declarations))
		for i, k := range u.Declarations {
			names[i] = k.Kind + "s"
		}
		hidden = append(hidden, sentence(names)+", which declare the policy kinds")
	}
	var records string
	switch {
	case u.RecordsForbidden:
		records = "you cannot list the published EffectivePolicy records either"
	case u.Records == 0:
		records = "no published EffectivePolicy record was found"
	case u.Records == 1:
		records = "the one published EffectivePolicy record you can read does not reach it"
	default:
		records = fmt.Sprintf("none of the %d published EffectivePolicy records you can read reaches it", u.Records)
	}
	return "you cannot list " + strings.Join(hidden, ", nor ") + ", and " + records
}

// Hint says what would let the reader tell: why no record answers, or the access to ask for.
func (u *Unseen) Hint() string {
	switch {
	case u.RecordsForbidden:
		return "The EffectivePolicy viewer role (strata-effectivepolicy-viewer), aggregated into view, grants reading the records; or ask for read access to those kinds."
	case u.Records == 0:
		return "The policy controller publishes one next to every affected target: it may be down or stalled, or run with --effective-policies=false. Or ask for read access to those kinds."
	default:
		return "The policy controller publishes one next to every affected target: either no policy of those kinds affects it, or its record is not published (the controller down or stalled). Or ask for read access to those kinds."
	}
}

// Only is u narrowed to kinds; nil when none of them was hidden.
func (u *Unseen) Only(kinds []GroupKind) *Unseen {
	if u == nil || len(kinds) == 0 {
		return u
	}
	out := *u
	out.Kinds, out.Declarations = nil, nil
	for _, k := range u.Kinds {
		for _, want := range kinds {
			if k == want {
				out.Kinds = append(out.Kinds, k)
			}
		}
	}
	if len(out.Kinds) == 0 {
		return nil
	}
	return &out
}

// IncompleteError is an answer that may leave policies out, as an error.
type IncompleteError struct {
	Object string // what was asked about: "HTTPRoute baker/baker".
	Unseen *Unseen
	Err    error // Err, when set, is the answer's own error, true of the policies the reader could see.
}

func (e *IncompleteError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%v, among the policies you can read; cannot tell of the others: %s", e.Err, e.Unseen.Reason())
	}
	return fmt.Sprintf("cannot tell which policies affect %s: %s", e.Object, e.Unseen.Reason())
}

func (e *IncompleteError) Unwrap() error { return e.Err }

// sentence joins names as a sentence lists them: "a", "a and b", "a, b and c".
func sentence(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
