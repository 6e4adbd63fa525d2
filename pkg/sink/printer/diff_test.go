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
