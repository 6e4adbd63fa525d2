package printer

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/query/routing"
	"github.com/strata-dev/strata/pkg/source/files"
)

// Beyond missesShown, the listeners that do not accept a request and the
// routes that do not serve its host are counted in one line; when no
// listener accepts it, every listener's reason is shown, as it is the
// answer.
func TestSimulationMisses(t *testing.T) {
	sim := func(chosen bool, listeners, routes int) *query.Simulation {
		s := &query.Simulation{Request: routing.Request{Method: "GET", URL: "http://a.example.com/", Host: "a.example.com", Port: 80, Path: "/"}}
		for i := range listeners {
			s.Steps = append(s.Steps, routing.Step{Stage: routing.StageListener, Object: query.Ref{Kind: "Gateway", Namespace: "ns", Name: fmt.Sprintf("gw-%d", i), SectionName: "l"},
				Verdict: routing.NoMatch, Reason: "port 8080, not 80"})
		}
		for i := range routes {
			s.Steps = append(s.Steps, routing.Step{Stage: routing.StageRoute, Object: query.Ref{Kind: "HTTPRoute", Namespace: "ns", Name: fmt.Sprintf("r-%d", i)},
				Verdict: routing.NoMatch, Reason: "hostname a.example.com matches none of its hostnames b.example.com"})
		}
		if chosen {
			l := query.Ref{Kind: "Gateway", Namespace: "ns", Name: "gw", SectionName: "http"}
			s.Listener = &l
			s.Failure = "no rule matches"
		} else {
			s.Failure = "no listener accepts it"
		}
		return s
	}
	for _, c := range []struct {
		name                 string
		s                    *query.Simulation
		listenerRows, routes int
		lines                []string
	}{
		{"few", sim(true, 3, 3), 3, 3, nil},
		{"many", sim(true, 4, 5), 0, 0, []string{"and 4 listeners that do not accept it", "and 5 routes that do not serve a.example.com"}},
		{"no listener accepts", sim(false, 5, 0), 5, 0, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := PrintSimulation(&b, c.s, "", Human{}); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if n := strings.Count(out, "port 8080, not 80"); n != c.listenerRows {
				t.Errorf("%d listener rows, want %d:\n%s", n, c.listenerRows, out)
			}
			if n := strings.Count(out, "matches none of its hostnames"); n != c.routes {
				t.Errorf("%d route rows, want %d:\n%s", n, c.routes, out)
			}
			for _, l := range c.lines {
				if !strings.Contains(out, l) {
					t.Errorf("no %q in\n%s", l, out)
				}
			}
		})
	}
}

// Colors change nothing but colors in a simulation either: stripped of
// the codes, the colored output is the plain one, tables aligned.
func TestSimulationColorKeepsLayout(t *testing.T) {
	src, err := files.Read([]string{"../../../examples/parable/kinds.yaml", "../../../internal/cli/testdata/simulate/world.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(src.Snapshot, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	req, err := routing.NewRequest("GET", "http://shop.example.com/api/items", []string{"x-canary: true"})
	if err != nil {
		t.Fatal(err)
	}
	sim, err := query.Simulate(res, req, "")
	if err != nil {
		t.Fatal(err)
	}
	var plain, colored bytes.Buffer
	if err := PrintSimulation(&plain, sim, "", Human{}); err != nil {
		t.Fatal(err)
	}
	if err := PrintSimulation(&colored, sim, "", Human{Color: true}); err != nil {
		t.Fatal(err)
	}
	ansi := regexp.MustCompile("\x1b\\[[0-9;]*m")
	if !ansi.Match(colored.Bytes()) {
		t.Error("no color codes in colored output")
	}
	if d := cmp.Diff(plain.String(), ansi.ReplaceAllString(colored.String(), "")); d != "" {
		t.Errorf("colors changed the layout (-plain +colored):\n%s", d)
	}
}

// A simulation that could not route: why, then either the hint to name
// a route, or the route assumed (its own failure, or its records).
func TestSimulationUndecided(t *testing.T) {
	req := routing.Request{Method: "GET", URL: "http://a.example.com/", Scheme: "http", Host: "a.example.com", Port: 80, Path: "/"}
	route := query.Ref{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Namespace: "ns", Name: "r"}
	for _, c := range []struct {
		name     string
		s        query.Simulation
		has, not []string
	}{
		{"no route named", query.Simulation{Request: req, Undecided: "you cannot read Gateway (forbidden) in every namespace"},
			[]string{"Cannot route: you cannot read Gateway (forbidden) in every namespace\nName the route you expect with --route"}, []string{"Matching:", "Effective"}},
		{"the route does not match", query.Simulation{Request: req, Undecided: "x", Assumed: &route, Failure: "no rule of HTTPRoute ns/r matches GET a.example.com/"},
			[]string{"Assuming HTTPRoute ns/r (--route), its listener unknown:\nNo match: no rule of HTTPRoute ns/r matches"}, []string{"No published record", "Effective"}},
		{"the route unread", query.Simulation{Request: req, Undecided: "x", Assumed: &route},
			[]string{"Rule:      unknown: you cannot read HTTPRoute ns/r either"}, []string{"Matching:"}},
		{"no record", query.Simulation{Request: req, Undecided: "x", Assumed: &route},
			[]string{"No published record of a policy on HTTPRoute ns/r's context paths."}, nil},
		{"withheld", query.Simulation{Request: req, Undecided: "x", Assumed: &route,
			Withheld: []query.Withheld{{GroupKind: query.GroupKind{Group: "p.example", Kind: "RateLimitPolicy"}, Target: route, Policies: 2}}},
			[]string{"Effective policies on HTTPRoute ns/r's context paths, from the published records:\n\nRateLimitPolicy on HTTPRoute ns/r:\n  2 policies; names and settings withheld by its kind"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := PrintSimulation(&b, &c.s, "", Human{}); err != nil {
				t.Fatal(err)
			}
			for _, w := range c.has {
				if !strings.Contains(b.String(), w) {
					t.Errorf("no %q in\n%s", w, b.String())
				}
			}
			for _, w := range c.not {
				if strings.Contains(b.String(), w) {
					t.Errorf("%q in\n%s", w, b.String())
				}
			}
		})
	}
}
