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

// PrintTable writes t (a metav1.Table whose rows carry the listed objects,
// for kubectl's -o wide, --no-headers, --show-labels, -L and --sort-by)
// with cli-runtime's table printer under opts, columns two spaces apart as
// Strata's other tables. RememberWidths keeps the widths of the first
// flush for the next ones, as kubectl's tabwriter does.
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
