package printer

import (
	"io"
	"strings"

	"github.com/liggitt/tabwriter"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/strata-dev/strata/pkg/query"
)

// Tables for kubectl's flags. A command that lists objects builds a
// metav1.Table (the server-side table kubectl get prints) whose rows carry
// the listed objects, and cli-runtime's table printer prints it: -o wide
// (the columns of priority 1), --no-headers, --show-labels and -L read
// the rows' objects exactly as kubectl get does, and kubectl's sorter
// (--sort-by) sorts rows by a JSONPath into them.

// PrintTable writes t with cli-runtime's table printer under opts. The
// columns are two spaces apart, as Strata's other tables (kubectl's own
// are three): with no option set, the bytes are those of the human
// format's table without colors.
//
// The printer flushes every 100 rows, to bound memory, and pads the
// header to the widest cell of each column so that the first flush sets
// the widths; RememberWidths keeps them for the next flushes, as
// kubectl's own tabwriter does. Without it, rows after the hundredth
// were aligned on their own.
func PrintTable(w io.Writer, t *metav1.Table, opts printers.PrintOptions) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.RememberWidths)
	if err := printers.NewTablePrinter(opts).PrintObj(t, tw); err != nil {
		return err
	}
	return tw.Flush()
}

// PolicyColumns are the columns of `strata get policies`: those of the
// human format, then (priority 1, -o wide) the kind's group, whether
// Strata manages it, and the creationTimestamp that breaks ties.
var PolicyColumns = []metav1.TableColumnDefinition{
	{Name: "Kind", Type: "string"},
	{Name: "Policy", Type: "string", Format: "name"},
	{Name: "Targets", Type: "string"},
	{Name: "Class", Type: "string"},
	{Name: "Status", Type: "string"},
	{Name: "Affects", Type: "string"},
	{Name: "Group", Type: "string", Priority: 1},
	{Name: "Managed", Type: "boolean", Priority: 1},
	{Name: "Created", Type: "date", Priority: 1},
}

// PolicyTable is l as a table, one row per item; objects[i] is the policy
// object of l.Items[i], for the printer's label columns and the sorter.
func PolicyTable(l *query.PolicyList, objects []runtime.Object) *metav1.Table {
	t := &metav1.Table{ColumnDefinitions: PolicyColumns, Rows: make([]metav1.TableRow, len(l.Items))}
	for i, p := range l.Items {
		t.Rows[i] = metav1.TableRow{
			Cells: []any{dashed(p.Kind), dashed(p.ID()), dashed(strings.Join(p.Targets, ", ")), dashed(p.Class),
				dashed(statusLine(p.Status)), dashed(affects(p.Affects)), dashed(p.Group), p.Managed, dashed(p.Created)},
			Object: runtime.RawExtension{Object: objects[i]},
		}
	}
	return t
}

// dashed writes an empty cell as the human tables do.
func dashed(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
