package printer

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/printers"
)

// PrintTable writes the bytes of one text/tabwriter pass over the whole
// table, however many rows: cli-runtime's printer flushes every 100 rows,
// and a row wider than the first hundred must not misalign the rest
// (with --no-headers too).
func TestPrintTableAlignsAllRows(t *testing.T) {
	for _, n := range []int{1, 99, 100, 101, 250} {
		for _, noHeaders := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d rows, no headers %t", n, noHeaders), func(t *testing.T) {
				tbl := &metav1.Table{ColumnDefinitions: []metav1.TableColumnDefinition{{Name: "Kind"}, {Name: "Policy"}, {Name: "Affects"}}}
				var want bytes.Buffer
				tw := tabwriter.NewWriter(&want, 0, 0, 2, ' ', 0)
				if !noHeaders {
					fmt.Fprintln(tw, "KIND\tPOLICY\tAFFECTS")
				}
				for i := range n {
					// The widest cells come last.
					row := []any{"Kind" + strings.Repeat("k", i/40), fmt.Sprintf("ns/policy-%d", i*i), "none"}
					tbl.Rows = append(tbl.Rows, metav1.TableRow{Cells: row})
					fmt.Fprintf(tw, "%s\t%s\t%s\n", row...)
				}
				if err := tw.Flush(); err != nil {
					t.Fatal(err)
				}
				var got bytes.Buffer
				if err := PrintTable(&got, tbl, printers.PrintOptions{NoHeaders: noHeaders}); err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want.String(), got.String()); d != "" {
					t.Errorf("-want +got:\n%s", d)
				}
			})
		}
	}
}
