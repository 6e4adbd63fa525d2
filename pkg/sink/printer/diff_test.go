package printer

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/strata-dev/strata/pkg/query"
)

// A review comment holds at most 65,536 characters: however many targets
// change, the markdown stays under it and says what it left out. Values
// cannot break out of their table cells or inline code.
func TestMarkdownDiffBounded(t *testing.T) {
	for _, c := range []struct {
		name    string
		targets int
		want    []string
		notWant []string
	}{
		{"small", 3, []string{"on **1 HTTPRoute in ns**", "`a\\|b`", "| `/f0` | a\\|b (ns/p) | _x` (ns/p) |"}, []string{"more"}},
		{"large", 5000, []string{"- ... and 4960 more (see the details below)", "more; run `strata diff` for all of them._\n\n</details>\n"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := &query.DiffResult{Changed: query.Count{Targets: c.targets, Contexts: c.targets}}
			for i := range c.targets {
				d.Targets = append(d.Targets, query.TargetDiff{
					PolicyKind: query.GroupKind{Kind: "RetryPolicy"},
					Target:     query.Ref{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Namespace: "ns", Name: fmt.Sprintf("r%d", i)},
					Change:     query.DiffChanged,
					Contexts: []query.ContextDiff{{
						Path:   []query.Ref{{Kind: "Namespace", Name: "ns"}, {Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Namespace: "ns", Name: fmt.Sprintf("r%d", i)}},
						Change: query.DiffChanged,
						Fields: []query.FieldChange{{Field: fmt.Sprintf("/f%d", i), Before: "a|b", BeforeSetBy: "ns/p", After: "_x`", AfterSetBy: "ns/p"}},
					}},
				})
			}
			var buf bytes.Buffer
			if err := PrintDiff(&buf, d, Markdown, Human{}); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if len(out) >= 65536 {
				t.Errorf("%d bytes, want fewer than 65,536", len(out))
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output does not contain %q:\n%.2000s", w, out)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output contains %q", w)
				}
			}
		})
	}
}

// Targets on which a diff is the same print as one block, in the human
// output and the markdown's details; targets added or removed, in
// another namespace, of another kind, or whose contexts differ from one
// another, are blocks of their own.
func TestDiffGroups(t *testing.T) {
	route := func(ns, name string) query.Ref {
		return query.Ref{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Namespace: ns, Name: name}
	}
	ctx := func(change, after string) query.ContextDiff {
		return query.ContextDiff{Path: []query.Ref{{Kind: "Namespace", Name: "ns"}}, Change: change,
			Fields: []query.FieldChange{{Field: "/attempts", Before: 3, BeforeSetBy: "ns/p", After: after, AfterSetBy: "ns/p"}}}
	}
	target := func(r query.Ref, change string, ctxs ...query.ContextDiff) query.TargetDiff {
		return query.TargetDiff{PolicyKind: query.GroupKind{Kind: "RetryPolicy"}, Target: r, Change: change, Contexts: ctxs}
	}
	changed := query.DiffChanged
	for _, c := range []struct {
		name    string
		targets []query.TargetDiff
		want    []string // headings and the lines naming the targets, in order
	}{
		{"same change", []query.TargetDiff{
			target(route("ns", "a"), changed, ctx(changed, "5")),
			target(route("ns", "b"), changed, ctx(changed, "5")),
			target(route("ns", "c"), changed, ctx(changed, "5")),
		}, []string{"RetryPolicy on 3 HTTPRoutes in ns:", "  a, b, c, each in 1 context"}},
		{"other value, namespace or change", []query.TargetDiff{
			target(route("ns", "a"), changed, ctx(changed, "5")),
			target(route("ns", "b"), changed, ctx(changed, "6")),
			target(route("ns", "c"), changed, ctx(changed, "5")),
			target(route("other", "d"), changed, ctx(changed, "5")),
			target(route("ns", "e"), query.DiffAdded, ctx(query.DiffAdded, "5")),
			target(route("ns", "f"), query.DiffAdded, ctx(query.DiffAdded, "5")),
		}, []string{
			"RetryPolicy on 2 HTTPRoutes in ns:", "  a, c, each in 1 context",
			"RetryPolicy on HTTPRoute ns/b:",
			"RetryPolicy on HTTPRoute other/d:",
			"RetryPolicy on 2 HTTPRoutes in ns (added):", "  e, f, each in 1 context (added)",
		}},
		{"contexts that differ", []query.TargetDiff{
			target(route("ns", "a"), changed, ctx(changed, "5"), ctx(changed, "6")),
			target(route("ns", "b"), changed, ctx(changed, "5"), ctx(changed, "6")),
		}, []string{"RetryPolicy on HTTPRoute ns/a:", "RetryPolicy on HTTPRoute ns/b:"}},
		{"many, named in part", func() []query.TargetDiff {
			var ts []query.TargetDiff
			for i := range 42 {
				ts = append(ts, target(route("ns", fmt.Sprintf("r%02d", i)), changed, ctx(changed, "0")))
			}
			return ts
		}(), []string{"RetryPolicy on 42 HTTPRoutes in ns:", "  r00, r01, r02, r03, r04 and 37 more, each in 1 context"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := &query.DiffResult{Targets: c.targets, Changed: query.Count{Targets: len(c.targets)}}
			var human, md bytes.Buffer
			if err := PrintDiff(&human, d, "", Human{}); err != nil {
				t.Fatal(err)
			}
			if err := PrintDiff(&md, d, Markdown, Human{}); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range strings.Split(human.String(), "\n") {
				if strings.HasPrefix(l, "RetryPolicy on ") || strings.Contains(l, "each in") {
					got = append(got, l)
				}
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("human blocks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
			var mdGot []string
			for _, l := range strings.Split(md.String(), "\n") {
				if strings.HasPrefix(l, "**RetryPolicy on ") || strings.Contains(l, "each in") {
					mdGot = append(mdGot, l)
				}
			}
			if len(mdGot) != len(c.want) {
				t.Errorf("markdown blocks:\n%s\nwant as many lines as:\n%s", strings.Join(mdGot, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}
