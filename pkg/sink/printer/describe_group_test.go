package printer

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/strata-dev/strata/pkg/query"
)

// A description's parents and children: up to listedRefs named, more
// counted by kind with the first namedRefs names; --full names all.
func TestRefLine(t *testing.T) {
	refs := func(kind string, n int) []query.Ref {
		var out []query.Ref
		for i := range n {
			out = append(out, query.Ref{Group: "gateway.networking.k8s.io", Kind: kind, Namespace: "ns", Name: fmt.Sprintf("%s-%d", strings.ToLower(kind), i)})
		}
		return out
	}
	for _, c := range []struct {
		name string
		refs []query.Ref
		full bool
		want string
	}{
		{"few", refs("HTTPRoute", 2), false, "HTTPRoute ns/httproute-0, HTTPRoute ns/httproute-1"},
		{"many", refs("HTTPRoute", 48), false, "48 HTTPRoutes: ns/httproute-0, ns/httproute-1, ns/httproute-2 and 45 more (--full lists them)"},
		{"kinds", append(refs("GRPCRoute", 4), refs("HTTPRoute", 8)...), false,
			"4 GRPCRoutes: ns/grpcroute-0, ns/grpcroute-1, ns/grpcroute-2 and 1 more; 8 HTTPRoutes: ns/httproute-0, ns/httproute-1, ns/httproute-2 and 5 more (--full lists them)"},
		{"full", refs("HTTPRoute", 11), true, refList(refs("HTTPRoute", 11))},
		// One kind's name in two groups: two kinds, counted apart.
		{"groups", append(refs("Route", 6), append(refs("HTTPRoute", 1), func() []query.Ref {
			other := refs("Route", 5)
			for i := range other {
				other[i].Group = "example.com"
			}
			return other
		}()...)...), false,
			"6 Routes: ns/route-0, ns/route-1, ns/route-2 and 3 more; 1 HTTPRoute: ns/httproute-0; 5 Routes: ns/route-0, ns/route-1, ns/route-2 and 2 more (--full lists them)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := (Human{Full: c.full}).refLine(c.refs); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestSectionLine(t *testing.T) {
	names := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("http-%d", i))
		}
		return out
	}
	for _, c := range []struct {
		name  string
		names []string
		full  bool
		want  string
	}{
		{"few", names(2), false, "http-0, http-1"},
		{"at the bound", names(10), false, strings.Join(names(10), ", ")},
		{"many", names(100000), false, "100000 sections: http-0, http-1, http-2 and 99997 more (--full lists them)"},
		{"full", names(11), true, strings.Join(names(11), ", ")},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := (Human{Full: c.full}).sectionLine(c.names); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// A narrowed description of more than SummaryContexts contexts folds
// targets whose contexts have the same fields, values, sources and
// beaten policies; one that differs in any of them is a block of its own.
func TestNarrowedGroups(t *testing.T) {
	field := func(v any, by string, beaten ...string) query.FieldEffect {
		return query.FieldEffect{Field: "/attempts", Value: v, SetBy: by, Beaten: beaten}
	}
	d := &query.Description{Object: query.Ref{Kind: "Namespace", Name: "ns"}}
	k := query.KindEffect{GroupKind: query.GroupKind{Kind: "RetryPolicy"}}
	for i := range 30 {
		f := field(3, "ns/p")
		switch i {
		case 7:
			f = field(4, "ns/p")
		case 8:
			f = field(3, "ns/q")
		case 9:
			f = field(3, "ns/p", "ns/r")
		}
		k.Targets = append(k.Targets, query.TargetEffect{
			Target:   query.Ref{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Namespace: "ns", Name: fmt.Sprintf("r%02d", i)},
			Contexts: []query.ContextEffect{{Path: []query.Ref{{Kind: "Namespace", Name: "ns"}}, Fields: []query.FieldEffect{f}}},
		})
	}
	d.Effective = []query.KindEffect{k}
	for _, c := range []struct {
		name string
		h    Human
		want []string
	}{
		{"narrowed", Human{Narrowed: true}, []string{
			"RetryPolicy on 27 HTTPRoutes in ns, through Namespace ns:",
			"RetryPolicy on HTTPRoute ns/r07, through Namespace ns:",
			"RetryPolicy on HTTPRoute ns/r08, through Namespace ns:",
			"RetryPolicy on HTTPRoute ns/r09, through Namespace ns:",
		}},
		{"full", Human{Narrowed: true, Full: true}, nil}, // every target, checked below
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := PrintHuman(&buf, d, c.h); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range strings.Split(buf.String(), "\n") {
				if strings.HasPrefix(l, "RetryPolicy on ") {
					got = append(got, l)
				}
			}
			if c.want == nil {
				if len(got) != 30 || strings.Contains(buf.String(), "each in") {
					t.Errorf("--full: %d blocks, want 30:\n%s", len(got), buf.String())
				}
				return
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("blocks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			if !strings.Contains(buf.String(), "  r00, r01, r02, r03, r04 and 22 more, each in 1 context\n") {
				t.Errorf("the group does not name its first targets:\n%s", buf.String())
			}
		})
	}
}

