package outcome

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/strata-dev/strata/pkg/engine/policykind"
	"github.com/strata-dev/strata/pkg/engine/topology"
)

// validAncestorRef reports whether a ref passes the Gateway API
// ParentReference schema an ancestorRef must pass, checked by hand
// (TestValidAncestorRefIsTheSchema holds it to the patterns).
func validAncestorRef(r topology.Ref) bool {
	return r.Name != "" && len(r.Name) <= 253 &&
		len(r.Kind) <= 63 && isKind(r.Kind) &&
		len(r.Group) <= 253 && (r.Group == "" || isSubdomain(r.Group)) &&
		(r.Namespace == "" || len(r.Namespace) <= 63 && isLabel(r.Namespace)) &&
		(r.Section == "" || len(r.Section) <= 253 && isSubdomain(r.Section))
}

// isLabel matches ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ (an RFC 1123 label).
func isLabel(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// isSubdomain matches labels joined by dots:
// ^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$.
func isSubdomain(s string) bool {
	for {
		label, rest, more := strings.Cut(s, ".")
		if !isLabel(label) {
			return false
		}
		if !more {
			return true
		}
		s = rest
	}
}

// isKind matches ^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$.
func isKind(s string) bool {
	letter := func(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
	if s == "" || !letter(s[0]) || s[len(s)-1] == '-' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !(letter(c) || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// reportable moves the tallies of ancestors the API server would refuse
// (a targetRef by selector has no name; a mistyped kind) to the policy
// itself (GEP-1897: a target is also a valid ancestor); their messages
// name the targetRef field.
func reportable(p *policykind.Policy, ts []*tally) []*tally {
	var bad []*tally
	for _, t := range ts {
		if !validAncestorRef(t.ref) {
			bad = append(bad, t)
		}
	}
	if len(bad) == 0 {
		return ts
	}
	slices.SortFunc(bad, func(a, b *tally) int { return strings.Compare(a.ref.Key(), b.ref.Key()) })
	self := topology.Ref{Group: p.Kind.Group, Kind: p.Kind.Kind, Namespace: p.Namespace, Name: p.Name}
	out := make([]*tally, 0, len(ts))
	// The tally at self, among the valid ones or made of the first bad
	// one: a copy, as ts belong to a State.
	var at *tally
	for _, t := range ts {
		if validAncestorRef(t.ref) {
			if t.ref == self {
				t = t.clone(0)
				at = t
			}
			out = append(out, t)
		}
	}
	for _, t := range bad {
		if at != nil {
			at.absorb(t)
			continue
		}
		at = t.clone(0)
		at.ref = self
		out = append(out, at)
	}
	return out
}

// absorb adds another tally of the same policy into t.
func (t *tally) absorb(o *tally) {
	t.total += o.total
	t.full += o.full
	t.none += o.none
	t.conflicted += o.conflicted
	union(&t.winners, o.winners)
	union(&t.beaters, o.beaters)
	union(&t.lost, o.lost)
	if o.rejectReason != "" && (t.rejectReason == "" || o.rejectReason == ReasonInvalid) {
		t.rejectReason = o.rejectReason
	}
	t.rejectMsgs = append(t.rejectMsgs, o.rejectMsgs...)
	if o.noTargets {
		t.noTargets, t.effectiveKind = true, o.effectiveKind
	}
}

// MaxMessage is metav1.Condition's message maxLength.
const MaxMessage = 32768

// Clip cuts a condition message to limit bytes (at most MaxMessage) on a
// character boundary, saying that it was cut.
func Clip(msg string, limit int) string {
	limit = min(limit, MaxMessage)
	if len(msg) <= limit {
		return msg
	}
	const tail = " ... (message cut to fit a condition)"
	cut := max(limit-len(tail), 0)
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + tail
}
