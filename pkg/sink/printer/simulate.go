package printer

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/query/routing"
)

// missesShown is how many listeners that do not accept the request, and
// routes that do not serve its host, a human simulation lists one by one;
// one line counts the rest.
const missesShown = 3

// verdictColors color a simulation's steps.
var verdictColors = map[string]string{
	routing.Chosen:    green,
	routing.Outranked: yellow,
	routing.NoMatch:   grey,
	routing.Passed:    plain,
}

// PrintSimulation writes a simulation for people (format "") or for
// programs (YAML, JSON).
func PrintSimulation(w io.Writer, s *query.Simulation, format string, h Human) error {
	if format != "" {
		return Print(w, s, format)
	}
	ew := &errWriter{w: w}
	h.simulation(ew, s)
	return ew.err
}

// simulation: the request, where it goes, how it got there, then the
// effective policies along the way.
func (h Human) simulation(w *errWriter, s *query.Simulation) {
	r := s.Request
	switch {
	case !r.Connection():
		w.printf("%s\n", h.heading(r.Method+" "+r.URL))
		w.printf("  host %s, port %d, path %s\n", r.Host, r.Port, r.Path)
	case r.Scheme == "tls":
		w.printf("%s\n", h.heading(r.URL))
		w.printf("  TLS connection, SNI %s, port %d\n", r.Host, r.Port)
	default:
		w.printf("%s\n", h.heading(r.URL))
		w.printf("  %s connection, port %d\n", strings.ToUpper(r.Scheme), r.Port)
	}
	switch {
	case s.Undecided != "":
		w.printf("\n%s %s\n", h.heading("Cannot route:"), s.Undecided)
		if s.Assumed == nil {
			w.printf("Name the route you expect with --route to see the effective policies its published records hold.\n")
			return
		}
		w.printf("\n%s\n", h.heading(fmt.Sprintf("Assuming %s (--route), its listener unknown:", s.Assumed)))
		switch {
		case s.Failure != "":
			w.printf("%s %s\n", h.heading("No match:"), s.Failure)
		case s.Rule == nil:
			w.printf("Rule:      unknown: you cannot read %s either\n", s.Assumed)
		default:
			h.chosen(w, s)
		}
	case s.Failure != "":
		w.printf("\n%s %s\n", h.heading("No match:"), s.Failure)
	default:
		w.printf("\nListener:  %s\n", s.Listener)
		h.chosen(w, s)
	}

	if len(s.Steps) > 0 || s.Undecided == "" {
		h.steps(w, s)
	}
	if s.Failure != "" {
		return
	}
	w.printf("\n")
	if len(s.Effective) == 0 && len(s.Withheld) == 0 {
		if s.Assumed != nil {
			w.printf("No published record of a policy on %s's context paths.\n", s.Assumed)
			return
		}
		w.printf("No policy applies along this path.\n")
		return
	}
	if s.Assumed != nil {
		w.printf("%s\n", h.heading(fmt.Sprintf("Effective policies on %s's context paths, from the published records:", s.Assumed)))
	} else {
		w.printf("%s\n", h.heading("Effective policies along this path:"))
	}
	for _, wh := range s.Withheld {
		w.printf("\n%s\n", h.heading(fmt.Sprintf("%s on %s:", wh.Kind, wh.Target)))
		w.printf("  %s; names and settings withheld by its kind\n", pluralPolicies(int(wh.Policies)))
	}
	for _, k := range s.Effective {
		for _, tg := range k.Targets {
			w.printf("\n%s\n", h.heading(fmt.Sprintf("%s on %s:", kindLabel(k), tg.Target)))
			for _, ctx := range tg.Contexts {
				w.printf("  via %s\n", via(ctx.Path))
				h.contextFields(w, ctx)
			}
		}
	}
}