// Narrowed contexts that all differ are listed as they are, without the
// note on grouping.
func TestNarrowedNothingToGroup(t *testing.T) {
	d := &query.Description{Object: query.Ref{Kind: "Namespace", Name: "ns"}}
	k := query.KindEffect{GroupKind: query.GroupKind{Kind: "RetryPolicy"}}
	for i := range SummaryContexts + 1 {
		k.Targets = append(k.Targets, query.TargetEffect{
			Target:   query.Ref{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Namespace: "ns", Name: fmt.Sprintf("r%02d", i)},
			Contexts: []query.ContextEffect{{Path: []query.Ref{{Kind: "Namespace", Name: "ns"}}, Fields: []query.FieldEffect{{Field: "/attempts", Value: i, SetBy: "ns/p"}}}},
		})
	}
	d.Effective = []query.KindEffect{k}
	var buf bytes.Buffer
	if err := PrintHuman(&buf, d, Human{Narrowed: true}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "  via "); n != SummaryContexts+1 || strings.Contains(buf.String(), "grouped") {
		t.Errorf("%d contexts listed, want %d, and no note on grouping:\n%s", n, SummaryContexts+1, buf.String())
	}
}

// A policy's description lists up to listedRows ancestors and reached
// targets; more are grouped by condition or result, counted by kind with
// the first names; --full lists each.
func TestPolicyDescriptionGrouped(t *testing.T) {
	cond := func(typ, reason, msg string) []query.Condition {
		return []query.Condition{{Type: "Accepted", Status: "True", Reason: "Accepted"}, {Type: typ, Status: "True", Reason: reason, Message: msg}}
	}
	d := &query.PolicyDescription{Policy: query.PolicySummary{PolicyRef: query.PolicyRef{Kind: "RetryPolicy", Namespace: "infra", Name: "p"}}}
	for i := range 25 {
		gw := query.Ref{Group: "gateway.networking.k8s.io", Kind: "Gateway", Namespace: "infra", Name: fmt.Sprintf("gw-%02d", i)}
		c := cond("Enforced", "Enforced", fmt.Sprintf("fully enforced in %d contexts", i+1))
		if i >= 22 {
			c = cond("Overridden", "Overridden", "overridden by infra/q")
		}
		d.Ancestors = append(d.Ancestors, query.AncestorStatus{Ancestor: gw, Conditions: c})
		d.Reaches = append(d.Reaches, query.Reach{Target: query.Ref{Kind: "Service", Namespace: "app", Name: fmt.Sprintf("svc-%02d", i)}, Results: map[string]int{"Enforced": 1}})
	}
	print := func(h Human) string {
		var buf bytes.Buffer
		h.policyDescription(&errWriter{w: &buf}, d)
		return buf.String()
	}
	grouped := print(Human{})
	for _, want := range []string{
		"  Enforced=True    Enforced    22 Gateways: infra/gw-00, infra/gw-01, infra/gw-02 and 19 more\n",
		"  Overridden=True  Overridden  3 Gateways: infra/gw-22, infra/gw-23, infra/gw-24\n",
		"  25 ancestors grouped: --full lists each with its message.\n",
		"  Enforced  25 Services: app/svc-00, app/svc-01, app/svc-02 and 22 more\n",
		"  25 targets grouped: --full lists each.\n",
	} {
		if !strings.Contains(grouped, want) {
			t.Errorf("grouped description lacks %q:\n%s", want, grouped)
		}
	}
	if strings.Contains(grouped, "fully enforced in") {
		t.Errorf("grouped description lists messages:\n%s", grouped)
	}
	full := print(Human{Full: true})
	if n := strings.Count(full, "Gateway infra/gw-"); n != 25 || strings.Count(full, "Service app/svc-") != 25 || strings.Contains(full, "grouped") {
		t.Errorf("--full: %d ancestors listed, want 25 of each and no groups:\n%s", n, full)
	}
	d.Ancestors, d.Reaches = d.Ancestors[:listedRows], d.Reaches[:listedRows]
	if at := print(Human{}); strings.Contains(at, "grouped") {
		t.Errorf("%d rows are listed, not grouped:\n%s", listedRows, at)
	}
}
