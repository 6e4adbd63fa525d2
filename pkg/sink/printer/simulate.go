package printer

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/query/routing"
)

// missesShown is how many listeners that do not accept the request, and
// routes that do not serve its host (their hostnames do not match, or a
// route of the other kind took the hostname), a human simulation lists
// one by one; beyond, one line counts them (a shared Gateway holds
// hundreds of routes for other hosts, a world many Gateways), and -o yaml
// lists each.
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
	w.printf("%s\n", h.heading(r.Method+" "+r.URL))
	w.printf("  host %s, port %d, path %s\n", r.Host, r.Port, r.Path)
	if s.Failure != "" {
		w.printf("\n%s %s\n", h.heading("No match:"), s.Failure)
	} else {
		w.printf("\n")
		w.printf("Listener:  %s\n", s.Listener)
		w.printf("Rule:      %s, match %d (%s)\n", s.Rule, *s.Match, s.Condition)
		if s.Hostname != "" {
			w.printf("Hostname:  %s\n", s.Hostname)
		}
		if len(s.Filters) > 0 {
			w.printf("Filters:   %s\n", strings.Join(s.Filters, ", "))
		}
		w.printf("Path:      %s\n", via(append(append([]query.Ref(nil), s.Path...), query.Ref{})))
		if len(s.Backends) == 0 {
			w.printf("Backends:  none\n")
		} else {
			w.printf("Backends:\n")
			t := &table{h: h, indent: "  "}
			t.add(c("BACKEND"), c("PORT"), c("WEIGHT"), c("SHARE"), c("PROBLEM"))
			for _, b := range s.Backends {
				t.add(c(b.Ref.String()), c(strconv.Itoa(int(b.Port))), c(strconv.Itoa(int(b.Weight))), c(b.Share), colored(b.Problem, red))
			}
			w.table(t)
		}
	}

	w.printf("\n%s\n", h.heading("Matching:"))
	t := &table{h: h, indent: "  "}
	t.add(c("STAGE"), c("OBJECT"), c("MATCH"), c("CONDITION"), c("VERDICT"), c("REASON"))
	misses := map[string]int{}
	for _, st := range s.Steps {
		// Every listener's reason when none accepts the request: then
		// they are the answer.
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
		w.printf("  and %d routes that do not serve %s (-o yaml lists them, with the reason)\n", n, r.Host)
	}

	if s.Failure != "" {
		return
	}
	w.printf("\n")
	if len(s.Effective) == 0 {
		w.printf("No policy applies along this path.\n")
		return
	}
	w.printf("%s\n", h.heading("Effective policies along this path:"))
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
