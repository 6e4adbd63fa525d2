package cli

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEffectiveInNamespace checks that `effective -n NS`, which computes
// only the effective policies of NS's targets (and cluster-scoped ones),
// prints exactly the items of the complete `effective -A` that are in NS
// or cluster-scoped, for every namespace of every example.
func TestEffectiveInNamespace(t *testing.T) {
	type list struct {
		Items []map[string]any `json:"items"`
	}
	read := func(t *testing.T, args ...string) list {
		t.Helper()
		out, errOut, code := strata(t, "", append(args, "-o", "json")...)
		if code != 0 {
			t.Fatalf("strata %v: exit %d: %s", args, code, errOut)
		}
		var l list
		if err := json.Unmarshal([]byte(out), &l); err != nil {
			t.Fatal(err)
		}
		return l
	}
	namespaceOf := func(item map[string]any) string {
		ns, _ := item["metadata"].(map[string]any)["namespace"].(string)
		return ns
	}
	compared := 0
	for _, dir := range []string{"../../examples/parable", "../../examples/gep-713/example-3", "../../examples/gep-713/listenerset", "../../examples/gep-713/mesh", "../../examples/childmerge"} {
		all := read(t, "effective", "-A", "-f", dir)
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
			got := read(t, "effective", "-n", ns, "-f", dir)
			if d := cmp.Diff(want, got.Items); d != "" {
				t.Errorf("%s: effective -n %s differs from effective -A's items in it (-want +got):\n%s", dir, ns, d)
			}
			compared += len(want)
		}
	}
	if compared < 20 {
		t.Fatalf("only %d items compared", compared)
	}
}
