package printer_test

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-dev/strata/pkg/engine"
	"github.com/strata-dev/strata/pkg/query"
	"github.com/strata-dev/strata/pkg/sink/printer"
	"github.com/strata-dev/strata/pkg/source/files"
)

// Colors change nothing but colors: with the codes stripped, colored
// output is the plain output byte for byte, tables still aligned.
func TestColorKeepsLayout(t *testing.T) {
	src, err := files.Read([]string{"../../../examples/gep-713/example-3"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Run(src.Snapshot, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b1, err := query.Resolve(res, "svc/b1", "default")
	if err != nil {
		t.Fatal(err)
	}
	p3, err := query.Resolve(res, "colorpolicy/p3", "default")
	if err != nil {
		t.Fatal(err)
	}
	x, err := query.Explain(res, b1.Node, "/colors/dark", nil)
	if err != nil {
		t.Fatal(err)
	}
	after, err := query.Without(res, p3.Policy)
	if err != nil {
		t.Fatal(err)
	}
	ansi := regexp.MustCompile("\x1b\\[[0-9;]*m")
	for name, doc := range map[string]any{
		"describe":        query.Describe(res, b1.Node),
		"describe policy": query.DescribePolicy(res, p3.Policy),
		"explain":         x,
		"policies":        query.Policies(res, query.Filter{AllNamespaces: true}),
		"impact":          query.Compare(res, after, query.PolicyRef{Kind: "ColorPolicy", Namespace: "default", Name: "p3"}, query.ChangeDelete),
	} {
		t.Run(name, func(t *testing.T) {
			var plain, colored bytes.Buffer
			if err := printer.PrintHuman(&plain, doc, printer.Human{}); err != nil {
				t.Fatal(err)
			}
			if err := printer.PrintHuman(&colored, doc, printer.Human{Color: true}); err != nil {
				t.Fatal(err)
			}
			if !ansi.Match(colored.Bytes()) {
				t.Error("no color codes in colored output")
			}
			if ansi.Match(plain.Bytes()) {
				t.Error("color codes in plain output")
			}
			if d := cmp.Diff(plain.String(), ansi.ReplaceAllString(colored.String(), "")); d != "" {
				t.Errorf("colored output, codes stripped, differs from plain (-plain +stripped):\n%s", d)
			}
		})
	}
}

func TestPrintHumanUnknown(t *testing.T) {
	if err := printer.PrintHuman(&bytes.Buffer{}, 42, printer.Human{}); err == nil {
		t.Error("want an error for a type without a human format")
	}
}