// outcome writes what filters do to the request: the filters, the
// Gateway's own answer or the request forwarded, mirrors and response
// headers.
func (h Human) outcome(w *errWriter, o *routing.Outcome, indent string) {
	if len(o.Filters) == 0 {
		return
	}
	w.printf("%sFilters:\n", indent)
	t := h.newTable(indent+"  ", "FILTER", "EFFECT", "PROBLEM")
	for _, f := range o.Filters {
		t.add(c(f.Type), c(f.Effect), colored(f.Problem, red))
	}
	w.table(t)
	switch {
	case o.Response != nil:
		r := o.Response
		w.printf("%sAnswered:  %d by the Gateway (%s)", indent, r.StatusCode, r.Filter)
		if r.Location != "" {
			w.printf(", Location %s", r.Location)
		}
		w.printf(": no backend is reached\n")
	case o.Forwarded != nil:
		f := o.Forwarded
		w.printf("%sForwarded: %s %s\n", indent, f.Method, f.Path)
		w.printf("%s  Host: %s\n", indent, f.Host)
		for _, name := range slices.Sorted(maps.Keys(f.Headers)) {
			w.printf("%s  %s: %s\n", indent, name, strings.Join(f.Headers[name], ","))
		}
	}
	if len(o.Mirrors) > 0 {
		w.printf("%sMirrors:\n", indent)
		t := h.newTable(indent+"  ", "MIRROR", "PORT", "SHARE", "PROBLEM")
		for _, m := range o.Mirrors {
			t.add(c(m.Ref.String()), c(strconv.Itoa(int(m.Port))), c(m.Share), colored(m.Problem, red))
		}
		w.table(t)
	}
	if rh := o.ResponseHeaders; rh != nil {
		w.printf("%sResponse headers:\n", indent)
		for _, x := range []struct {
			verb string
			hs   []gwv1.HTTPHeader
		}{{"set", rh.Set}, {"add", rh.Add}} {
			for _, hd := range x.hs {
				w.printf("%s  %s %s: %s\n", indent, x.verb, hd.Name, hd.Value)
			}
		}
		if len(rh.Remove) > 0 {
			w.printf("%s  remove %s\n", indent, strings.Join(rh.Remove, ", "))
		}
	}
}

// chosen writes the rule chosen, what its filters do and its backends.
func (h Human) chosen(w *errWriter, s *query.Simulation) {
	if s.Request.Connection() {
		w.printf("Rule:      %s\n", s.Rule)
	} else {
		w.printf("Rule:      %s, match %d (%s)\n", s.Rule, *s.Match, s.Condition)
	}
	if s.Hostname != "" {
		w.printf("Hostname:  %s\n", s.Hostname)
	}
	if len(s.Path) > 0 {
		w.printf("Path:      %s\n", via(append(append([]query.Ref(nil), s.Path...), query.Ref{})))
	}
	h.outcome(w, &s.Outcome, "")
	if len(s.Backends) == 0 {
		w.printf("Backends:  none\n")
		return
	}
	if s.Response != nil {
		w.printf("Backends (not reached: the Gateway answers):\n")
	} else {
		w.printf("Backends:\n")
	}
	t := h.newTable("  ", "BACKEND", "PORT", "WEIGHT", "SHARE", "PROBLEM")
	for _, b := range s.Backends {
		t.add(c(b.Ref.String()), c(strconv.Itoa(int(b.Port))), c(strconv.Itoa(int(b.Weight))), c(b.Share), colored(b.Problem, red))
	}
	w.table(t)
	for _, b := range s.Backends {
		if b.Outcome != nil {
			w.printf("  %s, with its own filters, after the rule's:\n", b.Ref)
			h.outcome(w, b.Outcome, "    ")
		}
	}
}

// steps writes the Matching table, the misses counted beyond missesShown.
func (h Human) steps(w *errWriter, s *query.Simulation) {
	r := s.Request
	w.printf("\n%s\n", h.heading("Matching:"))
	t := h.newTable("  ", "STAGE", "OBJECT", "MATCH", "CONDITION", "VERDICT", "REASON")
	misses := map[string]int{}
	for _, st := range s.Steps {
		// Every listener's reason when none accepts: they are the answer.
		if st.Verdict == routing.NoMatch && (st.Stage == routing.StageRoute || st.Stage == routing.StageListener && s.Listener != nil) {
			misses[st.Stage]++
		}
	}
	summarize := func(st routing.Step) bool {
		return st.Verdict == routing.NoMatch && misses[st.Stage] > missesShown
	}
	for _, st := range s.Steps {
		if summarize(st) {
			continue
		}
		match := ""
		if st.Match != nil {
			match = strconv.Itoa(*st.Match)
		}
		t.add(c(st.Stage), c(st.Object.String()), c(match), c(st.Condition), colored(st.Verdict, verdictColors[st.Verdict]), c(st.Reason))
	}
	w.table(t)
	if n := misses[routing.StageListener]; n > missesShown {
		w.printf("  and %d listeners that do not accept it (-o yaml lists them, with the reason)\n", n)
	}
	if n := misses[routing.StageRoute]; n > missesShown {
		host := r.Host
		if r.Connection() {
			host = "the connection"
		}
		w.printf("  and %d routes that do not serve %s (-o yaml lists them, with the reason)\n", n, host)
	}

}
