package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestListenerSetGolden pins what Strata prints for a ListenerSet
// (GEP-1713, issue 16 item 1): a policy on a ListenerSet reaches the
// routes of its listeners only, not those of the parent Gateway's own
// listeners; a ListenerSet its Gateway does not allow
// (spec.allowedListeners) is reported and its routes reach nothing; the
// status ancestors and the describe and graph views name the ListenerSet.
func TestListenerSetGolden(t *testing.T) {
	dir := "../../examples/gep-713/listenerset"
	for _, c := range []struct {
		file string
		args []string
	}{
		{"status.golden", []string{"status", "-o", "yaml"}},
		{"effective.golden", []string{"effective", "-o", "yaml"}},
		{"describe-team-a.golden", []string{"describe", "lset/team-a", "-n", "infra"}},
		{"graph.mermaid.golden", []string{"graph", "-o", "mermaid"}},
	} {
		t.Run(c.file, func(t *testing.T) {
			out, errOut, code := strata(t, "", append(c.args, "-f", dir)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if want := `ListenerSet team-b/team-b: spec.parentRef: Gateway infra/gw does not allow ListenerSets from namespace "team-b"`; !strings.Contains(errOut, want) {
				t.Errorf("stderr %q does not report %q", errOut, want)
			}
			discoverGolden(t, filepath.Join(dir, c.file), out)
		})
	}
}

// GEP-1713 puts a ListenerSet between its Gateway and its listeners: a
// default on one of its listeners is more specific than one on the
// ListenerSet, and wins though it is newer (at one level the older would).
func TestListenerSetListenerIsMoreSpecific(t *testing.T) {
	listener := "apiVersion: policies.controller.io/v1\nkind: ColorPolicy\nmetadata: {name: p-listener, namespace: infra, creationTimestamp: \"2026-01-01T00:04:00Z\"}\n" +
		"spec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: ListenerSet, name: team-a, sectionName: a}]\n  colors: {light: teal}\n"
	out, errOut, code := strata(t, listener, "explain", "service/s-a", "-n", "team-a", "--field", "/colors/light", "-f", "../../examples/gep-713/listenerset", "-f", "-", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{`"note": "beaten by infra/p-listener"`, `"level": 4`, `"level": 3`, `"outcome": "Wins"`} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %s:\n%s", want, out)
		}
	}
}
