package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// namespaceExamples are the examples a command scoped to one namespace is
// compared on with its complete run.
var namespaceExamples = []string{"../../examples/parable", "../../examples/gep-713/example-3", "../../examples/gep-713/listenerset", "../../examples/gep-713/mesh", "../../examples/childmerge", "../../examples/gep-713/programmed"}

// TestGetPoliciesInNamespace checks that `get policies -n NS`, which
// computes only the targets NS's policies (and cluster-scoped ones)
// reach (query.StatusScope), lists exactly the items of the complete
// `get policies -A` in NS or cluster-scoped, status and counts included,
// for every namespace of every example, also by kind.
func TestGetPoliciesInNamespace(t *testing.T) {
	compared := 0
	for _, dir := range namespaceExamples {
		all := readItems(t, "get", "policies", "-A", "-f", dir)
		namespaces, kinds := map[string]bool{}, map[string]bool{}
		for _, it := range all.Items {
			namespaces[it["namespace"].(string)] = true
			kinds[strings.ToLower(it["kind"].(string))+"."+it["group"].(string)] = true
		}
		for ns := range namespaces {
			if ns == "" {
				continue
			}
			var want []map[string]any
			for _, it := range all.Items {
				if n := it["namespace"].(string); n == ns || n == "" {
					want = append(want, it)
				}
			}
			got := readItems(t, "get", "policies", "-n", ns, "-f", dir)
			if d := cmp.Diff(want, got.Items, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("%s: get policies -n %s differs from get policies -A's items in it (-want +got):\n%s", dir, ns, d)
			}
			compared += len(want)
			for kind := range kinds {
				var want []map[string]any
				for _, it := range all.Items {
					if n := it["namespace"].(string); (n == ns || n == "") && strings.ToLower(it["kind"].(string))+"."+it["group"].(string) == kind {
						want = append(want, it)
					}
				}
				got := readItems(t, "get", "policies", kind, "-n", ns, "-f", dir)
				if d := cmp.Diff(want, got.Items, cmpopts.EquateEmpty()); d != "" {
					t.Errorf("%s: get policies %s -n %s differs from get policies -A's items of it (-want +got):\n%s", dir, kind, ns, d)
				}
				compared += len(want)
			}
		}
	}
	if compared < 50 {
		t.Fatalf("only %d items compared", compared)
	}
	t.Logf("%d items compared", compared)
}

// TestEffectiveInNamespace checks that `effective -n NS`, which computes
// only the effective policies of NS's targets (and cluster-scoped ones),
// prints exactly the items of the complete `effective -A` that are in NS
// or cluster-scoped, for every namespace of every example.
func TestEffectiveInNamespace(t *testing.T) {
	namespaceOf := func(item map[string]any) string {
		ns, _ := item["metadata"].(map[string]any)["namespace"].(string)
		return ns
	}
	compared := 0
	for _, dir := range namespaceExamples {
		all := readItems(t, "effective", "-A", "-f", dir)
		namespaces := map[string]bool{}
		for _, it := range all.Items {
			namespaces[namespaceOf(it)] = true
		}
		for ns := range namespaces {
			if ns == "" {
				continue
			}
			var want []map[string]any
			for _, it := range all.Items {
				if n := namespaceOf(it); n == ns || n == "" {
					want = append(want, it)
				}
			}
			got := readItems(t, "effective", "-n", ns, "-f", dir)
			if d := cmp.Diff(want, got.Items, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("%s: effective -n %s differs from effective -A's items in it (-want +got):\n%s", dir, ns, d)
			}
			compared += len(want)
		}
	}
	if compared < 20 {
		t.Fatalf("only %d items compared", compared)
	}
}

// itemList is the items of a List or list document, as JSON reads them.
type itemList struct {
	Items []map[string]any `json:"items"`
}

// readItems runs strata with -o json and reads the items it prints.
func readItems(t *testing.T, args ...string) itemList {
	t.Helper()
	out, errOut, code := strata(t, "", append(args, "-o", "json")...)
	if code != 0 {
		t.Fatalf("strata %v: exit %d: %s", args, code, errOut)
	}
	var l itemList
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	return l
}

// TestCheckInNamespace checks that `check -n NS`, which computes only the
// targets NS's policies (and cluster-scoped ones) reach
// (query.StatusScope), finds exactly what the complete `check` finds for
// the policies in NS or cluster-scoped, for every namespace of every
// example; and that a label selector is scoped the same way.
func TestCheckInNamespace(t *testing.T) {
	findings := func(args ...string) []map[string]any {
		t.Helper()
		out, errOut, code := strata(t, "", append(args, "-o", "json", "--fail-on", "")...)
		if code != 0 {
			t.Fatalf("strata %v: exit %d: %s", args, code, errOut)
		}
		var fs []map[string]any
		if err := json.Unmarshal([]byte(out), &fs); err != nil {
			t.Fatalf("strata %v: %v\n%s", args, err, out)
		}
		return fs
	}
	namespaceOf := func(f map[string]any) string {
		ns, _ := f["policy"].(map[string]any)["namespace"].(string)
		return ns
	}
	compared := 0
	for _, dir := range namespaceExamples {
		all := findings("check", "-f", dir)
		namespaces := map[string]bool{}
		for _, f := range all {
			namespaces[namespaceOf(f)] = true
		}
		for ns := range namespaces {
			if ns == "" {
				continue
			}
			var want []map[string]any
			for _, f := range all {
				if n := namespaceOf(f); n == ns || n == "" {
					want = append(want, f)
				}
			}
			got := findings("check", "-n", ns, "-f", dir)
			if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("%s: check -n %s differs from check's findings in it (-want +got):\n%s", dir, ns, d)
			}
			compared += len(want)
		}
	}
	if compared < 5 {
		t.Fatalf("only %d findings compared", compared)
	}
	// The parable's findings of one namespace, chosen by a field
	// selector instead of -n.
	var want []map[string]any
	for _, f := range findings("check", "-f", "../../examples/parable") {
		if namespaceOf(f) == "frosting" {
			want = append(want, f)
		}
	}
	got := findings("check", "--field-selector", "metadata.namespace=frosting", "-f", "../../examples/parable")
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" || len(want) == 0 {
		t.Errorf("check --field-selector metadata.namespace=frosting (%d findings) differs (-want +got):\n%s", len(want), d)
	}
}
