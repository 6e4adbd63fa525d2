package outcome

import (
	"regexp"
	"strings"
	"testing"

	"github.com/strata-dev/strata/pkg/engine/topology"
)

// The patterns of Gateway API's ParentReference schema
// (sigs.k8s.io/gateway-api apis/v1 ParentReference), as the API server
// checks them.
var (
	schemaGroup   = regexp.MustCompile(`^$|^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	schemaKind    = regexp.MustCompile(`^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$`)
	schemaNS      = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	schemaSection = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// schemaValid is validAncestorRef written with the schema's patterns.
func schemaValid(r topology.Ref) bool {
	return r.Name != "" && len(r.Name) <= 253 &&
		len(r.Kind) <= 63 && schemaKind.MatchString(r.Kind) &&
		len(r.Group) <= 253 && schemaGroup.MatchString(r.Group) &&
		(r.Namespace == "" || len(r.Namespace) <= 63 && schemaNS.MatchString(r.Namespace)) &&
		(r.Section == "" || len(r.Section) <= 253 && schemaSection.MatchString(r.Section))
}

// validAncestorRef checks the schema's patterns by hand; it must accept
// exactly what they accept, on strings made of the characters and
// places that decide a match (edges, dots, dashes, case, digits,
// non-ASCII) and on the fuzzer's.
func TestValidAncestorRefIsTheSchema(t *testing.T) {
	pieces := []string{"", "a", "Z", "0", "-", ".", "a-b", "a.b", "-a", "a-", ".a", "a.", "a..b", "A", "é", "_", "9z", "z9", "x" + strings.Repeat("y", 62), "ab-cd.ef-gh"}
	var words []string
	for _, p := range pieces {
		for _, q := range pieces {
			words = append(words, p+q)
		}
	}
	n := 0
	for _, w := range words {
		for _, r := range []topology.Ref{
			{Name: "n", Kind: "Gateway", Group: w},
			{Name: "n", Kind: w},
			{Name: "n", Kind: "Gateway", Namespace: w},
			{Name: "n", Kind: "Gateway", Section: w},
			{Name: w, Kind: "Gateway"},
		} {
			if got, want := validAncestorRef(r), schemaValid(r); got != want {
				t.Errorf("%+v: valid %t, the schema says %t", r, got, want)
			}
			n++
		}
	}
	if n < 1000 {
		t.Fatalf("%d refs checked", n)
	}
}

func FuzzValidAncestorRefIsTheSchema(f *testing.F) {
	f.Add("gateway.networking.k8s.io", "Gateway", "ns", "listener-1", "gw")
	f.Add("", "a-", "-", "a..b", "")
	f.Fuzz(func(t *testing.T, group, kind, ns, section, name string) {
		r := topology.Ref{Group: group, Kind: kind, Namespace: ns, Section: section, Name: name}
		if got, want := validAncestorRef(r), schemaValid(r); got != want {
			t.Errorf("%+v: valid %t, the schema says %t", r, got, want)
		}
	})
}
